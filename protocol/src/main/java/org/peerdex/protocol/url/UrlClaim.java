package org.peerdex.protocol.url;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;
import org.peerdex.protocol.hash.UrlHash;

/**
 * The check of a URL that arrived from elsewhere (another peer, an outside engine) together with the URL hash it
 * claims: it must be an absolute http(s) URL with a host, without control characters or white space, and hash to
 * the claimed URL hash. Such a URL ends up as a link on the peer's own pages, so a {@code javascript:} or
 * {@code data:} URL would run script on the console's origin; a URL that does not hash to its hash would let a
 * peer attach any title to any result.
 */
public final class UrlClaim {
    /** Longer than any URL a crawler keeps (UrlNormalizer refuses longer ones). */
    public static final int MAX_URL_LENGTH = 4096;

    private UrlClaim() {}

    /** Why the URL must not be trusted as the URL of {@code claimed}, or empty when it may. */
    public static Optional<String> problem(String url, UrlHash claimed) {
        Optional<String> form = formProblem(url);
        if (form.isPresent()) return form;
        if (claimed == null) return Optional.of("no URL hash");
        // peers store the normal form and hash it as it is (UrlHash.ofNormalized); a URL given in another form
        // is accepted when its normal form hashes to the claim
        if (claimed.equals(hashAsIs(url)) || claimed.equals(hashNormalized(url))) return Optional.empty();
        return Optional.of("URL " + abbreviate(url) + " does not hash to " + claimed.value());
    }

    /** Why the URL is no http(s) link at all (scheme, host, characters, length), or empty. */
    public static Optional<String> formProblem(String url) {
        if (url == null || url.isEmpty()) return Optional.of("no URL");
        if (url.length() > MAX_URL_LENGTH) return Optional.of("URL longer than " + MAX_URL_LENGTH + " characters");
        for (int i = 0; i < url.length(); i++) {
            char c = url.charAt(i);
            // browsers strip or ignore these inside a scheme ("java\tscript:"), so none may appear anywhere
            if (c <= 0x20 || c == 0x7f || Character.isWhitespace(c) || Character.isISOControl(c)) {
                return Optional.of("URL with white space or a control character: " + abbreviate(url));
            }
        }
        String lower = url.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("http://") && !lower.startsWith("https://")) {
            return Optional.of("URL is not http(s): " + abbreviate(url));
        }
        try {
            URI uri = new URI(url);
            if (uri.getHost() == null || uri.getHost().isEmpty()) return Optional.of("URL without host: " + abbreviate(url));
        } catch (URISyntaxException e) {
            return Optional.of("URL does not parse: " + abbreviate(url));
        }
        return Optional.empty();
    }

    private static UrlHash hashAsIs(String url) {
        try {
            return UrlHash.ofNormalized(url);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static UrlHash hashNormalized(String url) {
        try {
            return UrlHash.of(url);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String abbreviate(String url) {
        return url.length() <= 120 ? url : url.substring(0, 120) + "…";
    }
}
