package org.peerdex.actors.crawl;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.peerdex.protocol.url.UrlNormalizer;

/**
 * Fetches one URL over HTTP(S) with the JDK client: connect, read (idle) and total timeouts, a body cap (larger
 * bodies are cut and flagged), gzip/deflate (the decoded size is capped too), at most {@code max-redirects}
 * redirects followed by hand with loop detection and the {@link AddressGuard} checked before every hop. Blocking:
 * call it on the blocking dispatcher. Thread-safe; one instance (one connection pool) per node.
 */
public final class Fetcher {
    private final CrawlerSettings settings;
    private final AddressGuard guard;
    private final HttpClient client;

    /** A final response (not a redirect). */
    public record Response(String url, int status, String contentType, String location, long retryAfterMs,
                           long lastModified, String robotsTag, byte[] body, boolean truncated, List<String> redirects,
                           long millis) {}

    /** A fetch that produced no response; {@code kind} names the error class for the counters. */
    public static final class FetchException extends Exception {
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

    public Fetcher(CrawlerSettings settings, AddressGuard guard) {
        this.settings = settings;
        this.guard = guard;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofMillis(settings.connectTimeoutMs())).build();
    }

    public AddressGuard guard() {
        return guard;
    }

    /** GETs a normalized URL, following redirects. */
    public Response fetch(String url) throws FetchException {
        long start = System.nanoTime();
        List<String> redirects = new ArrayList<>();
        Set<String> visited = new HashSet<>();
        String current = url;
        visited.add(current);
        while (true) {
            Response r = fetchOnce(current, redirects, start);
            if (r.location() != null) {
                String location = r.location();
                String next = UrlNormalizer.resolve(current, location).orElseThrow(() ->
                        new FetchException("bad-redirect", "redirect to an unusable location: " + location, redirects));
                redirects.add(next);
                if (!visited.add(next)) throw new FetchException("redirect-loop", "redirect loop at " + next, redirects);
                if (redirects.size() > settings.maxRedirects()) {
                    throw new FetchException("too-many-redirects", "more than " + settings.maxRedirects()
                            + " redirects", redirects);
                }
                current = next;
                continue;
            }
            return r;
        }
    }

