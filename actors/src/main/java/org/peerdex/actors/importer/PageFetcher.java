package org.peerdex.actors.importer;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.peerdex.actors.crawl.GuardedHttp;

/**
 * Bounded HTTP GETs for the importers over the peer's {@link GuardedHttp} stack: every hop of a redirect and every
 * connection is checked against the {@link FetchPolicy}, bodies are cut at a byte bound, every request has
 * deadlines. When the crawler is merged, sitemap and forum imports hand their URLs to it instead, for politeness
 * and robots.txt.
 */
public final class PageFetcher {
    public static final String USER_AGENT = "Peerdex/0.1 (importer; +https://peerdex.org/bot)";
    private static final int MAX_REDIRECTS = 5;
    private static final Map<String, String> HEADERS = Map.of("User-Agent", USER_AGENT, "Accept", "*/*");
    private final GuardedHttp http;
    private final FetchPolicy policy;
    private final Duration timeout;
    private final long maxBytes;

    /** A fetched response: final URL, status, Content-Type, Last-Modified (epoch ms, 0 unknown), body. */
    public record Fetched(String url, int status, String contentType, long lastModified, byte[] body, boolean truncated) {}

    /** An open response body to stream (dumps of any size); close it. */
    public record Streamed(String url, int status, String contentType, long lastModified, InputStream body) {}

    /** A fetcher with a stack (connection pool) of its own for this policy. */
    public PageFetcher(FetchPolicy policy, Duration timeout, long maxBytes) {
        this(policy, new GuardedHttp(policy.guard()), timeout, maxBytes);
    }

    /** A fetcher on a given stack, whose guard must be the policy's. */
    public PageFetcher(FetchPolicy policy, GuardedHttp http, Duration timeout, long maxBytes) {
        this.policy = policy;
        this.http = http;
        this.timeout = timeout;
        this.maxBytes = maxBytes;
    }

    public FetchPolicy policy() {
        return policy;
    }

    /**
     * GETs the URL, following redirects; the body is cut at the byte bound. The whole fetch gets four times the
     * request timeout (a body of max-fetch-bytes over a slow link), and no silence longer than the timeout.
     */
    public Fetched get(String url) throws IOException {
        long ms = timeout.toMillis();
        GuardedHttp.Limits limits = new GuardedHttp.Limits(ms, ms, ms * 4,
                (int) Math.min(Integer.MAX_VALUE - 16, maxBytes), MAX_REDIRECTS);
        GuardedHttp.Response r;
        try {
            r = http.get(url.strip(), limits, HEADERS);
        } catch (GuardedHttp.FetchException e) {
            throw refusalOr(e, url);
        }
        return new Fetched(r.url(), r.status(), r.header("Content-Type"), httpDate(r.header("Last-Modified")),
                r.body(), r.truncated());
    }

    /**
     * Opens the URL for streaming, following redirects, with no byte bound (the caller bounds its work): the
     * headers must arrive within {@code requestTimeout}; after that, reads end after three request timeouts of
     * silence.
     */
    public Streamed open(String url, Duration requestTimeout) throws IOException {
        long ms = timeout.toMillis();
        GuardedHttp.Limits limits = new GuardedHttp.Limits(Math.min(ms, requestTimeout.toMillis()), ms * 3,
                requestTimeout.toMillis(), 0, MAX_REDIRECTS);
        GuardedHttp.Streamed s;
        try {
            s = http.open(url.strip(), limits, HEADERS);
        } catch (GuardedHttp.FetchException e) {
            throw refusalOr(e, url);
        }
        return new Streamed(s.url(), s.status(), s.header("Content-Type"), httpDate(s.header("Last-Modified")),
                s.body());
    }

    /** The importers' own exceptions: a refused address as {@link FetchPolicy.RefusedException}, a bad URL. */
    private static IOException refusalOr(GuardedHttp.FetchException e, String url) {
        switch (e.kind()) {
            case "refused-address", "refused-scheme", "unknown-host" ->
                    throw new FetchPolicy.RefusedException(e.getMessage());
            case "bad-url" -> throw new IllegalArgumentException("not a URL: " + url);
            default -> {
                return e;
            }
        }
    }

    static long httpDate(String v) {
        if (v == null || v.isBlank()) return 0;
        try {
            return ZonedDateTime.parse(v.trim(), DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant().toEpochMilli();
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
