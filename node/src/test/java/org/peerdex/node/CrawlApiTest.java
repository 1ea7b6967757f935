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
            Thread.onSpinWait();
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
            while (site.pageRequests().size() < 3 && System.nanoTime() < deadline) Thread.onSpinWait();
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
