package org.peerdex.actors.importer;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * When the indexing proxy may index a page a user viewed, after YaCy's rules: only GET, no URL with a query
 * string unless allowed, nothing requested with {@code Authorization} or cookies or answered with
 * {@code Set-Cookie} (a personal page), only a complete 200 answer (no 206, no {@code Content-Range}), nothing
 * marked {@code Cache-Control: private} or {@code no-store}, and only types the indexer reads.
 */
public final class ProxySafeguards {
    private ProxySafeguards() {}

    /**
     * Why the exchange must not be indexed, or empty if it may be. Header names are matched case-insensitively.
     */
    public static Optional<String> refusal(String method, URI uri, Map<String, List<String>> requestHeaders,
                                           int status, Map<String, List<String>> responseHeaders, boolean allowQuery) {
        if (!"GET".equalsIgnoreCase(method)) return Optional.of("method " + method);
        if (!"http".equalsIgnoreCase(uri.getScheme())) return Optional.of("not http");
        if (uri.getRawQuery() != null && !allowQuery) return Optional.of("query string");
        if (has(requestHeaders, "authorization") || has(requestHeaders, "proxy-authorization")) {
            return Optional.of("authorization");
        }
        if (has(requestHeaders, "cookie")) return Optional.of("cookie");
        if (has(responseHeaders, "set-cookie") || has(responseHeaders, "set-cookie2")) return Optional.of("set-cookie");
        if (status == 206 || has(responseHeaders, "content-range")) return Optional.of("partial content");
        if (status != 200) return Optional.of("status " + status);
        String cc = String.join(",", values(responseHeaders, "cache-control")).toLowerCase(Locale.ROOT);
        if (cc.contains("private")) return Optional.of("cache-control private");
        if (cc.contains("no-store")) return Optional.of("cache-control no-store");
        String ct = String.join(",", values(responseHeaders, "content-type")).toLowerCase(Locale.ROOT);
        if (!ct.isEmpty() && !ct.startsWith("text/html") && !ct.startsWith("text/plain")
                && !ct.startsWith("application/xhtml") && !ct.startsWith("application/pdf")) {
            return Optional.of("content type " + ct);
        }
        return Optional.empty();
    }

    private static boolean has(Map<String, List<String>> headers, String name) {
        return !values(headers, name).isEmpty();
    }

    private static List<String> values(Map<String, List<String>> headers, String name) {
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            if (e.getKey() != null && e.getKey().equalsIgnoreCase(name)) return e.getValue();
        }
        return List.of();
    }
}
