package org.peerdex.actors.crawl;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.peerdex.protocol.url.UrlNormalizer;

/**
 * The one outgoing HTTP stack of a peer (Apache HttpClient 5): crawler, importers, snippet verification and
 * federation all fetch through it. Every hop of a redirect is checked by the {@link AddressGuard}, and the client's
 * DNS resolver hands the connection only addresses the guard allowed (resolve, check, connect to what was
 * checked), so DNS rebinding cannot slip an internal address in after the check. Redirects are followed here, with
 * loop detection and a hop limit; every exchange has connect, read (idle) and total deadlines and a body cap, and
 * gzip/deflate bodies are decoded under the same cap. Blocking; thread-safe; one instance (one connection pool) per
 * address policy.
 */
public final class GuardedHttp implements AutoCloseable {
    /** Cancels exchanges that pass their total deadline (a slow-drip server keeps every single read short). */
    private static final ScheduledExecutorService DEADLINES = deadlines();

    private final AddressGuard guard;
    private final PoolingHttpClientConnectionManager pool;
    private final CloseableHttpClient client;

    /**
     * The bounds of one fetch. {@code totalTimeoutMs} covers all hops, headers and body ({@link #open} stops it
     * once the headers are in); {@code readTimeoutMs} is the longest silence while waiting for bytes;
     * {@code maxRedirects} -1 returns a redirect as the response instead of following it.
     */
    public record Limits(long connectTimeoutMs, long readTimeoutMs, long totalTimeoutMs, int maxBodyBytes,
                         int maxRedirects) {
        /** The same limits, with redirects returned rather than followed (a probe wants the first answer). */
        public Limits returningRedirects() {
            return new Limits(connectTimeoutMs, readTimeoutMs, totalTimeoutMs, maxBodyBytes, -1);
        }

        /** The crawler's limits (peerdex.crawler.*-timeout, max-body-bytes, max-redirects). */
        public static Limits of(CrawlerSettings s) {
            return new Limits(s.connectTimeoutMs(), s.readTimeoutMs(), s.totalTimeoutMs(), s.maxBodyBytes(),
                    s.maxRedirects());
        }
    }

    /** A final response (not a redirect): the URL it came from, its headers (names lower-cased, first value). */
    public record Response(String url, int status, Map<String, String> headers, byte[] body, boolean truncated,
                           List<String> redirects, long millis) {
        public String header(String name) {
            return headers.getOrDefault(name.toLowerCase(Locale.ROOT), "");
        }
    }

    /** A final response whose body is still on the wire; close it (closing drops the connection if unread). */
    public static final class Streamed implements Closeable {
        private final String url;
        private final int status;
        private final Map<String, String> headers;
        private final InputStream body;
        private final Runnable abort;

        Streamed(String url, int status, Map<String, String> headers, InputStream body, Runnable abort) {
            this.url = url;
            this.status = status;
            this.headers = headers;
            this.body = body;
            this.abort = abort;
        }

        public String url() {
            return url;
        }

        public int status() {
            return status;
        }

        public String header(String name) {
            return headers.getOrDefault(name.toLowerCase(Locale.ROOT), "");
        }

        public InputStream body() {
            return body;
        }

        @Override
        public void close() {
            abort.run();
        }
    }

    /** A fetch that produced no response; {@code kind} names the error class (for counters and reports). */
    public static final class FetchException extends IOException {
        private final String kind;
        private final List<String> redirects;

        public FetchException(String kind, String message, List<String> redirects) {
            super(message);
            this.kind = kind;
            this.redirects = List.copyOf(redirects);
        }

        public String kind() {
            return kind;
        }

        public List<String> redirects() {
            return redirects;
        }
    }

    /** The resolver's refusal: an {@link UnknownHostException} so the client gives up on the host at once. */
    static final class RefusedHostException extends UnknownHostException {
        RefusedHostException(String message) {
            super(message);
        }
    }

    /** Resolves through the guard: the addresses it returns are the ones checked, and the only ones connected to. */
    public static final class GuardedResolver implements DnsResolver {
        private final AddressGuard guard;

        public GuardedResolver(AddressGuard guard) {
            this.guard = guard;
        }

