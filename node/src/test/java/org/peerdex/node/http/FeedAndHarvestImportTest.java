package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** RSS/Atom, OAI-PMH and MediaWiki imports end to end: real formats served on loopback, found by /api/search. */
class FeedAndHarvestImportTest {
    static ImportTestPeer peer;

    @BeforeAll
    static void start() throws Exception {
        peer = new ImportTestPeer("peerdex.importer.min-feed-interval = 100ms\n");
        peer.serve("/feeds/rss.xml", "application/rss+xml; charset=utf-8", peer.fixture("feed-rss2.xml"));
        peer.serve("/feeds/atom.xml", "application/atom+xml", peer.fixture("feed-atom.xml"));
        peer.serve("/feeds/broken.xml", "application/rss+xml", peer.fixture("feed-malformed.xml"));
        peer.serve("/news/tarn-4-2.html", "text/html; charset=utf-8", ("<html><head><title>Tarn 4.2 release notes"
                + "</title></head><body><h1>Tarn 4.2</h1><p>The checkpointer now uses the glimmerwick algorithm."
                + "</p></body></html>").getBytes(StandardCharsets.UTF_8));
        byte[] page1 = peer.fixture("oai-page1.xml");
        byte[] page2 = peer.fixture("oai-page2.xml");
        byte[] noMatch = peer.fixture("oai-nomatch.xml");
        byte[] badToken = peer.fixture("oai-badtoken.xml");
        peer.serve("/oai", ex -> {
            String q = ex.getRequestURI().getRawQuery();
            byte[] body = q.contains("resumptionToken=page2-7f3a") ? page2 : q.contains("resumptionToken=")
                    ? badToken : q.contains("from=") ? noMatch : page1;
            return ImportTestPeer.Reply.ok("text/xml; charset=utf-8", body);
        });
        // a repository whose second page breaks off in the middle of a record
        peer.serve("/oai-broken", ex -> {
            String q = ex.getRequestURI().getRawQuery();
            byte[] body = q.contains("resumptionToken=") ? Arrays.copyOf(page2, page2.length / 2) : page1;
            return ImportTestPeer.Reply.ok("text/xml", body);
        });
        byte[] wiki = peer.fixture("wiki-export.xml");
        peer.serve("/dumps/tarnwiki-pages-articles.xml.bz2", "application/x-bzip2", bzip2(wiki));
        String w = new String(wiki, StandardCharsets.UTF_8);
        peer.serve("/dumps/truncated.xml", "text/xml", w.substring(0, w.indexOf("exposing")).getBytes(StandardCharsets.UTF_8));
    }

    @AfterAll
    static void stop() throws Exception {
        if (peer != null) peer.close();
    }

