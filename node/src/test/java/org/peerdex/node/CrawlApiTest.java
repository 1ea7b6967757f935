package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.crawl.TestSite;

/** Crawls over the HTTP API of a real peer, of real HTML served on 127.0.0.1, then searched over HTTP. */
class CrawlApiTest {
    private static final Path POSTGRES_DOCS = Path.of("/usr/share/doc/postgresql-doc-15/html");
    @TempDir
    Path dir;

    static PeerNode start(Path data, boolean allowLoopback) {
        return PeerNode.start(TestPeers.config(data, Map.of("peerdex.crawler.allow-loopback", allowLoopback,
                "peerdex.indexer.flush-interval", "20ms")));
    }

    static TestPeers.Reply post(String url, String json) throws IOException, InterruptedException {
        return TestPeers.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    /** Polls the crawl's progress until it is no longer running (or the deadline passes). */
    static JsonNode awaitEnd(PeerNode node, String id, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        JsonNode p = null;
        while (System.nanoTime() < deadline) {
            p = TestPeers.get(node.baseUrl() + "/api/crawl/" + id).json();
            if (!p.path("state").asText().equals("running")) return p;
            LockSupport.parkNanos(10_000_000); // poll interval
        }
        fail("crawl " + id + " still running after " + max + ": " + p);
        return p;
    }

    /** Serves a directory (or a classpath folder) of HTML files. */
    static TestSite serve(java.util.function.Function<String, byte[]> files) throws IOException {
        TestSite site = new TestSite();
        site.fallback(path -> {
            byte[] b = files.apply(path.equals("/") ? "/index.html" : path);
            return b == null ? null : new TestSite.Reply(200, Map.of("Content-Type", "text/html; charset=utf-8"), b,
                    false);
        });
        return site;
    }

    static byte[] tarn(String path) {
        try (InputStream in = CrawlApiTest.class.getResourceAsStream("/corpus/tarn" + path)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    private static String q(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Test
    void postedCrawlOfTheTarnSiteIndexesEveryPageAndSearchFindsThem() throws Exception {
        long pages;
        try (Stream<Path> files = Files.list(Path.of(CrawlApiTest.class.getResource("/corpus/tarn").toURI()))) {
            pages = files.filter(f -> f.toString().endsWith(".html")).count();
        }
        try (TestSite site = serve(CrawlApiTest::tarn); PeerNode node = start(dir, true)) {
            TestPeers.Reply r = post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + site.url("/index.html")
                    + "\", \"minDelayMs\": 0, \"depth\": 5}");
            assertEquals(200, r.status(), r.json().toString());
            String id = r.json().get("id").asText();
            JsonNode p = awaitEnd(node, id, Duration.ofSeconds(30));
            assertEquals("finished", p.get("state").asText(), p.toString());
            assertEquals(pages, p.get("indexed").asLong(), p.toString());
            assertEquals(0, p.get("errors").asLong());
            assertTrue(p.get("pagesPerMinute").asDouble() > 0);
            for (String k : new String[] {"queued", "fetched", "skipped"}) assertTrue(p.has(k), k);

            JsonNode list = TestPeers.get(node.baseUrl() + "/api/crawl").json();
            assertEquals(id, list.get("crawls").get(0).get("id").asText());
            assertTrue(TestPeers.get(node.baseUrl() + "/api/status").json().get("pagesPerMinute").asDouble() > 0,
                    "status shows the crawl rate");

            JsonNode s = TestPeers.get(node.baseUrl() + "/api/search?q=" + q("compaction") + "&resource=local").json();
            assertTrue(s.get("total").asLong() >= 1, s.toString());
            boolean found = false;
            for (JsonNode res : s.get("results")) found |= res.get("url").asText().equals(site.url("/compaction.html"));
            assertTrue(found, "the compaction page is found: " + s);
            for (String path : site.counts().keySet()) {
                if (!path.equals("/robots.txt")) assertEquals(1, site.count(path), "fetched once: " + path);
            }
        }
    }

    @Test
    void badProfilesAndRefusedAddressesGetClearErrors() throws Exception {
        try (TestSite site = serve(CrawlApiTest::tarn); PeerNode node = start(dir, false)) {
            TestPeers.Reply r = post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + site.url("/") + "\"}");
            assertEquals(400, r.status());
            assertTrue(r.json().get("error").asText().contains("loopback"), r.json().toString());
            assertTrue(site.requests().isEmpty(), "nothing was fetched");

            r = post(node.baseUrl() + "/api/crawl", "{\"url\": \"http://example.org/\", \"mustMatch\": \"(\"}");
            assertEquals(400, r.status());
            assertTrue(r.json().get("error").asText().contains("mustMatch"), r.json().toString());
            r = post(node.baseUrl() + "/api/crawl", "{\"depth\": 2}");
            assertEquals(400, r.status());
            assertTrue(r.json().get("error").asText().contains("url"), r.json().toString());
            r = post(node.baseUrl() + "/api/crawl", "{not json");
            assertEquals(400, r.status());
            r = post(node.baseUrl() + "/api/crawl", "{\"url\": \"http://example.org/\", \"range\": \"galaxy\"}");
            assertEquals(400, r.status());
            assertEquals(404, TestPeers.get(node.baseUrl() + "/api/crawl/nosuchcrawl").status());
        }
    }

    @Test
    void deleteStopsARunningCrawl() throws Exception {
        try (TestSite site = new TestSite(); PeerNode node = start(dir, true)) {
            site.fallback(path -> TestSite.Reply.html("<html><title>" + path + "</title><body>page " + path
                    + " <a href=\"" + path + "x\">next</a><a href=\"" + path + "y\">other</a></body></html>"));
            String id = post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + site.url("/p") + "\", \"minDelayMs\": 100,"
                    + " \"depth\": 50}").json().get("id").asText();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (site.pageRequests().size() < 3 && System.nanoTime() < deadline) LockSupport.parkNanos(10_000_000); // poll interval
            TestPeers.Reply r = TestPeers.send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/crawl/" + id))
                    .DELETE().build());
            assertEquals(200, r.status(), r.json().toString());
            assertEquals("stopped", r.json().get("state").asText());
            int requests = site.pageRequests().size();
            JsonNode p = TestPeers.get(node.baseUrl() + "/api/crawl/" + id).json();
            assertEquals("stopped", p.get("state").asText());
            assertTrue(site.pageRequests().size() <= requests + 1, "no fetching after the stop");
        }
    }