        @Override
        public InetAddress[] resolve(String host) throws UnknownHostException {
            try {
                return guard.check(host);
            } catch (AddressGuard.RefusedAddressException e) {
                throw new RefusedHostException(e.getMessage());
            }
        }

        @Override
        public String resolveCanonicalHostname(String host) throws UnknownHostException {
            return host; // never asked for (no Kerberos); no reverse lookups
        }
    }

    public GuardedHttp(AddressGuard guard) {
        this.guard = guard;
        this.pool = PoolingHttpClientConnectionManagerBuilder.create()
                .setDnsResolver(new GuardedResolver(guard))
                .setMaxConnTotal(256).setMaxConnPerRoute(16).build();
        // no redirects, cookies, auth caches, decompression or proxies of the client's own: this class follows
        // redirects itself (guarded) and decodes under the cap; the one retry is for a kept-alive connection the
        // server had closed in the meantime (429/503 are the caller's to handle, with their Retry-After)
        this.client = HttpClients.custom().setConnectionManager(pool).setRetryStrategy(new StaleConnectionRetry())
                .disableRedirectHandling().disableCookieManagement()
                .disableAuthCaching().disableContentCompression().disableDefaultUserAgent()
                .evictIdleConnections(TimeValue.ofSeconds(30)).evictExpiredConnections().build();
    }

    public AddressGuard guard() {
        return guard;
    }

    /** Retries a GET once when a pooled connection turns out to be closed before any response byte. */
    private static final class StaleConnectionRetry implements HttpRequestRetryStrategy {
        @Override
        public boolean retryRequest(HttpRequest request, IOException exception, int execCount, HttpContext context) {
            return execCount <= 1 && exception instanceof NoHttpResponseException
                    && "GET".equalsIgnoreCase(request.getMethod());
        }

        @Override
        public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
            return false;
        }

        @Override
        public TimeValue getRetryInterval(HttpRequest request, IOException exception, int execCount,
                                          HttpContext context) {
            return TimeValue.ZERO_MILLISECONDS;
        }

