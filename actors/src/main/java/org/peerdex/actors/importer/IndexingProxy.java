package org.peerdex.actors.importer;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * An HTTP proxy on 127.0.0.1 for a browser: it forwards every request (plain http; HTTPS CONNECT tunnels are
 * refused, their pages could not be read anyway) and indexes what the user viewed when {@link ProxySafeguards}
 * allow it and the page's address is one the importers may index ({@link FetchPolicy}: no private ranges
 * outside intranet mode). The page is answered first and indexed after, on the proxy's own threads.
 */
public final class IndexingProxy {
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-authenticate",
            "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host",
            "content-length", "expect", "date", "from", "via", "warning");
    private final HttpServer server;
    private final ExecutorService threads;
    private final HttpClient client;
    private final DocumentExtractor extractor;
    private final FetchPolicy indexPolicy;
    private final boolean allowQuery;
    private final long maxBytes;
    private final CountDownLatch attached = new CountDownLatch(1);
    private volatile ImportJob.Context ctx;

    private IndexingProxy(HttpServer server, ExecutorService threads, DocumentExtractor extractor,
                          FetchPolicy indexPolicy, boolean allowQuery, long maxBytes, Duration timeout) {
        this.server = server;
        this.threads = threads;
        this.extractor = extractor;
        this.indexPolicy = indexPolicy;
        this.allowQuery = allowQuery;
        this.maxBytes = maxBytes;
        this.client = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER)
                .proxy(HttpClient.Builder.NO_PROXY).build();
    }

    /** Binds the proxy on 127.0.0.1:{@code port} (0 picks one); it forwards at once and indexes once attached. */
    public static IndexingProxy bind(int port, DocumentExtractor extractor, FetchPolicy indexPolicy, boolean allowQuery,
                                     long maxBytes, Duration timeout) throws IOException {
        // without TCP_NODELAY the JDK server's separate header and body writes meet delayed ACKs: ~40 ms a page
        if (System.getProperty("sun.net.httpserver.nodelay") == null) System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        ExecutorService threads = Executors.newFixedThreadPool(8, r -> {
            Thread t = new Thread(r, "peerdex-proxy");
            t.setDaemon(true);
            return t;
        });
        IndexingProxy proxy = new IndexingProxy(server, threads, extractor, indexPolicy, allowQuery, maxBytes, timeout);
        server.createContext("/", proxy::handle);
        server.setExecutor(threads);
        server.start();
        return proxy;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** The import that runs while the proxy serves: it counts the indexed pages and stops the proxy when stopped. */
    public ImportSource source() {
        return c -> {
            ctx = c;
            c.detail("port", port());
            attached.countDown();
            try {
                while (!c.stopped()) LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            } finally {
                close();
            }
        };
    }

    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            URI uri = ex.getRequestURI();
            String method = ex.getRequestMethod().toUpperCase(Locale.ROOT);
            if (method.equals("CONNECT")) {
                reply(ex, 405, "HTTPS tunnels are not supported by the indexing proxy");
                return;
            }
            if (!uri.isAbsolute() || !"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
                reply(ex, 400, "this is an HTTP proxy: configure it in the browser, do not open it directly");
                return;
            }
            HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60));
            for (Map.Entry<String, List<String>> h : ex.getRequestHeaders().entrySet()) {
                if (h.getKey() == null || HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) continue;
                for (String v : h.getValue()) b.header(h.getKey(), v);
            }
            byte[] requestBody = ex.getRequestBody().readAllBytes();
            b.method(method, requestBody.length == 0 ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(requestBody));
            HttpResponse<InputStream> r;
            try {
                r = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reply(ex, 502, "interrupted");
                return;
            } catch (IOException | IllegalArgumentException e) {
                reply(ex, 502, "cannot reach " + uri.getHost() + ": " + e.getMessage());
                return;
            }
            for (Map.Entry<String, List<String>> h : r.headers().map().entrySet()) {
                if (h.getKey().startsWith(":") || HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) continue;
                for (String v : h.getValue()) ex.getResponseHeaders().add(h.getKey(), v);
            }
            Optional<String> refusal = ProxySafeguards.refusal(method, uri, ex.getRequestHeaders(), r.statusCode(),
                    r.headers().map(), allowQuery);
            ByteArrayOutputStream kept = new ByteArrayOutputStream();
            boolean complete;
            try (InputStream in = r.body()) {
                ex.sendResponseHeaders(r.statusCode(), method.equals("HEAD") || r.statusCode() == 204
                        || r.statusCode() == 304 ? -1 : 0);
                OutputStream out = ex.getResponseBody();
                byte[] buf = new byte[16384];
                long total = 0;
                int n;
                while ((n = in.read(buf)) > 0) {
                    out.write(buf, 0, n);
                    total += n;
                    if (refusal.isEmpty() && total <= maxBytes) kept.write(buf, 0, n);
                }
                out.flush();
                complete = total <= maxBytes;
            }
            index(uri, r, refusal.or(() -> complete ? Optional.empty() : Optional.of("larger than " + maxBytes + " bytes")),
                    kept.toByteArray());
        }
    }

    private void index(URI uri, HttpResponse<InputStream> r, Optional<String> refusal, byte[] body) {
        ImportJob.Context c = ctx;
        if (c == null) {
            try {
                if (!attached.await(5, TimeUnit.SECONDS)) return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            c = ctx;
        }
        if (refusal.isPresent()) {
            c.skipped(refusal.get() + ": " + uri);
            c.count("skipped." + refusal.get().split(" ")[0].replace(':', ' ').strip());
            return;
        }
        try {
            indexPolicy.check(uri);
        } catch (FetchPolicy.RefusedException e) {
            c.skipped("private address: " + uri);
            c.count("skipped.private-address");
            return;
        }
        try {
            long lm = r.headers().firstValue("last-modified").map(PageFetcher::httpDate).orElse(0L);
            c.document(extractor.extract(uri.toString(), body, r.headers().firstValue("content-type").orElse(null), lm));
            c.flush(); // a viewed page is searchable at once
        } catch (IOException | RuntimeException e) {
            c.error(uri + ": " + e.getMessage());
        }
    }

    private static void reply(HttpExchange ex, int status, String message) throws IOException {
        byte[] b = message.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }
}
