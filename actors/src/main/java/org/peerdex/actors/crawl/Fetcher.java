package org.peerdex.actors.crawl;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * Fetches one URL for the crawler over the peer's {@link GuardedHttp} stack: connect, read (idle) and total
 * timeouts, a body cap (larger bodies are cut and flagged), gzip/deflate (the decoded size is capped too), at most
 * {@code max-redirects} redirects with loop detection and the {@link AddressGuard} checked on every hop and at
 * connect time. Blocking: call it on the blocking dispatcher. Thread-safe; one instance per node.
 */
public final class Fetcher {
    private final GuardedHttp http;
    private final GuardedHttp.Limits limits;
    private final Map<String, String> headers;

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

    /** A fetcher with a stack (and connection pool) of its own. */
    public Fetcher(CrawlerSettings settings, AddressGuard guard) {
        this(settings, new GuardedHttp(guard));
    }

    /** A fetcher on a shared stack (the node's: the verifier uses the same one). */
    public Fetcher(CrawlerSettings settings, GuardedHttp http) {
        this.http = http;
        this.limits = GuardedHttp.Limits.of(settings);
        this.headers = Map.of("User-Agent", settings.userAgent(),
                "Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
                "Accept-Encoding", "gzip, deflate");
    }

    public AddressGuard guard() {
        return http.guard();
    }

    public GuardedHttp http() {
        return http;
    }

    /** GETs a normalized URL, following redirects. */
    public Response fetch(String url) throws FetchException {
        GuardedHttp.Response r;
        try {
            r = http.get(url, limits, headers);
        } catch (GuardedHttp.FetchException e) {
            throw new FetchException(e.kind(), e.getMessage(), e.redirects());
        }
        return new Response(r.url(), r.status(), r.header("Content-Type"), null, retryAfter(r.header("Retry-After")),
                lastModified(r.header("Last-Modified")), r.header("X-Robots-Tag"), r.body(), r.truncated(),
                r.redirects(), r.millis());
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
}
