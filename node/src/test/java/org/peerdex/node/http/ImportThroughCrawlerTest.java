package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Imports that name web pages go through the crawler (one fetch path): a sitemap import's pages are fetched by a
 * crawl, one request at a time per host with the node's 500 ms politeness floor between them and robots.txt
 * honoured, as the loopback site's own request log shows; and a scheduled feed survives a restart of the peer.
 */
class ImportThroughCrawlerTest {
    private static final long FLOOR_MS = 500;

    @Test
    void aSitemapImportsPagesAreFetchedPolitelyByACrawl() throws Exception {
        try (ImportTestPeer peer = new ImportTestPeer("")) {
            StringBuilder sitemap = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    + "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
            String[] words = {"amberquill", "brinefold", "cindermoss", "duskwhistle", "emberlathe"};
            for (int i = 0; i < words.length; i++) {
                peer.serve("/guide/page" + i + ".html", "text/html; charset=utf-8",
                        SitemapDocumentForumImportTest.html("Guide page " + i, "This page explains the " + words[i]
                                + " setting. <a href=\"/guide/unlisted.html\">more</a>"));
                sitemap.append("<url><loc>").append(peer.siteBase).append("/guide/page").append(i)
                        .append(".html</loc></url>\n");
            }
            peer.serve("/guide/unlisted.html", "text/html", SitemapDocumentForumImportTest.html("Unlisted",
                    "unlistedword"));
            peer.serve("/internal/notes.html", "text/html", SitemapDocumentForumImportTest.html("Notes",
                    "forbiddenword"));
            sitemap.append("<url><loc>").append(peer.siteBase).append("/internal/notes.html</loc></url>\n</urlset>\n");
            peer.serve("/sitemap.xml", "application/xml", sitemap.toString().getBytes(StandardCharsets.UTF_8));
            peer.serve("/robots.txt", "text/plain", "User-agent: *\nDisallow: /internal/\n"
                    .getBytes(StandardCharsets.UTF_8));

            JsonNode p = peer.awaitEnd(peer.startImport("sitemap", Map.of("url", peer.siteBase + "/sitemap.xml")));
            assertEquals("finished", p.get("state").asText(), p.toString());
            assertEquals(5, p.get("imported").asInt(), p.toString());
            assertEquals(1, p.get("skipped").asInt(), "robots.txt disallows /internal/: " + p);
            assertEquals(1, p.get("details").get("skippedBy").get("robots").asInt(), p.toString());
            for (String w : words) assertEquals(1, peer.urls(w).size(), w);
            assertTrue(peer.urls("forbiddenword").isEmpty());
            assertTrue(peer.urls("unlistedword").isEmpty(), "only the listed pages: links are not followed");

            // the import reports its crawl, and the crawl monitor has it
            String crawl = p.get("details").get("crawl").asText();
            HttpResponse<String> r = peer.send("GET", "/api/crawl/" + crawl, null);
            assertEquals(200, r.statusCode(), r.body());
            JsonNode c = Json.MAPPER.readTree(r.body());
            assertEquals("finished", c.get("state").asText(), c.toString());
            assertEquals(5, c.get("indexed").asInt(), c.toString());

            // the site's log: robots.txt was read, /internal/ never, nothing unlisted, and between the end of one
            // crawler request and the start of the next at least the floor (the sitemap itself is read by the import)
            List<ImportTestPeer.Timed> log = new ArrayList<>(peer.timed);
            assertFalse(log.stream().anyMatch(t -> t.request().contains("/internal/")), log.toString());
            assertFalse(log.stream().anyMatch(t -> t.request().contains("unlisted")), log.toString());
            List<ImportTestPeer.Timed> crawler = log.stream().filter(t -> !t.request().endsWith("/sitemap.xml"))
                    .sorted(java.util.Comparator.comparingLong(ImportTestPeer.Timed::startNanos)).toList();
            assertEquals("GET /robots.txt", crawler.get(0).request(), "robots.txt first: " + crawler);
            assertEquals(6, crawler.size(), "robots.txt and five pages, each once: " + crawler);
            for (int i = 1; i < crawler.size(); i++) {
                long gapMs = (crawler.get(i).startNanos() - crawler.get(i - 1).endNanos()) / 1_000_000;
                assertTrue(gapMs >= FLOOR_MS - 5, "gap of " + gapMs + " ms before " + crawler.get(i).request());
            }
        }
    }

