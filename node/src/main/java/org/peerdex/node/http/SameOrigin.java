package org.peerdex.node.http;

import java.util.Optional;
import java.util.Set;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;

/**
 * The CSRF check of state-changing requests (anything but GET, HEAD, OPTIONS): one that names an {@code Origin}
 * (or, lacking one, a {@code Referer}) must name a page of this peer under one of its allowed names
 * ({@link HostAllowlist}). Comparing with the request's own {@code Host} would not do: after DNS rebinding a hostile
 * page's Origin and Host are the same hostile name. Clients that are not browsers send neither header and pass;
 * browsers always send {@code Origin} on cross-origin writes.
 */
final class SameOrigin {
    private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS");

    private SameOrigin() {}

    /** Why the request must be refused, or empty. */
    static Optional<String> problem(HttpRequest req, HostAllowlist hosts) {
        if (SAFE.contains(req.method().value())) return Optional.empty();
        Optional<String> origin = req.getHeader("Origin").map(HttpHeader::value);
        if (origin.isEmpty()) origin = req.getHeader("Referer").map(HttpHeader::value);
        if (origin.isEmpty()) return Optional.empty();
        String o = origin.get().trim();
        if (o.equals("null")) return Optional.of("cross-origin request refused (Origin: null)");
        if (!hosts.allowsOrigin(o)) {
            return Optional.of("cross-origin request refused: " + abbreviate(o) + " is not a page of this peer");
        }
        return Optional.empty();
    }

    private static String abbreviate(String s) {
        return s.length() <= 100 ? s : s.substring(0, 100) + "…";
    }
}
