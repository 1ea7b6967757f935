package org.peerdex.node.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.peerdex.node.http.Json;

/**
 * Thousands of malformed requests over real HTTP against a real peer with the Tarn corpus: every answer is a JSON
 * error with a 4xx status (or a plain success), never a 5xx, a hung connection or a dead peer. Seeded: request i of
 * seed s is always the same ({@code -Dpeerdex.fuzz.seed}, {@code -Dpeerdex.fuzz.requests}).
 */
@Tag("reliability")
class HttpFuzzTest {
    static final long SEED = Long.getLong("peerdex.fuzz.seed", 7L);
    static final int REQUESTS = Integer.getInteger("peerdex.fuzz.requests", 3000);
    static final AtomicInteger KNOWN_UPSTREAM = new AtomicInteger();
    static ReliabilityPeer peer;

    @BeforeAll
    static void start() throws Exception {
        // as in reference.conf, the request timeout is shorter than the idle timeout (else a slow answer is cut)
        peer = new ReliabilityPeer("pekko.http.server.request-timeout = 10 s\n"
                + "pekko.http.server.idle-timeout = 12 s\n");
    }

    @AfterAll
    static void stop() throws Exception {
        if (peer != null) peer.close();
    }

    @Test
    void malformedRequestsGetJsonClientErrorsAndThePeerKeepsServing() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        Map<Integer, AtomicInteger> byStatus = new ConcurrentHashMap<>();
        List<String> violations = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            int n = i;
            futures.add(pool.submit(() -> {
                FuzzRequest r = FuzzRequest.generate(new Random(SEED * 1_000_003L + n));
                try {
                    RawHttp.Response resp = RawHttp.exchange(peer.port(), r.bytes(), 15_000);
                    byStatus.computeIfAbsent(resp.status(), k -> new AtomicInteger()).incrementAndGet();
                    String problem = problem(r, resp);
                    if (problem != null) violations.add("#" + n + " " + problem + " <- " + r.describe());
                } catch (IOException e) {
                    byStatus.computeIfAbsent(-2, k -> new AtomicInteger()).incrementAndGet();
                    violations.add("#" + n + " " + e + " <- " + r.describe());
                }
            }));
        }
        for (Future<?> f : futures) f.get(5, TimeUnit.MINUTES);
        pool.shutdown();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        System.out.printf("http fuzz: seed %d, %d requests in %d ms, by status %s, violations %d, known upstream "
                + "(HTTP/1.0 chunked -> 500) %d%n", SEED, REQUESTS, ms, new TreeMap<>(byStatus), violations.size(),
                KNOWN_UPSTREAM.get());
        violations.stream().limit(30).forEach(v -> System.out.println("  " + v));
        assertTrue(violations.isEmpty(), violations.size() + " bad answers, first: "
                + violations.subList(0, Math.min(10, violations.size())));
        assertStillServing(peer.port());
    }

    /** Why this answer is wrong, or null. */
    static String problem(FuzzRequest r, RawHttp.Response resp) {
        if (resp.timedOut() && resp.status() < 0) return "no answer within 15 s (hung)";
        // a client that announced more body than it sent is waiting for its own bytes: the idle timeout closes it
        if (resp.status() < 0 && r.truncated()) return null;
        if (resp.status() < 0) return "connection closed without an answer";
        if (resp.status() < 200 && !r.truncated()) return "only an interim " + resp.status() + " answer";
        // 501 (unknown method) and 505 (unknown HTTP version) are what RFC 9110 prescribes for those; any other
        // 5xx is the server's fault
        boolean rfcAnswer = resp.status() == 501 || resp.status() == 505;
        // Pekko HTTP 1.3.0 fails its own request stage on HTTP/1.0 with a chunked body and answers a bare 500
        // before any route runs (docs/reliability.md, known upstream issue); counted apart, the peer keeps serving
        if (resp.status() == 500 && r.summary().contains(" HTTP/1.0 ") && r.summary().contains("Transfer-Encoding: chunked")) {
            KNOWN_UPSTREAM.incrementAndGet();
            return null;
        }
        if (resp.status() >= 500 && !rfcAnswer) return "server error " + resp.status() + " " + clip(resp.bodyText());
        if (resp.status() >= 400 && !r.head()) {
            // errors come in the caller's format: an RSS feed to feed readers, Solr's XML error with wt=xml
            String[] line = r.summary().split(" ", 3);
            String target = line.length > 1 ? line[1] : "";
            String path = target.contains("?") ? target.substring(0, target.indexOf('?')) : target;
            if (resp.contentType().startsWith("application/xml")) {
                String body = resp.bodyText();
                boolean rss = path.equals("/yacysearch.rss") && body.contains("<rss ") && body.contains("<description>");
                boolean solr = path.startsWith("/solr") && body.contains("<lst name=\"error\">");
                return rss || solr ? null : resp.status() + " with an XML body that is no error of its path: " + clip(body);
            }
            if (!resp.contentType().startsWith("application/json")) {
                return resp.status() + " with content type '" + resp.contentType() + "': " + clip(resp.bodyText());
            }
            try {
                JsonNode j = Json.MAPPER.readTree(resp.body());
                // Peerdex's {"error": "..."} or, under /solr/, Solr's own {"error": {"msg": "...", "code": ...}}
                boolean solrShape = j != null && j.path("error").path("msg").isTextual() && j.path("error").path("code").isInt();
                if (j == null || !(j.path("error").isTextual() || solrShape)) return resp.status() + " without error field: " + clip(resp.bodyText());
            } catch (IOException e) {
                return resp.status() + " body is not JSON: " + clip(resp.bodyText());
            }
        }
        return null;
    }

    static String clip(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    @Test
    void manyConcurrentConnectionsAreAllAnswered() throws Exception {
        int clients = 300;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> answers = new ArrayList<>();
        String[] words = {"tarn", "compaction", "backup", "index", "query", "configuration"};
        for (int i = 0; i < clients; i++) {
            String q = words[i % words.length];
            answers.add(pool.submit(() -> {
                go.await();
                RawHttp.Response r = RawHttp.exchange(peer.port(), ("GET /api/search?q=" + q + " HTTP/1.1\r\n"
                        + "Host: 127.0.0.1\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII), 30_000);
                return r.status();
            }));
        }
        long t0 = System.nanoTime();
        go.countDown();
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (Future<Integer> f : answers) statuses.merge(f.get(60, TimeUnit.SECONDS), 1, Integer::sum);
        pool.shutdown();
        System.out.printf("http fuzz: %d concurrent connections answered in %d ms: %s%n", clients,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), statuses);
        assertEquals(Map.of(200, clients), statuses);
        assertStillServing(peer.port());
    }

    @Test
    void oversizedBodiesHeadersAndUrisGetTheirOwnStatus() throws Exception {
        byte[] big = new byte[3 << 20];
        java.util.Arrays.fill(big, (byte) 'a');
        RawHttp.Response body = RawHttp.exchange(peer.port(), concat(("PUT /api/ranking HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nConnection: close\r\nContent-Length: " + big.length
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII), big), 15_000);
        assertEquals(413, body.status(), body.bodyText());
        assertTrue(body.bodyText().contains("error"), body.bodyText());
        RawHttp.Response header = RawHttp.exchange(peer.port(), ("GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
                + "b".repeat(20_000) + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII), 15_000);
        assertEquals(431, header.status(), header.bodyText());
        assertEquals("application/json", header.contentType());
        RawHttp.Response uri = RawHttp.exchange(peer.port(), ("GET /api/search?q=" + "u".repeat(10_000)
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII), 15_000);
        assertEquals(414, uri.status(), uri.bodyText());
        assertEquals("application/json", uri.contentType());
    }

    @Test
    void aCatastrophicUrlMaskIsCutOffNotRunForever() throws Exception {
        // (.*.*)*# backtracks exponentially on every URL that has no '#'
        long t0 = System.nanoTime();
        RawHttp.Response r = RawHttp.exchange(peer.port(), ("GET /yacysearch.json?query=compaction&urlmaskfilter="
                + "((.)%2B)%2B%23 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII),
                15_000);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        System.out.printf("http fuzz: catastrophic urlmaskfilter answered %d in %d ms%n", r.status(), ms);
        assertTrue(r.status() == 200 || r.status() == 400, r.status() + " " + r.bodyText());
        assertTrue(ms < 10_000, "took " + ms + " ms");
        assertStillServing(peer.port());
    }

    static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(a.length + b.length);
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }

    /** A plain search and the status page still answer, with results from the corpus. */
    static void assertStillServing(int port) throws IOException {
        RawHttp.Response s = RawHttp.exchange(port, ("GET /api/search?q=compaction HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII), 10_000);
        assertEquals(200, s.status(), s.bodyText());
        assertTrue(Json.MAPPER.readTree(s.body()).path("results").size() > 0, s.bodyText());
        RawHttp.Response st = RawHttp.exchange(port, ("GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII), 10_000);
        assertEquals(200, st.status(), st.bodyText());
    }
}