    @Test
    void anImportsCrawlResumesAfterARestartWithoutFetchingIndexedPagesAgain() throws Exception {
        try (ImportTestPeer peer = new ImportTestPeer("")) {
            StringBuilder sitemap = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    + "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
            int pages = 12;
            for (int i = 0; i < pages; i++) {
                peer.serve("/atlas/p" + i + ".html", "text/html", SitemapDocumentForumImportTest.html("Atlas " + i,
                        "Atlas page about the fjordmark" + i + " region."));
                sitemap.append("<url><loc>").append(peer.siteBase).append("/atlas/p").append(i).append(".html</loc></url>\n");
            }
            peer.serve("/atlas.xml", "application/xml", sitemap.append("</urlset>\n").toString()
                    .getBytes(StandardCharsets.UTF_8));
            String id = peer.startImport("sitemap", Map.of("url", peer.siteBase + "/atlas.xml"));
            await(() -> peer.progress(id).get("imported").asInt() >= 3, "three pages indexed");
            String crawl = peer.progress(id).get("details").get("crawl").asText();

            peer.restart(); // the import ends with the peer; its crawl stays running in the store
            List<String> indexedBefore = new ArrayList<>();
            for (int i = 0; i < pages; i++) if (!peer.urls("fjordmark" + i).isEmpty()) indexedBefore.add("/atlas/p" + i);
            assertTrue(indexedBefore.size() >= 3 && indexedBefore.size() < pages, indexedBefore.toString());
            await(() -> {
                HttpResponse<String> r = peer.send("GET", "/api/crawl/" + crawl, null);
                return r.statusCode() == 200 && Json.MAPPER.readTree(r.body()).get("state").asText().equals("finished");
            }, "the resumed crawl to finish");
            for (int i = 0; i < pages; i++) assertEquals(1, peer.urls("fjordmark" + i).size(), "page " + i);
            for (String page : indexedBefore) {
                long asked = new ArrayList<>(peer.requests).stream().filter(r -> r.equals("GET " + page + ".html")).count();
                assertEquals(1, asked, page + " was indexed before the restart and is not fetched again");
            }
        }
    }

    @Test
    void aScheduledFeedRunsOnAfterARestart() throws Exception {
        try (ImportTestPeer peer = new ImportTestPeer("peerdex.importer.min-feed-interval = 100ms\n")) {
            AtomicReference<String> extra = new AtomicReference<>("");
            AtomicInteger reads = new AtomicInteger();
            peer.serve("/feeds/ticker.xml", ex -> {
                reads.incrementAndGet();
                return ImportTestPeer.Reply.ok("application/rss+xml", ("<?xml version=\"1.0\"?><rss version=\"2.0\">"
                        + "<channel><title>Ticker</title><link>" + peer.siteBase + "/t/</link><description>d"
                        + "</description><item><title>One</title><link>" + peer.siteBase + "/t/1</link>"
                        + "<description>firsttickerpost</description></item>" + extra.get()
                        + "</channel></rss>").getBytes(StandardCharsets.UTF_8));
            });
            String id = peer.startImport("rss", Map.of("url", peer.siteBase + "/feeds/ticker.xml", "every", "PT1S"));
            await(() -> !peer.urls("firsttickerpost").isEmpty(), "the first run");

            peer.restart();
            JsonNode p = peer.progress(id);
            assertEquals("running", p.get("state").asText(), "the schedule is back after the restart: " + p);
            assertEquals("PT1S", p.get("details").get("every").asText(), p.toString());
            int before = reads.get();
            extra.set("<item><title>Two</title><link>" + peer.siteBase + "/t/2</link>"
                    + "<description>secondtickerpost</description></item>");
            await(() -> !peer.urls("secondtickerpost").isEmpty(), "a run after the restart");
            assertTrue(reads.get() > before);

            assertEquals(200, peer.send("DELETE", "/api/import/" + id, null).statusCode());
            peer.restart();
            JsonNode after = peer.progress(id);
            assertNotEquals("running", after.get("state").asText(), "a stopped schedule stays stopped: " + after);
            int stoppedAt = reads.get();
            LockSupport.parkNanos(2_500_000_000L);
            assertEquals(stoppedAt, reads.get(), "the stopped feed is not read again");
        }
    }

    private interface Check {
        boolean ok() throws Exception;
    }

    private static void await(Check c, String what) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!c.ok()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            LockSupport.parkNanos(50_000_000);
        }
    }
}