    /** A loopback port that nothing listens on (bound once by the OS, then closed). */
    static int closedPort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void aCrawlOfAPortWithNothingListeningFailsAsHostUnreachableNotAsRobots() throws Exception {
        try (PeerNode node = start(dir, true)) {
            String start = "http://127.0.0.1:" + closedPort() + "/";
            TestPeers.Reply r = post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + start + "\"}");
            assertEquals(200, r.status(), r.json().toString());
            JsonNode p = awaitEnd(node, r.json().get("id").asText(), Duration.ofSeconds(30));
            assertEquals("failed", p.get("state").asText(), p.toString());
            String why = p.get("message").asText();
            assertTrue(why.contains("host unreachable (connection refused)") && why.contains(start), why);
            assertEquals(1, p.get("errorsBy").path("host-unreachable").asLong(), p.toString());
            assertTrue(p.get("skippedBy").isEmpty(), "not a robots.txt refusal: " + p);
            assertEquals(0, p.get("indexed").asLong());
            assertEquals(start, p.get("url").asText());
            assertTrue(p.get("durationMs").asLong() >= 0 && p.get("etaMs").asLong() == -1, p.toString());
            // the list says the same
            JsonNode listed = TestPeers.get(node.baseUrl() + "/api/crawl").json().get("crawls").get(0);
            assertEquals("failed", listed.get("state").asText());
            assertEquals(why, listed.get("message").asText());
        }
    }

    @Test
    void aStartUrlThatIsNotThereFailsTheCrawlWithTheStatusWhileAReachableSiteFinishes() throws Exception {
        try (TestSite site = serve(CrawlApiTest::tarn); PeerNode node = start(dir, true)) {
            String missing = site.url("/no-such-page.html");
            String id = post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + missing + "\", \"minDelayMs\": 0}")
                    .json().get("id").asText();
            JsonNode p = awaitEnd(node, id, Duration.ofSeconds(30));
            assertEquals("failed", p.get("state").asText(), p.toString());
            assertTrue(p.get("message").asText().contains(missing + ": HTTP 404"), p.toString());
            assertEquals(1, p.get("errorsBy").path("http-404").asLong(), p.toString());
            assertEquals(1, site.count("/no-such-page.html"));

            // robots.txt answers 404 here (no robots.txt: everything allowed), which is neither a failure nor a refusal
            id = post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + site.url("/faq.html")
                    + "\", \"minDelayMs\": 0, \"depth\": 0}").json().get("id").asText();
            p = awaitEnd(node, id, Duration.ofSeconds(30));
            assertEquals("finished", p.get("state").asText(), p.toString());
            assertEquals("", p.get("message").asText());
            assertEquals(1, p.get("indexed").asLong());
        }
    }

    @Test
    void aRunningCrawlShowsWhatIsOnTheWireItsHostQueuesAndItsRateOverTime() throws Exception {
        try (TestSite site = serve(CrawlApiTest::tarn); PeerNode node = start(dir, true)) {
            site.responseDelay(150); // each page takes a while, so a request is on the wire when the monitor looks
            String id = post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + site.url("/index.html")
                    + "\", \"minDelayMs\": 100, \"depth\": 5}").json().get("id").asText();
            boolean sawFetching = false;
            boolean sawHost = false;
            boolean sawEta = false;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            JsonNode p = null;
            while (System.nanoTime() < deadline) {
                p = TestPeers.get(node.baseUrl() + "/api/crawl/" + id).json();
                if (!p.get("state").asText().equals("running")) break;
                for (JsonNode f : p.get("fetching")) {
                    sawFetching |= f.get("url").asText().startsWith(site.base()) && f.get("since").asLong() > 0;
                }
                for (JsonNode h : p.get("hosts")) {
                    sawHost |= h.get("site").asText().equals(site.base())
                            && h.get("delayMs").asLong() == 100 && h.get("robots").asText().startsWith("none (HTTP 404");
                }
                sawEta |= p.get("etaMs").asLong() >= 0 && p.get("queued").asLong() > 0;
                LockSupport.parkNanos(20_000_000); // poll interval
            }
            assertTrue(sawFetching, "a request on the wire was shown: " + p);
            assertTrue(sawHost, "the host queue was shown: " + p);
            assertTrue(sawEta, "an ETA was shown while URLs were queued: " + p);
            p = awaitEnd(node, id, Duration.ofSeconds(30));
            assertEquals("finished", p.get("state").asText(), p.toString());
            JsonNode history = p.get("history");
            assertTrue(history.size() >= 3, "samples over the crawl: " + history);
            long first = history.get(0).get("at").asLong();
            JsonNode last = history.get(history.size() - 1);
            assertEquals(p.get("fetched").asLong(), last.get("fetched").asLong(), history.toString());
            assertTrue(first >= p.get("startedAt").asLong() && last.get("at").asLong() >= first, history.toString());
            long d = p.get("durationMs").asLong();
            assertEquals(p.get("finishedAt").asLong() - p.get("startedAt").asLong(), d);
            assertTrue(d >= 13 * 100, "13 pages, 100 ms apart at least: " + d);
        }
    }

    @Test
    void aCrawlStartsFromThePagesOfASitemapAndFailsWhenTheSitemapIsMissing() throws Exception {
        try (TestSite site = serve(CrawlApiTest::tarn); PeerNode node = start(dir, true)) {
            site.page("/sitemap.xml", n -> TestSite.Reply.of(200, Map.of("Content-Type", "application/xml"),
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
                            + "<url><loc>" + site.url("/faq.html") + "</loc></url>"
                            + "<url><loc>" + site.url("/backup.html") + "</loc></url>"
                            + "<url><loc>" + site.url("/tuning.html") + "</loc></url></urlset>"));
            String id = post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + site.url("/sitemap.xml")
                    + "\", \"startFrom\": \"sitemap\", \"depth\": 0, \"minDelayMs\": 0}").json().get("id").asText();
            JsonNode p = awaitEnd(node, id, Duration.ofSeconds(30));
            assertEquals("finished", p.get("state").asText(), p.toString());
            assertEquals(3, p.get("indexed").asLong(), p.toString());
            assertEquals("sitemap", p.get("profile").get("startFrom").asText());
            for (String page : new String[] {"/faq.html", "/backup.html", "/tuning.html"}) assertEquals(1, site.count(page));
            assertEquals(0, site.count("/index.html"), "depth 0: the listed pages only");
            assertEquals(1, site.count("/sitemap.xml"));

            id = post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + site.url("/gone.xml")
                    + "\", \"startFrom\": \"sitemap\", \"minDelayMs\": 0}").json().get("id").asText();
            p = awaitEnd(node, id, Duration.ofSeconds(30));
            assertEquals("failed", p.get("state").asText(), p.toString());
            assertTrue(p.get("message").asText().contains(site.url("/gone.xml") + ": HTTP 404"), p.toString());
            assertEquals(400, post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + site.url("/")
                    + "\", \"startFrom\": \"feed\"}").status());
        }
    }

    @Test
    void aCrawlRunningWhenThePeerStopsResumesWhenItStartsAgain() throws Exception {
        try (TestSite site = CrawlResumeTest.tree()) {
            String id;
            java.util.Set<String> indexedBefore = new java.util.HashSet<>();
            try (PeerNode node = start(dir, true)) {
                id = post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + site.url("/p0")
                        + "\", \"minDelayMs\": 50, \"depth\": 20}").json().get("id").asText();
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (site.pageRequests().size() < 8 && System.nanoTime() < deadline) LockSupport.parkNanos(10_000_000); // poll interval
            }
            try (org.peerdex.storage.PeerStorage s = org.peerdex.storage.PeerStorage.openLevelDb(dir,
                    new org.peerdex.protocol.ring.Partitions(4))) {
                s.metadata().scanAll(m -> indexedBefore.add(m.url()));
                assertEquals("running", new org.peerdex.actors.crawl.CrawlStore(s.store()).get(id).orElseThrow().state(),
                        "a crawl interrupted by the node's shutdown stays running");
            }
            assertTrue(indexedBefore.size() >= 7 && indexedBefore.size() < CrawlResumeTest.PAGES, indexedBefore.toString());
            try (PeerNode node = start(dir, true)) {
                JsonNode p = awaitEnd(node, id, Duration.ofSeconds(30));
                assertEquals("finished", p.get("state").asText());
                assertEquals(CrawlResumeTest.PAGES, node.context().storage().metadata().count());
                // pages the indexer wrote while the crawlers were already stopping are indexed but not counted
                long counted = p.get("indexed").asLong();
                assertTrue(counted > CrawlResumeTest.PAGES - indexedBefore.size() && counted <= CrawlResumeTest.PAGES,
                        "counters carried over: " + p);
            }
            for (String url : indexedBefore) assertEquals(1, site.count(url.substring(site.base().length())), url);
        }
    }

    @Test
    void postgresDocsCrawledWithinMaxPagesAreSearchable() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(POSTGRES_DOCS),
                "PostgreSQL docs not installed (" + POSTGRES_DOCS + "; scripts/install-test-deps.sh)");
        try (TestSite site = serve(p -> {
            try {
                Path f = POSTGRES_DOCS.resolve(p.substring(1)).normalize();
                return f.startsWith(POSTGRES_DOCS) && Files.isRegularFile(f) ? Files.readAllBytes(f) : null;
            } catch (IOException e) {
                return null;
            }
        }); PeerNode node = start(dir, true)) {
            String id = post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + site.url("/index.html")
                    + "\", \"minDelayMs\": 0, \"maxPages\": 60, \"depth\": 10}").json().get("id").asText();
            JsonNode p = awaitEnd(node, id, Duration.ofSeconds(60));
            assertEquals("finished", p.get("state").asText());
            assertTrue(p.get("indexed").asLong() >= 55, p.toString());
            JsonNode s = TestPeers.get(node.baseUrl() + "/api/search?q=" + q("postgresql") + "&resource=local").json();
            assertTrue(s.get("total").asLong() >= 10, s.toString());
            assertFalse(s.get("results").isEmpty());
        }
    }
}
