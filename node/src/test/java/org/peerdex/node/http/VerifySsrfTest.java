package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.ConfigFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.search.PageIndexer;
import org.peerdex.node.PeerNode;

/**
 * verify=true on the public search API must not turn the peer into a proxy for a searcher: result URLs come from
 * other peers, so one may point at a service on the peer's own loopback. A real peer that may not reach loopback
 * (allow-loopback off; 127.0.0.2 stands for an outside host through allow-hosts) answers such results unverified,
 * and the internal service, which would have answered with a secret, is never asked.
 */
class VerifySsrfTest {
    static final String SECRET = "INTERNALSECRET7731";

    @TempDir
    Path dir;
    HttpServer internal;
    HttpServer outside;
    PeerNode node;
    final AtomicInteger internalHits = new AtomicInteger();
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        internal = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        internal.createContext("/", ex -> {
            internalHits.incrementAndGet();
            byte[] b = ("<html><body><p>ledger ledger " + SECRET + "</p></body></html>").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        internal.start();
        outside = HttpServer.create(new InetSocketAddress("127.0.0.2", 0), 0);
        outside.createContext("/", ex -> {
            ex.getResponseHeaders().add("Location", internalUrl("/moved-here"));
            ex.sendResponseHeaders(302, -1);
            ex.close();
        });
        outside.start();
        node = PeerNode.start(ConfigFactory.parseString(
                "peerdex.data-dir = \"" + dir.toString().replace("\\", "/") + "\"\n"
                        + "peerdex.http.port = 0\npeerdex.cluster.port = 0\n"
                        + "peerdex.crawler.allow-loopback = off\n"
                        + "peerdex.crawler.allow-hosts = [\"127.0.0.2\"]\n")
                .withFallback(ConfigFactory.load()));
        // as if learned from another peer: the index holds these URLs, the crawler never fetched them
        var storage = node.context().storage();
        PageIndexer.index(storage, internalUrl("/admin"),
                "<html><head><title>Ledger one</title></head><body><p>ledger notes</p></body></html>", 0, List.of());
        PageIndexer.index(storage, "http://127.0.0.2:" + outside.getAddress().getPort() + "/page",
                "<html><head><title>Ledger two</title></head><body><p>ledger archive</p></body></html>", 0, List.of());
        storage.writer().flush();
    }

    String internalUrl(String path) {
        return "http://127.0.0.1:" + internal.getAddress().getPort() + path;
    }

    @AfterEach
    void stop() {
        if (node != null) node.close();
        internal.stop(0);
        outside.stop(0);
    }

    @Test
    void verifyNeverFetchesAnAddressTheGuardRefusesNorFollowsARedirectIntoOne() throws Exception {
        for (String path : List.of("/api/search?q=ledger&verify=true&resource=local",
                "/yacysearch.json?query=ledger&verify=true")) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(node.baseUrl() + path)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            System.out.println(path + " -> " + r.statusCode() + " " + r.body());
            assertEquals(200, r.statusCode());
            assertEquals(0, internalHits.get(), "the internal service was asked " + internalHits.get() + " times");
            assertFalse(r.body().contains(SECRET), "the internal service's text reached the searcher");
        }
        JsonNode res = Json.MAPPER.readTree(http.send(HttpRequest.newBuilder(URI.create(node.baseUrl()
                        + "/api/search?q=ledger&verify=true&resource=local")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body()).get("results");
        List<String> flags = new ArrayList<>();
        for (JsonNode x : res) flags.add(x.path("verification").asText());
        assertEquals(List.of("unverified", "unverified"), flags, res.toString());
        assertTrue(res.get(0).get("snippet").asText().toLowerCase().contains("ledger"), "the stored text's snippet");
    }
}