        @Override
        public TimeValue getRetryInterval(HttpResponse response, int execCount, HttpContext context) {
            return TimeValue.ZERO_MILLISECONDS;
        }
    }

    /** GETs a URL, following redirects; the body is read up to the cap (then cut and flagged) and decoded. */
    public Response get(String url, Limits limits, Map<String, String> headers) throws FetchException {
        long start = System.nanoTime();
        Opened o = openFollowing(url, limits, headers, start);
        try {
            HttpEntity entity = o.response.getEntity();
            o.drained = entity == null;
            byte[] raw = new byte[0];
            boolean truncated = false;
            if (entity != null) {
                try (InputStream in = entity.getContent()) {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    byte[] buf = new byte[64 * 1024];
                    while (true) {
                        int room = limits.maxBodyBytes() - out.size();
                        int n = in.read(buf, 0, Math.min(buf.length, room + 1));
                        if (n < 0) {
                            o.drained = true;
                            break;
                        }
                        if (n > room) {
                            out.write(buf, 0, room);
                            truncated = true;
                            o.abort(); // drop the connection rather than drain the rest
                            break;
                        }
                        out.write(buf, 0, n);
                    }
                    raw = out.toByteArray();
                } catch (IOException e) {
                    if (!truncated) throw o.failure(e, start, limits);
                }
            }
            byte[] body = raw;
            String enc = o.headers.getOrDefault("content-encoding", "").trim().toLowerCase(Locale.ROOT);
            if (!enc.isEmpty() && !enc.equals("identity")) {
                try {
                    Decoded d = decode(raw, enc, limits.maxBodyBytes());
                    body = d.bytes;
                    truncated |= d.truncated;
                } catch (IOException e) {
                    if (!truncated) {
                        throw new FetchException("encoding", "cannot decode " + enc + ": " + e.getMessage(), o.redirects);
                    }
                    // a cut compressed body ends early: keep what decoded
                }
            }
            return new Response(o.url, o.response.getCode(), o.headers, body, truncated, o.redirects,
                    (System.nanoTime() - start) / 1_000_000);
        } finally {
            o.close();
        }
    }

    /**
     * GETs a URL, following redirects, and returns its body unread (content-encoding untouched). The total deadline
     * ends with the headers; after that the caller bounds its work, and every read still ends after the read
     * timeout of silence.
     */
    public Streamed open(String url, Limits limits, Map<String, String> headers) throws FetchException {
        long start = System.nanoTime();
        Opened o = openFollowing(url, limits, headers, start);
        o.deadline.cancel(false);
        try {
            HttpEntity entity = o.response.getEntity();
            InputStream raw = entity == null ? InputStream.nullInputStream() : entity.getContent();
            InputStream body = new FilterInputStream(raw) {
                @Override
                public void close() {
                    o.close();
                }
            };
            return new Streamed(o.url, o.response.getCode(), o.headers, body, o::close);
        } catch (IOException e) {
            o.close();
            throw o.failure(e, start, limits);
        }
    }

    @Override
    public void close() {
        client.close(CloseMode.IMMEDIATE);
    }

    /** One exchange whose headers are in. */
    private final class Opened {
        final String url;
        final HttpGet request;
        final ClassicHttpResponse response;
        final Map<String, String> headers;
        final List<String> redirects;
        final ScheduledFuture<?> deadline;
        final AtomicBoolean expired;
        private final AtomicBoolean closed = new AtomicBoolean();
        /** The body was read to its end (the client already gave the connection back to the pool). */
        volatile boolean drained;

        Opened(String url, HttpGet request, ClassicHttpResponse response, List<String> redirects,
               ScheduledFuture<?> deadline, AtomicBoolean expired) {
            this.url = url;
            this.request = request;
            this.response = response;
            this.headers = headers(response);
            this.redirects = redirects;
            this.deadline = deadline;
            this.expired = expired;
        }

        /** Drops the connection (nothing more is read from it). */
        void abort() {
            request.cancel();
        }

        /** Ends the exchange: back to the pool if the body was read to its end, else the connection is dropped. */
        void close() {
            if (!closed.compareAndSet(false, true)) return;
            deadline.cancel(false);
            try {
                if (!drained) request.cancel(); // unread bytes: drop the connection rather than drain them
                response.close();
            } catch (IOException | RuntimeException ignored) {
                // the connection is gone either way
            }
        }

        FetchException failure(IOException e, long start, Limits limits) {
            return GuardedHttp.this.failure(e, expired.get(), start, redirects);
        }
    }

    private Opened openFollowing(String url, Limits limits, Map<String, String> headers, long start)
            throws FetchException {
        List<String> redirects = new ArrayList<>();
        Set<String> visited = new HashSet<>();
        String current = url;
        visited.add(current);
        while (true) {
            Opened o = openOnce(current, limits, headers, start, redirects);
            int status = o.response.getCode();
            if (status < 300 || status >= 400 || status == 304 || limits.maxRedirects() < 0) return o;
            o.close();
            String location = o.headers.get("location");
            if (location == null || location.isBlank()) {
                throw new FetchException("bad-redirect", "redirect without Location", redirects);
            }
            String base = current;
            String next = UrlNormalizer.resolve(base, location.trim()).orElseThrow(() -> new FetchException(
                    "bad-redirect", "redirect to an unusable location: " + location, redirects));
            redirects.add(next);
            if (!visited.add(next)) throw new FetchException("redirect-loop", "redirect loop at " + next, redirects);
            if (redirects.size() > limits.maxRedirects()) {
                throw new FetchException("too-many-redirects", "more than " + limits.maxRedirects() + " redirects",
                        redirects);
            }
            current = next;
        }
    }

    private Opened openOnce(String url, Limits limits, Map<String, String> headers, long start,
                            List<String> redirects) throws FetchException {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new FetchException("bad-url", "not a URL: " + url, redirects);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new FetchException("refused-scheme", "only http and https are fetched: " + url, redirects);
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new FetchException("bad-url", "URL without a host: " + url, redirects);
        }
        // a clear refusal before anything is opened; the resolver checks again at connect time
        try {
            guard.check(uri.getHost());
        } catch (AddressGuard.RefusedAddressException e) {
            throw new FetchException("refused-address", e.getMessage(), redirects);
        } catch (UnknownHostException e) {
            throw new FetchException("unknown-host", "unknown host " + uri.getHost(), redirects);
        }
        long remaining = limits.totalTimeoutMs() - (System.nanoTime() - start) / 1_000_000;
        if (remaining <= 0) throw new FetchException("timeout", "total timeout", redirects);
        HttpGet get = new HttpGet(uri);
        get.setConfig(requestConfig(limits, remaining));
        headers.forEach(get::setHeader);
        AtomicBoolean expired = new AtomicBoolean();
        ScheduledFuture<?> deadline = DEADLINES.schedule(() -> {
            expired.set(true);
            get.cancel();
        }, remaining, TimeUnit.MILLISECONDS);
        try {
            ClassicHttpResponse resp = client.executeOpen(null, get, null);
            return new Opened(url, get, resp, redirects, deadline, expired);
        } catch (IOException e) {
            deadline.cancel(false);
            throw failure(e, expired.get(), start, redirects);
        } catch (RuntimeException e) {
            deadline.cancel(false);
            throw new FetchException("io", e.getClass().getSimpleName() + ": " + e.getMessage(), redirects);
        }
    }

    @SuppressWarnings("deprecation") // a per-request connect timeout: callers differ (crawler, verifier, federation)
    private static RequestConfig requestConfig(Limits limits, long remainingMs) {
        return RequestConfig.custom()
                .setConnectTimeout(Timeout.ofMilliseconds(Math.min(limits.connectTimeoutMs(), remainingMs)))
                .setConnectionRequestTimeout(Timeout.ofMilliseconds(remainingMs))
                .setResponseTimeout(Timeout.ofMilliseconds(Math.min(limits.readTimeoutMs(), remainingMs)))
                .setRedirectsEnabled(false).build();
    }

    private FetchException failure(IOException e, boolean expired, long start, List<String> redirects) {
        long ms = (System.nanoTime() - start) / 1_000_000;
        if (expired) return new FetchException("timeout", "timed out after " + ms + " ms", redirects);
        if (e instanceof RefusedHostException) return new FetchException("refused-address", e.getMessage(), redirects);
        if (e instanceof UnknownHostException) return new FetchException("unknown-host", "unknown host " + e.getMessage(), redirects);
        if (e instanceof ConnectTimeoutException) return new FetchException("timeout", "connect timeout", redirects);
        if (e instanceof SocketTimeoutException) return new FetchException("timeout", "read timeout", redirects);
        if (e instanceof ConnectException) return new FetchException("connect", "connection refused", redirects);
        if (e instanceof InterruptedIOException) {
            if (Thread.currentThread().isInterrupted()) return new FetchException("interrupted", "interrupted", redirects);
        }
        String m = e.getMessage();
        return new FetchException("io", e.getClass().getSimpleName() + (m == null ? "" : ": " + m), redirects);
    }

    private static Map<String, String> headers(ClassicHttpResponse resp) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Header h : resp.getHeaders()) out.putIfAbsent(h.getName().toLowerCase(Locale.ROOT), h.getValue());
        return out;
    }

    private record Decoded(byte[] bytes, boolean truncated) {}

    private static Decoded decode(byte[] raw, String enc, int cap) throws IOException {
        if (enc.contains("gzip")) return readCapped(new GZIPInputStream(new ByteArrayInputStream(raw)), cap);
        if (enc.contains("deflate")) {
            try {
                return readCapped(new InflaterInputStream(new ByteArrayInputStream(raw)), cap);
            } catch (IOException e) {
                // some servers send raw deflate without the zlib header
                return readCapped(new InflaterInputStream(new ByteArrayInputStream(raw), new Inflater(true)), cap);
            }
        }
        throw new IOException("unsupported content encoding");
    }

    private static Decoded readCapped(InputStream in, int cap) throws IOException {
        try (in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[64 * 1024];
            int n;
            while ((n = in.read(buf)) > 0) {
                int room = cap - out.size();
                if (n > room) {
                    out.write(buf, 0, room);
                    return new Decoded(out.toByteArray(), true);
                }
                out.write(buf, 0, n);
            }
            return new Decoded(out.toByteArray(), false);
        }
    }

    private static ScheduledExecutorService deadlines() {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "peerdex-http-deadlines");
            t.setDaemon(true);
            return t;
        });
        e.setRemoveOnCancelPolicy(true);
        return e;
    }
}
