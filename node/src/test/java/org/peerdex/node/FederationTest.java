package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.peerdex.node.http.Json;

/**
 * Two real peers on 127.0.0.1 that are not one network: peer B has documents, peer A asks B's yacysearch.json,
 * yacysearch.rss and Solr select as three federated sources and merges what they return with its own index.
 * Misbehaving sources (one that never answers, one that answers garbage, one that answers 10 MB) are JDK
 * HttpServers on loopback.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FederationTest {
    private static final String SHARED = "http://shared.example/quokka-care";
    private Path dir;
    private PeerNode a;
    private PeerNode b;
    private HttpServer bad;
    private ExecutorService badThreads;
    private final CountDownLatch releaseHang = new CountDownLatch(1);
    private HttpServer internal;
    private final java.util.concurrent.atomic.AtomicInteger internalHits = new java.util.concurrent.atomic.AtomicInteger();

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("peerdex-federation-test");
        a = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("a")), Map.of("peerdex.network", "feda")));
        b = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("b")), Map.of("peerdex.network", "fedb")));
        index(a, "http://a.example/quokka-diet", "Quokka diet", "the quokka eats leaves and grasses at night");
        index(a, SHARED, "Quokka care", "how to care for a quokka in the wild");
        index(b, "http://b.example/quokka-island", "Quokka island", "the quokka lives on rottnest island");
        index(b, "http://b.example/quokka-smile", "Quokka smile", "why the quokka seems to smile at tourists");
        index(b, SHARED, "Quokka care (b)", "how to care for a quokka in the wild");
        bad = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        badThreads = Executors.newCachedThreadPool();
        bad.setExecutor(badThreads);
        bad.createContext("/hang", ex -> {
            try {
                releaseHang.await(30, TimeUnit.SECONDS); // never answers while the test looks
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.close();
        });
        bad.createContext("/garbage", ex -> {
            byte[] body = "<<<this is not json at all".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        bad.createContext("/huge", ex -> {
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, 0); // chunked: no Content-Length to refuse early, the cap must cut it
            byte[] chunk = new byte[64 * 1024];
            java.util.Arrays.fill(chunk, (byte) ' ');
            try (OutputStream out = ex.getResponseBody()) {
                out.write("{\"results\": [".getBytes(StandardCharsets.UTF_8));
                for (int i = 0; i < 160; i++) out.write(chunk); // 10 MiB
                out.write("]}".getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // the peer hung up once it had read its cap
            }
            ex.close();
        });
        // a service on another loopback address that no source names: a source's redirect must not reach it
        internal = HttpServer.create(new InetSocketAddress("127.0.0.2", 0), 0);
        internal.createContext("/", ex -> {
            internalHits.incrementAndGet();
            byte[] body = "{\"channels\":[{\"items\":[{\"link\":\"http://internal.example/x\",\"title\":\"quokka\"}]}]}"
                    .getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        internal.start();
        bad.createContext("/redirect", ex -> {
            ex.getResponseHeaders().add("Location", "http://127.0.0.2:" + internal.getAddress().getPort() + "/");
            ex.sendResponseHeaders(302, -1);
            ex.close();
        });
        bad.start();
    }

    @AfterAll
    void stop() throws Exception {
        releaseHang.countDown();
        if (bad != null) bad.stop(0);
        if (internal != null) internal.stop(0);
        if (badThreads != null) badThreads.shutdownNow();
        if (a != null) a.close();
        if (b != null) b.close();
    }

    private static void index(PeerNode n, String url, String title, String text) throws Exception {
        TestPeers.Reply r = TestPeers.send(HttpRequest.newBuilder(URI.create(n.baseUrl() + "/api/index/document"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        Json.write(Map.of("url", url, "title", title, "text", text)))).build());
        assertEquals(200, r.status(), r.json().toString());
    }

    private String badBase() {
        return "http://127.0.0.1:" + bad.getAddress().getPort();
    }

    private static Map<String, Object> source(String name, String kind, String url) {
        Map<String, Object> m = new HashMap<>();
        m.put("name", name);
        m.put("kind", kind);
        m.put("url", url);
        return m;
    }

    private List<Map<String, Object>> bSources() {
        String base = b.baseUrl();
        return List.of(
                source("b-json", "yacy-json", base + "/yacysearch.json?query={query}&maximumRecords={count}"),
                source("b-rss", "opensearch-rss", base + "/yacysearch.rss?query={query}&maximumRecords={count}"),
                source("b-solr", "solr", base + "/solr/select?q={query}&rows={count}&wt=json"));
    }

    private TestPeers.Reply putSources(List<Map<String, Object>> sources) throws Exception {
        return TestPeers.send(HttpRequest.newBuilder(URI.create(a.baseUrl() + "/api/federation"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(Map.of("sources", sources)))).build());
    }

    private static Map<String, JsonNode> bySource(JsonNode search) {
        Map<String, JsonNode> out = new HashMap<>();
        for (JsonNode s : search.get("network").get("sources")) out.put(s.get("name").asText(), s);
        return out;
    }

    @Test
    void aSearchMergesResultsOfThreeFederatedSourcesWithItsOwnMarkedByTheirSource() throws Exception {
        TestPeers.Reply put = putSources(bSources());
        assertEquals(200, put.status(), put.json().toString());
        assertEquals("stored", put.json().get("origin").asText());
        assertEquals(3, put.json().get("sources").size());

        JsonNode r = TestPeers.get(a.baseUrl() + "/api/search?q=quokka&count=20").json();
        Map<String, JsonNode> sources = bySource(r);
        for (String name : List.of("b-json", "b-rss", "b-solr")) {
            JsonNode s = sources.get(name);
            assertEquals("answered", s.get("status").asText(), r.toString());
            assertEquals(3, s.get("results").asInt(), name + " parsed B's three documents: " + s);
        }
        assertEquals("answered", sources.get("local").get("status").asText());
        Map<String, String> sourceOfUrl = new HashMap<>();
        for (JsonNode res : r.get("results")) {
            String prev = sourceOfUrl.put(res.get("url").asText(), res.get("source").asText());
            assertEquals(null, prev, "one result per URL: " + r);
        }
        assertEquals(4, sourceOfUrl.size(), "A's two plus B's two others, the shared one once: " + sourceOfUrl);
        assertEquals("local", sourceOfUrl.get("http://a.example/quokka-diet"));
        assertEquals("local", sourceOfUrl.get(SHARED), "our own copy wins over a federated one");
        Set<String> external = Set.of("b-json", "b-rss", "b-solr");
        assertTrue(external.contains(sourceOfUrl.get("http://b.example/quokka-island")), sourceOfUrl.toString());
        assertTrue(external.contains(sourceOfUrl.get("http://b.example/quokka-smile")), sourceOfUrl.toString());
        for (JsonNode res : r.get("results")) {
            // a federated result scores by its place in its source and the source's weight (docs/federation.md)
            if (external.contains(res.get("source").asText())) assertTrue(res.get("score").asDouble() > 0, res.toString());
            assertFalse(res.get("title").asText().isBlank(), res.toString());
            assertFalse(res.get("snippet").asText().isBlank(), res.toString());
        }

        // resource=local and federated=false keep to our own index
        for (String q : List.of("resource=local", "federated=false")) {
            JsonNode local = TestPeers.get(a.baseUrl() + "/api/search?q=quokka&count=20&" + q).json();
            assertEquals(2, local.get("results").size(), q + ": " + local);
            assertFalse(bySource(local).containsKey("b-json"), q);
        }
        // a request another peer sends while federating is not federated again (two peers cannot loop)
        JsonNode relayed = TestPeers.send(HttpRequest.newBuilder(URI.create(a.baseUrl() + "/api/search?q=quokka"))
                .header("X-Peerdex-Federation", "1").GET().build()).json();
        assertFalse(bySource(relayed).containsKey("b-json"), relayed.toString());

        // the stream sends B's results as result events marked with their source
        HttpResponse<String> sse = TestPeers.HTTP.send(HttpRequest.newBuilder(URI.create(a.baseUrl()
                + "/api/search/stream?q=quokka&count=20")).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        Set<String> streamed = new HashSet<>();
        for (String block : sse.body().split("\n\n")) {
            String event = "";
            String data = "";
            for (String line : block.split("\n")) {
                if (line.startsWith("event:")) event = line.substring(6).trim();
                if (line.startsWith("data:")) data = line.substring(5);
            }
            if (event.equals("result")) streamed.add(Json.MAPPER.readTree(data).get("source").asText());
        }
        assertTrue(streamed.contains("local"), streamed.toString());
        assertTrue(streamed.stream().anyMatch(external::contains), streamed.toString());
        assertTrue(sse.body().contains("event:done"), sse.body());
    }

    @Test
    void aSourceThatNeverAnswersTimesOutWithinItsBoundAndTheSearchStillAnswers() throws Exception {
        Map<String, Object> hang = source("hang", "yacy-json", badBase() + "/hang?q={query}");
        hang.put("timeout", "600ms");
        assertEquals(200, putSources(List.of(hang, bSources().get(0))).status());
        long t0 = System.nanoTime();
        JsonNode r = TestPeers.get(a.baseUrl() + "/api/search?q=quokka&count=20").json();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 4000, "answered in " + ms + " ms, long before the query's own 10 s bound");
        JsonNode h = bySource(r).get("hang");
        assertEquals("timedOut", h.get("status").asText(), r.toString());
        assertTrue(h.get("ms").asLong() >= 550 && h.get("ms").asLong() < 3000, h.toString());
        assertEquals("answered", bySource(r).get("b-json").get("status").asText());
        assertEquals(4, r.get("results").size(), r.toString());
    }

    @Test
    void aSourceAnsweringGarbageOrTenMegabytesIsRefusedWithAPerSourceError() throws Exception {
        Map<String, Object> huge = source("huge", "opensearch-json", badBase() + "/huge?q={query}");
        huge.put("timeout", "10s");
        assertEquals(200, putSources(List.of(source("garbage", "yacy-json", badBase() + "/garbage?q={query}"),
                huge, bSources().get(2))).status());
        JsonNode r = TestPeers.get(a.baseUrl() + "/api/search?q=quokka&count=20").json();
        Map<String, JsonNode> s = bySource(r);
        assertEquals("failed", s.get("garbage").get("status").asText(), r.toString());
        assertTrue(s.get("garbage").get("error").asText().contains("not YaCy JSON"), s.get("garbage").toString());
        assertEquals("failed", s.get("huge").get("status").asText(), r.toString());
        assertTrue(s.get("huge").get("error").asText().contains("larger than 1048576 bytes"), s.get("huge").toString());
        assertEquals("answered", s.get("b-solr").get("status").asText());
        assertEquals(4, r.get("results").size(), r.toString());
    }

    @Test
    void aSourceIsReachedOnItsOwnHostButItsRedirectToAnotherInternalHostIsRefused() throws Exception {
        // the source's host (127.0.0.1) is allowed because the admin named it; 127.0.0.2 is not, and this peer
        // does not allow loopback in general
        assertEquals(200, putSources(List.of(source("redirector", "yacy-json", badBase() + "/redirect?q={query}"),
                bSources().get(0))).status());
        JsonNode r = TestPeers.get(a.baseUrl() + "/api/search?q=quokka&count=20").json();
        JsonNode s = bySource(r).get("redirector");
        assertEquals("failed", s.get("status").asText(), r.toString());
        assertTrue(s.get("error").asText().contains("refused-address"), s.toString());
        assertEquals(0, internalHits.get(), "the unnamed internal service was asked");
        assertEquals("answered", bySource(r).get("b-json").get("status").asText(), "a named source still answers");
    }

    @Test
    void badSourceListsAreRefusedWithAClearError() throws Exception {
        assertEquals(400, putSources(List.of(source("x", "gopher", "http://127.0.0.1:1/?q={query}"))).status());
        assertEquals(400, putSources(List.of(source("x", "solr", "http://127.0.0.1:1/no-placeholder"))).status());
        assertEquals(400, putSources(List.of(source("local", "solr", "http://127.0.0.1:1/?q={query}"))).status());
        TestPeers.Reply twice = putSources(List.of(source("x", "solr", "http://127.0.0.1:1/?q={query}"),
                source("x", "solr", "http://127.0.0.1:2/?q={query}")));
        assertEquals(400, twice.status());
        assertTrue(twice.json().get("error").asText().contains("two sources are named x"), twice.json().toString());
        TestPeers.Reply crossOrigin = TestPeers.send(HttpRequest.newBuilder(URI.create(a.baseUrl() + "/api/federation"))
                .header("Content-Type", "application/json").header("Origin", "http://evil.example")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"sources\":[]}")).build());
        assertEquals(403, crossOrigin.status(), crossOrigin.json().toString());
    }

    @Test
    void sourcesFromTheConfigAreUsedAndTheAdminApiRefusesANonAdmin() throws Exception {
        String url = b.baseUrl() + "/yacysearch.json?query={query}&maximumRecords={count}";
        Map<String, Object> configured = new HashMap<>();
        configured.put("peerdex.network", "fedc");
        configured.put("peerdex.accounts.loopback-admin", false); // as if the client were not on this machine
        configured.put("peerdex.federation.sources", List.of(Map.of("name", "b", "kind", "yacy-json", "url", url,
                "timeout", "2s", "weight", 0.5)));
        try (PeerNode c = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("c")), configured))) {
            TestPeers.Reply get = TestPeers.get(c.baseUrl() + "/api/federation");
            assertEquals(403, get.status(), get.json().toString());
            TestPeers.Reply put = TestPeers.send(HttpRequest.newBuilder(URI.create(c.baseUrl() + "/api/federation"))
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString("{\"sources\":[]}")).build());
            assertEquals(403, put.status(), put.json().toString());
            JsonNode r = TestPeers.get(c.baseUrl() + "/api/search?q=quokka").json();
            List<String> from = new ArrayList<>();
            for (JsonNode res : r.get("results")) from.add(res.get("source").asText());
            assertEquals(List.of("b", "b", "b"), from, "c has no documents of its own: " + r);
        }
    }
}
