package org.peerdex.node.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.peerdex.node.http.Json;

/**
 * Per-client search limits over real HTTP: a heavy client gets 429 with Retry-After (faking X-Forwarded-For does
 * not help), a heavy global searcher is downgraded to local search, and each query's resources are bounded.
 */
@Tag("reliability")
class SearchLimitsTest {
    static ReliabilityPeer peer;

    @BeforeAll
    static void start() throws Exception {
        peer = new ReliabilityPeer(String.join("\n",
                "peerdex.http.search-rate-limit.exempt-loopback = off",
                "peerdex.http.search-rate-limit.per-second = 5",
                "peerdex.http.search-rate-limit.burst = 10",
                "peerdex.http.search-rate-limit.global-per-second = 0.5",
                "peerdex.http.search-rate-limit.global-burst = 3", ""));
    }

    @AfterAll
    static void stop() throws Exception {
        if (peer != null) peer.close();
    }

    static RawHttp.Response get(String target, String... headers) throws Exception {
        return getFrom("127.0.0.1", target, headers);
    }

    /** Each test is its own client: its own loopback address, so its own buckets. */
    static RawHttp.Response getFrom(String client, String target, String... headers) throws Exception {
        StringBuilder b = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
        for (String h : headers) b.append(h).append("\r\n");
        return RawHttp.exchange(client, peer.port(), b.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII), 10_000);
    }

    @Test
    void aHeavyClientGets429WithRetryAfterAndFakingForwardedForDoesNotHelp() throws Exception {
        int ok = 0;
        int limited = 0;
        RawHttp.Response first429 = null;
        for (int i = 0; i < 40; i++) {
            // a fresh X-Forwarded-For each time: the limit is on the socket's address, not on what the client says
            RawHttp.Response r = getFrom("127.0.0.2", "/api/search?q=compaction&resource=local", "X-Forwarded-For: 10.0.0." + i);
            if (r.status() == 200) ok++;
            else if (r.status() == 429) {
                limited++;
                if (first429 == null) first429 = r;
            } else throw new AssertionError("unexpected " + r.status() + ": " + r.bodyText());
        }
        System.out.printf("search rate limit: 40 searches at once (burst 10, 5/s): %d answered, %d got 429%n", ok, limited);
        assertTrue(ok >= 10 && ok < 40, "burst of 10 answered, the rest limited: " + ok);
        assertTrue(limited > 0);
        assertTrue(Integer.parseInt(first429.headers().get("retry-after")) >= 1, first429.headers().toString());
        assertTrue(Json.MAPPER.readTree(first429.body()).path("error").asText().contains("too many searches"));
        JsonNode status = Json.MAPPER.readTree(get("/api/status").body());
        assertTrue(status.path("searchRateLimit").path("limited").asLong() >= limited, status.toString());
    }

    @Test
    void aHeavyGlobalSearcherIsDowngradedToLocalSearch() throws Exception {
        int downgraded = 0;
        for (int i = 0; i < 6; i++) {
            RawHttp.Response r = getFrom("127.0.0.3", "/api/search?q=compaction&resource=global");
            assertEquals(200, r.status(), r.bodyText());
            assertTrue(Json.MAPPER.readTree(r.body()).path("results").size() > 0, "a downgraded search still answers");
            if ("local".equals(r.headers().get("x-peerdex-downgraded"))) downgraded++;
        }
        System.out.printf("search rate limit: 6 global searches (global burst 3): %d downgraded to local%n", downgraded);
        assertTrue(downgraded >= 2 && downgraded <= 3, "global burst 3 of 6: " + downgraded);
    }

    @Test
    void queriesAreBoundedInTermsCountAndOffset() throws Exception {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 40; i++) many.append(i == 0 ? "" : "+").append("w").append(i);
        RawHttp.Response terms = getFrom("127.0.0.4", "/api/search?q=" + many + "&resource=local");
        assertEquals(400, terms.status(), terms.bodyText());
        assertTrue(terms.bodyText().contains("at most 32"), terms.bodyText());
        assertEquals(400, getFrom("127.0.0.4", "/api/search?q=tarn&count=101&resource=local").status());
        assertEquals(400, getFrom("127.0.0.4", "/api/search?q=tarn&offset=1001&resource=local").status());
        assertEquals(400, getFrom("127.0.0.4", "/api/search?q=" + "x".repeat(600) + "&resource=local").status());
    }

    @Test
    void theAdminGuardIgnoresForwardedForHeaders() throws Exception {
        // from loopback but claiming to be 10.1.2.3: the guard goes by the socket, so this is still local admin
        RawHttp.Response r = RawHttp.exchange(peer.port(), ("PUT /api/ranking HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "X-Forwarded-For: 10.1.2.3\r\nX-Real-Ip: 10.1.2.3\r\nContent-Type: application/json\r\n"
                + "Content-Length: 2\r\nConnection: close\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII), 10_000);
        assertNotEquals(403, r.status(), r.bodyText());
        assertEquals(200, r.status(), r.bodyText());
    }

}