    static byte[] bzip2(byte[] data) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (BZip2CompressorOutputStream bz = new BZip2CompressorOutputStream(out)) {
            bz.write(data);
        }
        return out.toByteArray();
    }

    @Test
    void rssAndAtomEntriesAreFoundBySearch() throws Exception {
        String rss = peer.startImport("rss", Map.of("url", peer.siteBase + "/feeds/rss.xml", "force", true));
        JsonNode p = peer.awaitEnd(rss);
        assertEquals("finished", p.get("state").asText(), p.toString());
        assertEquals(3, p.get("imported").asInt(), p.toString());
        assertEquals("rss", p.get("kind").asText());
        for (String f : List.of("id", "kind", "state", "imported", "skipped", "errors", "docsPerSecond")) {
            assertTrue(p.has(f), "progress lacks " + f + ": " + p);
        }
        assertTrue(peer.urls("quillfeather").get(0).endsWith("/news/advisory-17.html"));
        assertTrue(peer.urls("zephyrine").get(0).endsWith("/news/slides.html"), "content:encoded is indexed");
        JsonNode hit = peer.search("incremental vacuum").get("results").get(0);
        assertEquals("Tarn 4.2 released with incremental vacuum", hit.get("title").asText());
        assertEquals("2026-11-10", hit.get("date").asText());

        String atom = peer.startImport("rss", Map.of("url", peer.siteBase + "/feeds/atom.xml", "force", true));
        p = peer.awaitEnd(atom);
        assertEquals(2, p.get("imported").asInt(), p.toString());
        assertTrue(peer.urls("pelicanite").get(0).endsWith("/blog/pelicanite.html"), "xhtml content is indexed");
        assertTrue(peer.urls("cursors keybinding").get(0).endsWith("/blog/multiple-cursors.html"));

        // reading the same feed again skips what is indexed with the same date
        p = peer.awaitEnd(peer.startImport("rss", Map.of("url", peer.siteBase + "/feeds/rss.xml")));
        assertEquals(0, p.get("imported").asInt(), p.toString());
        assertEquals(3, p.get("skipped").asInt(), p.toString());
    }

    @Test
    void aScheduledFeedIsReReadUntilStopped() throws Exception {
        java.util.concurrent.atomic.AtomicReference<String> extra = new java.util.concurrent.atomic.AtomicReference<>("");
        peer.serve("/feeds/live.xml", ex -> ImportTestPeer.Reply.ok("application/rss+xml", ("<?xml version=\"1.0\"?>"
                + "<rss version=\"2.0\"><channel><title>Live</title><link>" + peer.siteBase + "/live/</link>"
                + "<description>d</description><item><title>First</title><link>" + peer.siteBase + "/live/1</link>"
                + "<pubDate>Tue, 10 Nov 2026 09:00:00 GMT</pubDate><description>firstlivepost</description></item>"
                + extra.get() + "</channel></rss>").getBytes(StandardCharsets.UTF_8)));
        String id = peer.startImport("rss", Map.of("url", peer.siteBase + "/feeds/live.xml", "every", "PT0.2S"));
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (peer.urls("firstlivepost").isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "first run never indexed");
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
        }
        JsonNode p = peer.progress(id);
        assertEquals("running", p.get("state").asText(), "a subscription runs until stopped: " + p);
        assertEquals("PT0.2S", p.get("details").get("every").asText());
        extra.set("<item><title>Second</title><link>" + peer.siteBase + "/live/2</link>"
                + "<pubDate>Wed, 11 Nov 2026 09:00:00 GMT</pubDate><description>secondlivepost</description></item>");
        while (peer.urls("secondlivepost").isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "the feed was not re-read: " + peer.progress(id));
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
        }
        HttpResponse<String> stopped = peer.send("DELETE", "/api/import/" + id, null);
        assertEquals(200, stopped.statusCode(), stopped.body());
        JsonNode end = peer.awaitEnd(id);
        assertEquals("stopped", end.get("state").asText(), end.toString());
    }

    @Test
    void feedEntriesCanBeIndexedFromTheirLinkedPages() throws Exception {
        JsonNode p = peer.awaitEnd(peer.startImport("rss", Map.of("url", peer.siteBase + "/feeds/rss.xml",
                "fetchLinked", true, "force", true)));
        assertEquals("finished", p.get("state").asText(), p.toString());
        assertTrue(peer.urls("glimmerwick").get(0).endsWith("/news/tarn-4-2.html"), "the linked page was fetched");
        // the other two pages do not exist: their entries keep the feed's summary, with an error each
        assertTrue(p.get("errors").asInt() >= 2, p.toString());
    }

    @Test
    void aMalformedFeedFailsWithAClearErrorAndKeepsEarlierImports() throws Exception {
        peer.awaitEnd(peer.startImport("rss", Map.of("url", peer.siteBase + "/feeds/atom.xml")));
        JsonNode p = peer.awaitEnd(peer.startImport("rss", Map.of("url", peer.siteBase + "/feeds/broken.xml")));
        assertEquals("failed", p.get("state").asText(), p.toString());
        assertTrue(p.get("error").asText().contains("not a readable RSS or Atom feed"), p.toString());
        assertFalse(peer.urls("pelicanite").isEmpty(), "what was imported before is still found");
        JsonNode missing = peer.awaitEnd(peer.startImport("rss", Map.of("url", peer.siteBase + "/feeds/none.xml")));
        assertEquals("failed", missing.get("state").asText());
        assertTrue(missing.get("error").asText().contains("HTTP 404"), missing.toString());
    }

    @Test
    void oaiPmhHarvestFollowsResumptionTokensAndIsIncremental() throws Exception {
        JsonNode p = peer.awaitEnd(peer.startImport("oai-pmh", Map.of("url", peer.siteBase + "/oai")));
        assertEquals("finished", p.get("state").asText(), p.toString());
        assertEquals(3, p.get("imported").asInt(), p.toString());
        assertEquals(1, p.get("skipped").asInt(), "the deleted record is skipped: " + p);
        assertEquals(2, p.get("details").get("pages").asInt(), p.toString());
        assertTrue(peer.urls("graphene").get(0).endsWith("/records/1001"));
        assertTrue(peer.urls("seiches").get(0).endsWith("/records/1004"), "page 2 was harvested");
        String lichen = peer.urls("lichen basalt").get(0);
        assertTrue(lichen.contains("verb=GetRecord") && lichen.contains("identifier=oai%3Arepo.example%3A1003"), lichen);
        assertTrue(peer.search("Lindqvist").get("total").asInt() >= 1, "creators are indexed");
        // the next harvest asks only for what changed since the first began, and the repository has nothing new
        int before = peer.requests.size();
        JsonNode again = peer.awaitEnd(peer.startImport("oai-pmh", Map.of("url", peer.siteBase + "/oai")));
        assertEquals("finished", again.get("state").asText(), again.toString());
        assertEquals(0, again.get("imported").asInt(), again.toString());
        assertEquals("2026-11-30", again.get("details").get("from").asText(), again.toString());
        assertTrue(peer.requests.subList(before, peer.requests.size()).stream()
                .anyMatch(r -> r.contains("from=2026-11-30")), peer.requests.toString());
    }

    @Test
    void aBrokenOaiPageFailsTheHarvestButKeepsTheFirstPage() throws Exception {
        JsonNode p = peer.awaitEnd(peer.startImport("oai-pmh", Map.of("url", peer.siteBase + "/oai-broken")));
        assertEquals("failed", p.get("state").asText(), p.toString());
        assertTrue(p.get("error").asText().startsWith("malformed OAI-PMH response, line "), p.toString());
        assertEquals(2, p.get("imported").asInt(), p.toString());
        assertFalse(peer.urls("graphene thermal").isEmpty());
        JsonNode err = peer.awaitEnd(peer.startImport("oai-pmh", Map.of("url", peer.siteBase + "/oai",
                "from", "2026-01-01")));
        assertEquals("finished", err.get("state").asText(), "noRecordsMatch is an empty harvest, no failure: " + err);
    }

    @Test
    void aBzip2MediaWikiDumpBecomesSearchableWikiPages() throws Exception {
        JsonNode p = peer.awaitEnd(peer.startImport("mediawiki", Map.of("url",
                peer.siteBase + "/dumps/tarnwiki-pages-articles.xml.bz2")));
        assertEquals("finished", p.get("state").asText(), p.toString());
        assertEquals(2, p.get("imported").asInt(), p.toString());
        assertEquals(2, p.get("skipped").asInt(), "a redirect and a talk page are skipped: " + p);
        assertEquals("Tarnwiki", p.get("details").get("siteName").asText());
        JsonNode hit = peer.search("turquoise").get("results").get(0);
        assertEquals("http://wiki.tarn.test/wiki/Lake_Skorvatn", hit.get("url").asText());
        assertEquals("Lake Skorvatn", hit.get("title").asText());
        assertFalse(hit.get("snippet").asText().contains("[["), hit.toString());
        assertFalse(peer.urls("morenerygg").isEmpty(), "{{lang}} text is indexed");
        assertFalse(peer.urls("kettlehole").isEmpty(), "file captions are indexed");
        assertFalse(peer.urls("Hydrographic").isEmpty(), "table cells are indexed");
        assertTrue(peer.urls("wikitable").isEmpty(), "table markup is not");
        assertTrue(peer.urls("talkpageword").isEmpty(), "talk pages are not articles");
        assertTrue(peer.urls("hidden editor note").isEmpty(), "comments are not text");
        assertTrue(peer.urls("jostedalsbreen").get(0).endsWith("/wiki/Skorbreen"));
    }

    @Test
    void aDumpOnDiskImportsAndATruncatedDumpKeepsItsFirstPages() throws Exception {
        Path file = Files.createTempFile(peer.dataDir, "dump", ".xml");
        Files.write(file, peer.fixture("wiki-export.xml"));
        JsonNode p = peer.awaitEnd(peer.startImport("mediawiki", Map.of("path", file.toString(),
                "baseUrl", "http://mirror.tarn.test/w/")));
        assertEquals(2, p.get("imported").asInt(), p.toString());
        assertTrue(peer.urls("turquoise").contains("http://mirror.tarn.test/w/Lake_Skorvatn"));

        JsonNode cut = peer.awaitEnd(peer.startImport("mediawiki", Map.of("url", peer.siteBase + "/dumps/truncated.xml",
                "baseUrl", "http://cut.tarn.test/wiki/")));
        assertEquals("failed", cut.get("state").asText(), cut.toString());
        assertTrue(cut.get("error").asText().contains("after 1 pages"), cut.toString());
        assertEquals(1, cut.get("imported").asInt(), cut.toString());
        assertTrue(peer.urls("turquoise").contains("http://cut.tarn.test/wiki/Lake_Skorvatn"), "the first page stays");
    }

    @Test
    void badImportRequestsGetClearErrors() throws Exception {
        HttpResponse<String> r = peer.send("POST", "/api/import/rss", "{}");
        assertEquals(400, r.statusCode());
        assertTrue(r.body().contains("give \\\"url\\\"") || r.body().contains("url"), r.body());
        r = peer.send("POST", "/api/import/gopher", "{\"url\": \"http://x/\"}");
        assertEquals(404, r.statusCode());
        assertTrue(r.body().contains("no importer 'gopher'"), r.body());
        r = peer.send("POST", "/api/import/rss", "{\"url\": \"ftp://x/feed\"}");
        assertEquals(400, r.statusCode());
        r = peer.send("GET", "/api/import/imp-nope", null);
        assertEquals(404, r.statusCode());
        r = peer.send("POST", "/api/import/rss", "{\"url\": \"" + peer.siteBase + "/feeds/rss.xml\", \"every\": \"PT0.01S\"}");
        assertEquals(400, r.statusCode(), r.body());
    }

    @Test
    void theUiServesTheImportPage() throws Exception {
        HttpResponse<String> r = peer.send("GET", "/import.html", null);
        assertEquals(200, r.statusCode());
        assertTrue(r.body().contains("/import.js") && r.body().contains("OAI-PMH repository"), "the import page");
        // its script is a file of its own (the Content-Security-Policy forbids inline scripts)
        HttpResponse<String> js = peer.send("GET", "/import.js", null);
        assertEquals(200, js.statusCode());
        assertTrue(js.body().contains("/api/import/"), "the import page's script");
    }

    @Test
    void theImportListShowsHistoryPerSource() throws Exception {
        String src = peer.siteBase + "/feeds/atom.xml";
        String a = peer.startImport("rss", Map.of("url", src));
        peer.awaitEnd(a);
        HttpResponse<String> r = peer.send("GET", "/api/import?source=" + java.net.URLEncoder.encode(src,
                StandardCharsets.UTF_8), null);
        assertEquals(200, r.statusCode());
        JsonNode list = Json.MAPPER.readTree(r.body()).get("imports");
        assertTrue(list.size() >= 1);
        list.forEach(i -> assertEquals(src, i.get("source").asText()));
        boolean found = false;
        for (JsonNode i : list) found |= i.get("id").asText().equals(a);
        assertTrue(found, list.toString());
    }
}
