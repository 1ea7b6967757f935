package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The indexing proxy with a real HTTP client configured to use it: pages pass through unchanged, and only those
 * YaCy's safeguards allow are indexed.
 */
class ProxyIndexingTest {
    static ImportTestPeer peer;
    static String proxyId;
    static HttpClient browser;

    @BeforeAll
    static void start() throws Exception {
        peer = new ImportTestPeer("");
        page("/p/public.html", "Public page", "the auroch migration table", Map.of());
        page("/p/search.html", "Search results", "queryonlyword results", Map.of());
        page("/p/private.html", "Your account", "privatecachedword balance", Map.of("Cache-Control", "private, max-age=0"));
        page("/p/nostore.html", "Statement", "nostoreword statement", Map.of("Cache-Control", "no-store"));
        page("/p/setcookie.html", "Welcome back", "setcookieword greeting", Map.of("Set-Cookie", "session=abc; HttpOnly"));
        page("/p/authorized.html", "Intranet", "authorizationword memo", Map.of());
        page("/p/cookie.html", "Cart", "cookieword cart", Map.of());
        page("/p/form.html", "Form", "postedword confirmation", Map.of());
        peer.serve("/p/partial.html", ex -> new ImportTestPeer.Reply(206, "text/html",
                "<html><title>Part</title><body>partialword</body></html>".getBytes(StandardCharsets.UTF_8),
                Map.of("Content-Range", "bytes 0-50/500")));
        peer.serve("/p/missing.html", ex -> new ImportTestPeer.Reply(404, "text/html",
                "<html><title>Missing</title><body>notfoundword</body></html>".getBytes(StandardCharsets.UTF_8), Map.of()));
        HttpResponse<String> r = peer.send("POST", "/api/import/proxy", "{\"port\": 0}");
        assertEquals(202, r.statusCode(), r.body());
        JsonNode started = Json.MAPPER.readTree(r.body());
        proxyId = started.get("id").asText();
        int port = started.get("port").asInt();
        assertTrue(port > 0, r.body());
        browser = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port)))
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    static void page(String path, String title, String body, Map<String, String> headers) {
        byte[] html = ("<!doctype html><html lang=\"en\"><head><title>" + title + "</title></head><body><p>" + body
                + "</p></body></html>").getBytes(StandardCharsets.UTF_8);
        peer.serve(path, ex -> new ImportTestPeer.Reply(200, "text/html; charset=utf-8", html, headers));
    }

    @AfterAll
    static void stop() throws Exception {
        if (peer != null) peer.close();
    }

    static HttpResponse<String> view(HttpRequest.Builder b) throws Exception {
        return browser.send(b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpRequest.Builder at(String path) {
        return HttpRequest.newBuilder(URI.create(peer.siteBase + path));
    }

    /** Polls the proxy job until it has seen {@code n} pages (imported + skipped + errors). */
    static JsonNode awaitSeen(long n) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            JsonNode p = peer.progress(proxyId);
            long seen = p.get("imported").asLong() + p.get("skipped").asLong() + p.get("errors").asLong();
            if (seen >= n) return p;
            if (System.nanoTime() > deadline) throw new AssertionError("proxy saw " + seen + " pages: " + p);
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
        }
    }

    @Test
    void viewedPagesPassThroughAndOnlySafePagesAreIndexed() throws Exception {
        HttpResponse<String> pub = view(at("/p/public.html"));
        assertEquals(200, pub.statusCode());
        assertTrue(pub.body().contains("auroch migration"), "the page reaches the browser unchanged");
        assertEquals(200, view(at("/p/search.html?q=auroch")).statusCode());
        assertTrue(view(at("/p/private.html")).body().contains("privatecachedword"));
        view(at("/p/nostore.html"));
        HttpResponse<String> cookie = view(at("/p/setcookie.html"));
        assertTrue(cookie.headers().firstValue("set-cookie").isPresent(), "response headers pass through");
        view(at("/p/authorized.html").header("Authorization", "Basic dXNlcjpwYXNz"));
        view(at("/p/cookie.html").header("Cookie", "cart=7"));
        HttpResponse<String> posted = view(at("/p/form.html").POST(HttpRequest.BodyPublishers.ofString("a=1")));
        assertEquals(200, posted.statusCode());
        assertTrue(peer.requests.contains("POST /p/form.html"), "POST is forwarded: " + peer.requests);
        assertEquals(206, view(at("/p/partial.html")).statusCode());
        assertEquals(404, view(at("/p/missing.html")).statusCode());

        JsonNode p = awaitSeen(10);
        assertEquals(1, p.get("imported").asInt(), p.toString());
        assertEquals(9, p.get("skipped").asInt(), p.toString());
        assertEquals("running", p.get("state").asText());
        assertTrue(peer.urls("auroch").get(0).endsWith("/p/public.html"));
        for (String w : new String[] {"queryonlyword", "privatecachedword", "nostoreword", "setcookieword",
                "authorizationword", "cookieword", "postedword", "partialword", "notfoundword"}) {
            assertTrue(peer.urls(w).isEmpty(), w + " must not be indexed");
        }
        JsonNode d = p.get("details");
        for (String k : new String[] {"skipped.query", "skipped.cache-control", "skipped.set-cookie",
                "skipped.authorization", "skipped.cookie", "skipped.method", "skipped.status", "skipped.partial"}) {
            assertTrue(d.has(k), "no count " + k + ": " + d);
        }
    }

    @Test
    void theProxyRefusesDirectUseAndTunnels() throws Exception {
        int port = peer.progress(proxyId).get("details").get("port").asInt();
        HttpResponse<String> direct = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(400, direct.statusCode());
        assertTrue(direct.body().contains("configure it in the browser"), direct.body());
    }
}
