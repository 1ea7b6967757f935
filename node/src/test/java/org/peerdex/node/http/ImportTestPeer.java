package org.peerdex.node.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.peerdex.node.PeerNode;

/**
 * A real peer (LevelDB in a temp dir, HTTP and cluster on port 0, importers allowed to reach loopback) and a
 * site on 127.0.0.1 that serves the committed import fixtures (feeds, OAI-PMH pages, wiki dumps, ...) with
 * "PORT" replaced by its own port. Tests add handlers with {@link #serve}.
 */
final class ImportTestPeer implements AutoCloseable {
    final Path dataDir;
    PeerNode node;
    private final com.typesafe.config.Config config;
    final HttpServer site;
    final String siteBase;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final Map<String, Function<HttpExchange, Reply>> routes = new ConcurrentHashMap<>();
    final List<String> requests = java.util.Collections.synchronizedList(new ArrayList<>());
    /** Every request with when it arrived and when its answer was sent (System.nanoTime). */
    final List<Timed> timed = java.util.Collections.synchronizedList(new ArrayList<>());

    record Timed(String request, long startNanos, long endNanos) {}

    /** What a site handler answers. */
    record Reply(int status, String contentType, byte[] body, Map<String, String> headers) {
        static Reply ok(String contentType, byte[] body) {
            return new Reply(200, contentType, body, Map.of());
        }
    }

    ImportTestPeer(String moreConfig) throws IOException {
        dataDir = Files.createTempDirectory("peerdex-import-test");
        site = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        site.createContext("/", ex -> {
            long start = System.nanoTime();
            try {
                String p = ex.getRequestURI().getPath();
                requests.add(ex.getRequestMethod() + " " + ex.getRequestURI());
                Function<HttpExchange, Reply> h = routes.get(p);
                Reply r = h == null ? new Reply(404, "text/plain", "not found".getBytes(StandardCharsets.UTF_8), Map.of())
                        : h.apply(ex);
                r.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
                ex.getResponseHeaders().add("Content-Type", r.contentType());
                ex.sendResponseHeaders(r.status(), r.body().length == 0 ? -1 : r.body().length);
                if (r.body().length > 0) ex.getResponseBody().write(r.body());
            } finally {
                ex.close();
                timed.add(new Timed(ex.getRequestMethod() + " " + ex.getRequestURI(), start, System.nanoTime()));
            }
        });
        site.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "import-test-site");
            t.setDaemon(true);
            return t;
        }));
        site.start();
        siteBase = "http://127.0.0.1:" + site.getAddress().getPort();
        config = ConfigFactory.parseString(
                "peerdex.data-dir = \"" + dataDir.toString().replace("\\", "/") + "\"\n"
                        + "peerdex.http.port = 0\npeerdex.cluster.port = 0\npeerdex.importer.allow-loopback = on\n"
                        + "peerdex.crawler.allow-loopback = on\n"
                        + "peerdex.importer.flush-every = 2\n" + moreConfig)
                .withFallback(ConfigFactory.load());
        node = PeerNode.start(config);
    }

    /** Stops the peer (as SIGTERM does) and starts it again on the same data directory. */
    void restart() {
        node.close();
        node = PeerNode.start(config);
    }

    /** A committed fixture from /import/, with PORT replaced by the site's port. */
    byte[] fixture(String name) {
        try (InputStream in = ImportTestPeer.class.getResourceAsStream("/import/" + name)) {
            if (in == null) throw new IllegalArgumentException("no fixture " + name);
            String s = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return s.replace("PORT", String.valueOf(site.getAddress().getPort())).getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    void serve(String path, String contentType, byte[] body) {
        routes.put(path, ex -> Reply.ok(contentType, body));
    }

    void serve(String path, Function<HttpExchange, Reply> handler) {
        routes.put(path, handler);
    }

    String base() {
        return node.baseUrl();
    }

    HttpResponse<String> send(String method, String path, String json) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base() + path)).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(20))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Starts an import and returns its id (asserting 202). */
    String startImport(String kind, Map<String, Object> body) throws IOException, InterruptedException {
        HttpResponse<String> r = send("POST", "/api/import/" + kind, Json.write(body));
        if (r.statusCode() != 202) throw new AssertionError("import " + kind + " answered " + r.statusCode() + ": " + r.body());
        return Json.MAPPER.readTree(r.body()).get("id").asText();
    }

    JsonNode progress(String id) throws IOException, InterruptedException {
        HttpResponse<String> r = send("GET", "/api/import/" + id, null);
        if (r.statusCode() != 200) throw new AssertionError("progress " + id + " answered " + r.statusCode() + ": " + r.body());
        return Json.MAPPER.readTree(r.body());
    }

    /** Polls the import until it is no longer running (deadline 30 s) and returns its final progress. */
    JsonNode awaitEnd(String id) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            JsonNode p = progress(id);
            if (!p.get("state").asText().equals("running")) return p;
            if (System.nanoTime() > deadline) throw new AssertionError("import still running: " + p);
            Thread.onSpinWait();
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
        }
    }

    JsonNode search(String q) throws IOException, InterruptedException {
        HttpResponse<String> r = send("GET", "/api/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8)
                + "&resource=local&count=20", null);
        if (r.statusCode() != 200) throw new AssertionError("search " + q + " answered " + r.statusCode() + ": " + r.body());
        return Json.MAPPER.readTree(r.body());
    }

    List<String> urls(String q) throws IOException, InterruptedException {
        List<String> out = new ArrayList<>();
        search(q).get("results").forEach(r -> out.add(r.get("url").asText()));
        return out;
    }

    @Override
    public void close() throws IOException {
        try {
            node.close();
        } finally {
            site.stop(0);
            try (Stream<Path> s = Files.walk(dataDir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
