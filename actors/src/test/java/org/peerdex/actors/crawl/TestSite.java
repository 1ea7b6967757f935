package org.peerdex.actors.crawl;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.zip.GZIPOutputStream;

/**
 * A real HTTP server on 127.0.0.1 (port chosen by the OS) serving pages a test defines, and recording every request
 * (path with query, arrival time) so tests can count fetches and measure politeness.
 */
public final class TestSite implements AutoCloseable {
    /** A response: status, headers, body; {@code count} is how many times this path was asked before (0-based). */
    public record Reply(int status, Map<String, String> headers, byte[] body, boolean gzip) {
        public static Reply html(String html) {
            return new Reply(200, Map.of("Content-Type", "text/html; charset=utf-8"),
                    html.getBytes(StandardCharsets.UTF_8), false);
        }

        public static Reply of(int status, Map<String, String> headers, String body) {
            return new Reply(status, headers, body.getBytes(StandardCharsets.UTF_8), false);
        }
    }

    /** One request the server saw. */
    public record Request(String path, long atNanos) {}

    private final HttpServer server;
    private final Map<String, Function<Integer, Reply>> pages = new ConcurrentHashMap<>();
    private final Map<String, Integer> counts = new ConcurrentHashMap<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private volatile Function<String, Reply> fallback = p -> null;
    private volatile long responseDelayMs;

    public TestSite() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(Executors.newFixedThreadPool(8, r -> {
            Thread t = new Thread(r, "test-site");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", this::handle);
        server.start();
    }

    public String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public String url(String path) {
        return base() + path;
    }

    public TestSite page(String path, String html) {
        pages.put(path, n -> Reply.html(html));
        return this;
    }

    public TestSite page(String path, Function<Integer, Reply> reply) {
        pages.put(path, reply);
        return this;
    }

    /** Answers paths without a page of their own (for generated sites and traps); null means 404. */
    public TestSite fallback(Function<String, Reply> f) {
        fallback = f;
        return this;
    }

    /** Every response waits this long first (a slow server, so a crawl is still running when a test acts). */
    public TestSite responseDelay(long ms) {
        responseDelayMs = ms;
        return this;
    }

    public int count(String path) {
        return counts.getOrDefault(path, 0);
    }

    public List<Request> requests() {
        return new ArrayList<>(requests);
    }

    /** Requests for pages (robots.txt and sitemaps left out). */
    public List<Request> pageRequests() {
        return requests.stream().filter(r -> !r.path().equals("/robots.txt") && !r.path().contains("sitemap")).toList();
    }

    public Map<String, Integer> counts() {
        return Map.copyOf(counts);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getRawPath()
                    + (ex.getRequestURI().getRawQuery() == null ? "" : "?" + ex.getRequestURI().getRawQuery());
            requests.add(new Request(path, System.nanoTime()));
            int n = counts.merge(path, 1, Integer::sum) - 1;
            if (responseDelayMs > 0) {
                try {
                    Thread.sleep(responseDelayMs); // the server is slow on purpose; tests never sleep to wait
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            Function<Integer, Reply> page = pages.get(path);
            Reply r = page != null ? page.apply(n) : fallback.apply(path);
            if (r == null) r = Reply.of(404, Map.of("Content-Type", "text/plain"), "not found");
            r.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
            byte[] body = r.body();
            if (r.gzip()) {
                java.io.ByteArrayOutputStream bo = new java.io.ByteArrayOutputStream();
                try (GZIPOutputStream g = new GZIPOutputStream(bo)) {
                    g.write(body);
                }
                body = bo.toByteArray();
                ex.getResponseHeaders().add("Content-Encoding", "gzip");
            }
            if (r.status() >= 300 && r.status() < 400 || r.status() == 204) {
                ex.sendResponseHeaders(r.status(), -1);
                return;
            }
            ex.sendResponseHeaders(r.status(), body.length == 0 ? -1 : body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            } catch (IOException e) {
                // the crawler hung up (body cap): that is its right
            }
        }
    }

    /** Serves a body of {@code bytes} generated on the fly (never held in memory) at {@code path}. */
    public TestSite hugePage(String path, long bytes) {
        server.createContext(path, ex -> {
            try (ex) {
                requests.add(new Request(path, System.nanoTime()));
                counts.merge(path, 1, Integer::sum);
                ex.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
                ex.sendResponseHeaders(200, bytes);
                byte[] chunk = "<p>huge page filler words zebra</p>\n".repeat(2000).getBytes(StandardCharsets.UTF_8);
                try (OutputStream out = ex.getResponseBody()) {
                    byte[] head = "<html><head><title>Huge page</title></head><body>".getBytes(StandardCharsets.UTF_8);
                    out.write(head);
                    long sent = head.length;
                    while (sent < bytes) {
                        int n = (int) Math.min(chunk.length, bytes - sent);
                        out.write(chunk, 0, n);
                        sent += n;
                    }
                } catch (IOException e) {
                    // cut off by the crawler's body cap
                }
            }
        });
        return this;
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
