package org.peerdex.storage.blacklist;

import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One blacklist rule: a scope, a host regex and a path regex (YaCy's {@code host/path} entries). The host is matched
 * whole and case-insensitively against the URL's host; a leading {@code *.} also matches the bare domain
 * ({@code *.example.org} blocks {@code example.org} and every subdomain). The path regex is matched whole against
 * the path plus {@code ?query}, without its leading slash as YaCy does or with it ({@code library/.*} and
 * {@code /library/.*} block the same URLs); an empty path means {@code .*}.
 */
public record BlacklistRule(Scope scope, String host, String path) {
    /** Where a rule applies. */
    public enum Scope {
        /** URLs the crawler must not fetch */
        CRAWLER,
        /** postings and metadata received from other peers (and not sent to them) */
        DHT,
        /** results a search must not show */
        SEARCH,
        /** pages the proxy must not serve */
        PROXY;

        public static Scope parse(String s) {
            if (s == null) throw new IllegalArgumentException("rule without scope (crawler, dht, search or proxy)");
            try {
                return valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("scope must be crawler, dht, search or proxy, not '" + s + "'");
            }
        }

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static final int MAX_PATTERN = 1024;

    public BlacklistRule {
        if (scope == null) throw new IllegalArgumentException("rule without scope (crawler, dht, search or proxy)");
        host = host == null ? "" : host.trim().toLowerCase(Locale.ROOT);
        path = path == null || path.isBlank() ? ".*" : path.trim();
        if (host.isEmpty()) throw new IllegalArgumentException("rule without host pattern");
        if (host.length() > MAX_PATTERN || path.length() > MAX_PATTERN) {
            throw new IllegalArgumentException("rule pattern longer than " + MAX_PATTERN + " characters");
        }
        compile("host", hostRegex(host));
        compile("path", path);
    }

    /** Parses a YaCy blacklist line {@code host/path-regex} ({@code host} alone blocks the whole host). */
    public static BlacklistRule parseLine(Scope scope, String line) {
        String t = line.trim();
        if (t.startsWith("http://")) t = t.substring(7);
        else if (t.startsWith("https://")) t = t.substring(8);
        int slash = t.indexOf('/');
        return slash < 0 ? new BlacklistRule(scope, t, ".*")
                : new BlacklistRule(scope, t.substring(0, slash), t.substring(slash + 1));
    }

    /** The rule as a line of a blacklist file. */
    public String line() {
        return host + "/" + path;
    }

    Pattern hostPattern() {
        return Pattern.compile(hostRegex(host), Pattern.CASE_INSENSITIVE);
    }

    Pattern pathPattern() {
        return Pattern.compile(path);
    }

    static String hostRegex(String host) {
        if (host.equals("*")) return ".*";
        if (host.startsWith("*.")) return "(?:.*\\.)?" + host.substring(2);
        return host;
    }

    private static void compile(String what, String regex) {
        try {
            Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(what + " pattern '" + regex + "' is not a regular expression: "
                    + e.getDescription());
        }
    }
}
