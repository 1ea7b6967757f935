package org.peerdex.actors.importer;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * Bounded HTTP GETs for the importers (java.net.http): every hop of a redirect is checked against the
 * {@link FetchPolicy}, bodies are cut at a byte bound, every request has a timeout. When the crawler is merged,
 * sitemap and forum imports hand their URLs to it instead, for politeness and robots.txt.
 */
public final class PageFetcher {
    public static final String USER_AGENT = "Peerdex/0.1 (importer; +https://peerdex.org/bot)";
    private static final int MAX_REDIRECTS = 5;
    private final HttpClient client;
    private final FetchPolicy policy;
    private final Duration timeout;
    private final long maxBytes;

    /** A fetched response: final URL, status, Content-Type, Last-Modified (epoch ms, 0 unknown), body. */
    public record Fetched(String url, int status, String contentType, long lastModified, byte[] body, boolean truncated) {}

    /** An open response body to stream (dumps of any size); close it. */
    public record Streamed(String url, int status, String contentType, long lastModified, InputStream body) {}

    public PageFetcher(FetchPolicy policy, Duration timeout, long maxBytes) {
        this.policy = policy;
        this.timeout = timeout;
        this.maxBytes = maxBytes;
        this.client = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    public FetchPolicy policy() {
        return policy;
    }

    /** GETs the URL, following redirects; the body is cut at the byte bound. */
    public Fetched get(String url) throws IOException {
        Streamed s = open(url, timeout);
        try (InputStream in = s.body()) {
            byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
            boolean cut = body.length > maxBytes;
            if (cut) body = java.util.Arrays.copyOf(body, (int) maxBytes);
            return new Fetched(s.url(), s.status(), s.contentType(), s.lastModified(), body, cut);
        }
    }

    /** Opens the URL for streaming, following redirects, with no byte bound (the caller bounds its work). */
    public Streamed open(String url, Duration requestTimeout) throws IOException {
        URI uri;
        try {
            uri = URI.create(url.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a URL: " + url);
        }
        for (int hop = 0; ; hop++) {
            policy.check(uri);
            HttpRequest req = HttpRequest.newBuilder(uri).timeout(requestTimeout).header("User-Agent", USER_AGENT)
                    .header("Accept", "*/*").GET().build();
            HttpResponse<InputStream> r;
            try {
                r = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted fetching " + uri);
            }
            int status = r.statusCode();
            Optional<String> location = r.headers().firstValue("location");
            if (status >= 300 && status < 400 && location.isPresent()) {
                r.body().close();
                if (hop >= MAX_REDIRECTS) throw new IOException("too many redirects from " + url);
                uri = uri.resolve(location.get());
                continue;
            }
            long lastModified = r.headers().firstValue("last-modified").map(PageFetcher::httpDate).orElse(0L);
            return new Streamed(uri.toString(), status, r.headers().firstValue("content-type").orElse(""),
                    lastModified, r.body());
        }
    }

    static long httpDate(String v) {
        try {
            return java.time.ZonedDateTime.parse(v, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant().toEpochMilli();
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
