package org.peerdex.actors.crawl;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** Which URLs a crawl follows: depth, range (site/subpath/wide), regex filters, query strings. A plain class. */
public final class CrawlScope {
    private final CrawlProfile profile;
    private final Set<String> hosts = new HashSet<>();
    private final List<String> prefixes = new ArrayList<>();
    private final Pattern mustMatch;
    private final Pattern mustNotMatch;

    public CrawlScope(CrawlProfile profile) {
        this.profile = profile;
        for (String u : profile.urls()) {
            URI uri = URI.create(u);
            hosts.add(hostPort(uri));
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            String dir = path.substring(0, path.lastIndexOf('/') + 1);
            prefixes.add(uri.getScheme() + "://" + uri.getRawAuthority().toLowerCase(Locale.ROOT) + dir);
        }
        this.mustMatch = Pattern.compile(profile.mustMatch());
        this.mustNotMatch = profile.mustNotMatch().isEmpty() ? null : Pattern.compile(profile.mustNotMatch());
    }

    static String hostPort(URI uri) {
        return uri.getHost().toLowerCase(Locale.ROOT) + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
    }

    /** Why a normalized URL at this depth is not crawled, or empty if it is. */
    public Optional<String> reject(String url, int depth) {
        if (depth > profile.depth()) return Optional.of("depth");
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            return Optional.of("bad-url");
        }
        switch (profile.range()) {
            case "site" -> {
                if (!hosts.contains(hostPort(uri))) return Optional.of("range");
            }
            case "subpath" -> {
                if (prefixes.stream().noneMatch(url::startsWith)) return Optional.of("range");
            }
            default -> { }
        }
        if (!profile.followQuery() && uri.getRawQuery() != null) return Optional.of("query");
        if (!mustMatch.matcher(url).matches()) return Optional.of("must-match");
        if (mustNotMatch != null && mustNotMatch.matcher(url).matches()) return Optional.of("must-not-match");
        return Optional.empty();
    }

    /** Whether a media type (no parameters) is one this crawl parses. */
    public boolean acceptsType(String mime) {
        if (mime.isEmpty()) return true;
        for (String t : profile.contentTypes()) {
            if (t.equals(mime) || t.equals("*/*") || t.endsWith("/*") && mime.startsWith(t.substring(0, t.length() - 1))) {
                return true;
            }
        }
        return false;
    }
}
