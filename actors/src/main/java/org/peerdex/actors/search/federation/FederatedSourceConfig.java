package org.peerdex.actors.search.federation;

import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One outside search engine whose results are mixed into searches (docs/federation.md): its name (the results'
 * {@code source}), answer format, URL template with {@code {query}} and {@code {count}}, and its bounds.
 *
 * @param timeout       the longest this source may take to answer in full
 * @param weight        how its results score against ours (0..10; 1 = its first result ranks like a middling one of ours)
 * @param maxResults    at most this many results are asked for and read
 * @param maxBytes      a longer answer is refused
 * @param maxConcurrent at most this many requests to the source at once; a search beyond that skips it
 */
public record FederatedSourceConfig(String name, Kind kind, String url, Duration timeout, double weight,
                                    boolean enabled, int maxResults, int maxBytes, int maxConcurrent) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    public static final int DEFAULT_MAX_RESULTS = 20;
    public static final int DEFAULT_MAX_BYTES = 1 << 20;
    public static final int DEFAULT_MAX_CONCURRENT = 4;
    private static final Set<String> HTTP_SCHEMES = Set.of("http", "https");

    /** The answer formats a source may speak. */
    public enum Kind {
        YACY_JSON, OPENSEARCH_RSS, OPENSEARCH_JSON, SOLR;

        public String key() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        public static Kind parse(Object v) {
            String s = v == null ? "" : String.valueOf(v).trim().toLowerCase(Locale.ROOT);
            for (Kind k : values()) if (k.key().equals(s)) return k;
            throw new IllegalArgumentException("kind must be yacy-json, opensearch-rss, opensearch-json or solr, not '"
                    + v + "'");
        }
    }

    public FederatedSourceConfig {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,39}")) {
            throw new IllegalArgumentException("source name must be 1-40 letters, digits, '.', '_' or '-': " + name);
        }
        if (name.equals("local") || name.equals("dht")) {
            throw new IllegalArgumentException("source name '" + name + "' is reserved for this peer's own results");
        }
        if (kind == null) throw new IllegalArgumentException("source " + name + " has no kind");
        if (url == null || !url.contains("{query}")) {
            throw new IllegalArgumentException("source " + name + ": url must contain {query}");
        }
        URI probe;
        try {
            probe = URI.create(url.replace("{query}", "q").replace("{count}", "10"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("source " + name + ": url is not a URL: " + e.getMessage());
        }
        if (probe.getScheme() == null || !HTTP_SCHEMES.contains(probe.getScheme().toLowerCase(Locale.ROOT))
                || probe.getHost() == null) {
            throw new IllegalArgumentException("source " + name + ": url must be http:// or https:// with a host");
        }
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
        if (timeout.toMillis() < 50 || timeout.toMillis() > 30_000) {
            throw new IllegalArgumentException("source " + name + ": timeout must be within 50 ms..30 s");
        }
        if (!(weight >= 0 && weight <= 10)) throw new IllegalArgumentException("source " + name + ": weight must be 0..10");
        if (maxResults < 1 || maxResults > 100) {
            throw new IllegalArgumentException("source " + name + ": maxResults must be 1..100");
        }
        if (maxBytes < 1024 || maxBytes > 16 << 20) {
            throw new IllegalArgumentException("source " + name + ": maxBytes must be 1 KiB..16 MiB");
        }
        if (maxConcurrent < 1 || maxConcurrent > 64) {
            throw new IllegalArgumentException("source " + name + ": maxConcurrent must be 1..64");
        }
    }


    /** The request URL for a query, the query URL-encoded into {@code {query}}, the count into {@code {count}}. */
    /** The host the admin named in the URL template: the federation stack's guard lets it through. */
    public String host() {
        return uri("q", 1).getHost();
    }

    public URI uri(String query, int count) {
        return URI.create(url.replace("{query}", URLEncoder.encode(query, StandardCharsets.UTF_8))
                .replace("{count}", Integer.toString(Math.min(count, maxResults))));
    }

    /** From JSON or HOCON values: timeout as "2s"/"500ms" or milliseconds; absent bounds take their defaults. */
    public static FederatedSourceConfig fromMap(Map<String, ?> m) {
        Object name = m.get("name");
        String n = name == null ? null : String.valueOf(name);
        return new FederatedSourceConfig(n, Kind.parse(m.get("kind")), m.get("url") == null ? null
                : String.valueOf(m.get("url")), duration(n, m.get("timeout")), number(n, m, "weight", 1.0),
                bool(n, m.get("enabled")), (int) number(n, m, "maxResults", DEFAULT_MAX_RESULTS),
                (int) number(n, m, "maxBytes", DEFAULT_MAX_BYTES), (int) number(n, m, "maxConcurrent",
                DEFAULT_MAX_CONCURRENT));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("kind", kind.key());
        m.put("url", url);
        m.put("timeout", timeout.toMillis() + "ms");
        m.put("weight", weight);
        m.put("enabled", enabled);
        m.put("maxResults", maxResults);
        m.put("maxBytes", maxBytes);
        m.put("maxConcurrent", maxConcurrent);
        return m;
    }

    /** A list of sources; names must be unique. */
    @SuppressWarnings("unchecked")
    public static List<FederatedSourceConfig> listFromMaps(List<?> items) {
        List<FederatedSourceConfig> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < items.size(); i++) {
            if (!(items.get(i) instanceof Map<?, ?> m)) throw new IllegalArgumentException("source " + i + " is not an object");
            FederatedSourceConfig c = fromMap((Map<String, ?>) m);
            if (!names.add(c.name())) throw new IllegalArgumentException("two sources are named " + c.name());
            out.add(c);
        }
        return out;
    }

    private static Duration duration(String name, Object v) {
        if (v == null) return DEFAULT_TIMEOUT;
        if (v instanceof Number n) return Duration.ofMillis(n.longValue());
        try {
            return ConfigFactory.parseMap(Map.of("t", String.valueOf(v))).getDuration("t");
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("source " + name + ": timeout must be a duration like 2s, not '" + v + "'");
        }
    }

    private static double number(String name, Map<String, ?> m, String key, double def) {
        Object v = m.get(key);
        if (v == null) return def;
        if (v instanceof Number n) return n.doubleValue();
        try {
            return Double.parseDouble(String.valueOf(v).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("source " + name + ": " + key + " must be a number, not '" + v + "'");
        }
    }

    private static boolean bool(String name, Object v) {
        if (v == null) return true;
        if (v instanceof Boolean b) return b;
        String s = String.valueOf(v).trim();
        if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("on")) return true;
        if (s.equalsIgnoreCase("false") || s.equalsIgnoreCase("off")) return false;
        throw new IllegalArgumentException("source " + name + ": enabled must be true or false, not '" + v + "'");
    }
}
