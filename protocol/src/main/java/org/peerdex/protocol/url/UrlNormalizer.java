package org.peerdex.protocol.url;

import crawlercommons.filters.basic.BasicURLNormalizer;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;

/**
 * The one normal form of a URL used for hashing, dedup and the frontier: crawler-commons' BasicURLNormalizer
 * (lower-case scheme and host, default port removed, dot segments resolved, percent-encoding normalized, IDN to
 * ASCII, fragment removed), restricted to http and https.
 */
public final class UrlNormalizer {
    private static final BasicURLNormalizer NORMALIZER = new BasicURLNormalizer();

    private UrlNormalizer() {}

    /** The normal form, or empty for anything that is not a well-formed absolute http(s) URL. */
    public static Optional<String> normalize(String url) {
        if (url == null || url.isBlank() || url.length() > 4096) return Optional.empty();
        String trimmed = url.strip();
        String lower = trimmed.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("http://") && !lower.startsWith("https://")) return Optional.empty();
        String n;
        try {
            n = NORMALIZER.filter(trimmed);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        if (n == null) return Optional.empty();
        try {
            URI uri = new URI(n);
            if (uri.getHost() == null || uri.getHost().isEmpty()) return Optional.empty();
            if (uri.getRawPath() == null || uri.getRawPath().isEmpty()) n = n + "/";
        } catch (URISyntaxException e) {
            return Optional.empty();
        }
        return Optional.of(n);
    }

    /** Resolves {@code href} against {@code base} and normalizes the result. */
    public static Optional<String> resolve(String base, String href) {
        if (href == null) return Optional.empty();
        try {
            String h = href.strip();
            if (h.isEmpty() || h.startsWith("javascript:") || h.startsWith("mailto:")) return Optional.empty();
            return normalize(new URI(base).resolve(h.replace(" ", "%20")).toString());
        } catch (URISyntaxException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