    private Response fetchOnce(String url, List<String> redirects, long startNanos) throws FetchException {
        URI uri = URI.create(url);
        try {
            guard.check(uri.getHost());
        } catch (AddressGuard.RefusedAddressException e) {
            throw new FetchException("refused-address", e.getMessage(), redirects);
        } catch (UnknownHostException e) {
            throw new FetchException("unknown-host", "unknown host " + uri.getHost(), redirects);
        }
        long elapsedMs = (System.nanoTime() - startNanos) / 1_000_000;
        long remaining = settings.totalTimeoutMs() - elapsedMs;
        if (remaining <= 0) throw new FetchException("timeout", "total timeout", redirects);
        HttpRequest req = HttpRequest.newBuilder(uri).GET()
                .timeout(Duration.ofMillis(Math.min(remaining, settings.readTimeoutMs())))
                .header("User-Agent", settings.userAgent())
                .header("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5")
                .header("Accept-Encoding", "gzip, deflate").build();
        CappedBody body = new CappedBody(settings.maxBodyBytes());
        CompletableFuture<HttpResponse<CappedBody>> f = client.sendAsync(req, info -> body);
        HttpResponse<CappedBody> resp;
        try {
            resp = await(f, body, startNanos);
        } catch (TimeoutException e) {
            body.cancel();
            f.cancel(true);
            throw new FetchException("timeout", "timed out after " + (System.nanoTime() - startNanos) / 1_000_000
                    + " ms", redirects);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(true);
            throw new FetchException("interrupted", "interrupted", redirects);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof HttpConnectTimeoutException) throw new FetchException("timeout", "connect timeout", redirects);
            if (c instanceof HttpTimeoutException) throw new FetchException("timeout", "read timeout", redirects);
            if (c instanceof ConnectException) throw new FetchException("connect", "connection refused", redirects);
            throw new FetchException("io", c == null ? e.toString() : c.getClass().getSimpleName() + ": "
                    + c.getMessage(), redirects);
        }
        int status = resp.statusCode();
        var h = resp.headers();
        if (status >= 300 && status < 400 && status != 304) {
            String loc = h.firstValue("Location").orElse(null);
            if (loc == null) throw new FetchException("bad-redirect", "redirect without Location", redirects);
            return new Response(url, status, "", loc, 0, 0, "", new byte[0], false, redirects,
                    (System.nanoTime() - startNanos) / 1_000_000);
        }
        byte[] raw = body.bytes();
        boolean truncated = body.truncated();
        String enc = h.firstValue("Content-Encoding").orElse("").trim().toLowerCase(Locale.ROOT);
        byte[] decoded = raw;
        if (!enc.isEmpty() && !enc.equals("identity")) {
            try {
                Decoded d = decode(raw, enc, settings.maxBodyBytes());
                decoded = d.bytes;
                truncated |= d.truncated;
            } catch (IOException e) {
                if (!truncated) throw new FetchException("encoding", "cannot decode " + enc + ": " + e.getMessage(), redirects);
                // a cut compressed body ends early: keep what decoded
            }
        }
        return new Response(url, status, h.firstValue("Content-Type").orElse(""), null,
                retryAfter(h.firstValue("Retry-After").orElse("")), lastModified(h.firstValue("Last-Modified")
                .orElse("")), h.firstValue("X-Robots-Tag").orElse(""), decoded, truncated, redirects,
                (System.nanoTime() - startNanos) / 1_000_000);
    }

    private HttpResponse<CappedBody> await(CompletableFuture<HttpResponse<CappedBody>> f, CappedBody body,
                                           long startNanos) throws TimeoutException, InterruptedException,
            ExecutionException {
        while (true) {
            long now = System.nanoTime();
            long left = settings.totalTimeoutMs() - (now - startNanos) / 1_000_000;
            if (left <= 0) throw new TimeoutException();
            try {
                return f.get(Math.min(left, 250), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (body.started() && (System.nanoTime() - body.lastActivity()) / 1_000_000 > settings.readTimeoutMs()) {
                    throw e;
                }
            }
        }
    }

    /** Retry-After as milliseconds (delta-seconds or an HTTP date), 0 if absent or unreadable. */
    static long retryAfter(String v) {
        if (v.isBlank()) return 0;
        try {
            return Math.max(0, Long.parseLong(v.trim()) * 1000);
        } catch (NumberFormatException e) {
            try {
                return Math.max(0, ZonedDateTime.parse(v.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant()
                        .toEpochMilli() - System.currentTimeMillis());
            } catch (RuntimeException e2) {
                return 0;
            }
        }
    }

    static long lastModified(String v) {
        if (v.isBlank()) return 0;
        try {
            return ZonedDateTime.parse(v.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
        } catch (RuntimeException e) {
            return 0;
        }
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

    /** Collects a body up to a cap, then cancels the stream (the connection is dropped, not drained). */
    private static final class CappedBody implements HttpResponse.BodySubscriber<CappedBody> {
        private final int cap;
        private final CompletableFuture<CappedBody> done = new CompletableFuture<>();
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private volatile Flow.Subscription subscription;
        private volatile long lastActivity = System.nanoTime();
        private volatile boolean started;
        private boolean truncated;

        CappedBody(int cap) {
            this.cap = cap;
        }

        @Override
        public java.util.concurrent.CompletionStage<CappedBody> getBody() {
            return done;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            started = true;
            lastActivity = System.nanoTime();
            s.request(Long.MAX_VALUE);
        }

        @Override
        public synchronized void onNext(List<ByteBuffer> items) {
            lastActivity = System.nanoTime();
            if (done.isDone()) return;
            for (ByteBuffer b : items) {
                int room = cap - out.size();
                int n = b.remaining();
                if (n > room) {
                    byte[] part = new byte[room];
                    b.get(part);
                    out.write(part, 0, room);
                    truncated = true;
                    subscription.cancel();
                    done.complete(this);
                    return;
                }
                byte[] all = new byte[n];
                b.get(all);
                out.write(all, 0, n);
            }
        }

        @Override
        public void onError(Throwable t) {
            done.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            done.complete(this);
        }

        void cancel() {
            Flow.Subscription s = subscription;
            if (s != null) s.cancel();
            done.cancel(true);
        }

        boolean started() {
            return started;
        }

        long lastActivity() {
            return lastActivity;
        }

        synchronized byte[] bytes() {
            return out.toByteArray();
        }

        synchronized boolean truncated() {
            return truncated;
        }
    }
}
