package org.peerdex.node.http;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;

/**
 * The CSRF check of admin requests: a state-changing request (anything but GET, HEAD, OPTIONS) that names an
 * {@code Origin} (or, lacking one, a {@code Referer}) of another host:port than the {@code Host} it was sent to
 * came from a page of another site, and is refused. Clients that are not browsers send neither header and pass;
 * browsers always send {@code Origin} on cross-origin writes.
 */
final class SameOrigin {
    private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS");

    private SameOrigin() {}

    /** Why the request must be refused, or empty. */
    static Optional<String> problem(HttpRequest req) {
        if (SAFE.contains(req.method().value())) return Optional.empty();
        String host = req.getHeader("Host").map(HttpHeader::value).orElse("").toLowerCase(Locale.ROOT);
        Optional<String> origin = req.getHeader("Origin").map(HttpHeader::value);
        if (origin.isEmpty()) origin = req.getHeader("Referer").map(HttpHeader::value);
        if (origin.isEmpty()) return Optional.empty();
        String o = origin.get().trim();
        if (o.equals("null")) return Optional.of("cross-origin admin request refused (Origin: null)");
        String authority;
        try {
            authority = URI.create(o).getRawAuthority();
        } catch (IllegalArgumentException e) {
            authority = null;
        }
        if (authority == null || !authority.toLowerCase(Locale.ROOT).equals(host)) {
            return Optional.of("cross-origin admin request refused: Origin " + o + " is not " + host);
        }
        return Optional.empty();
    }
}
