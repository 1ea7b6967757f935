package org.peerdex.actors.importer;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import org.peerdex.actors.crawl.AddressGuard;

/**
 * Which addresses an importer may fetch from: public addresses always; loopback only when allowed (tests, a
 * peer importing from a server on its own machine); private, link-local and unique-local ranges only in
 * intranet mode. Enforced as an {@link AddressGuard} by the importers' {@link org.peerdex.actors.crawl.GuardedHttp}
 * (every hop of a redirect, and at connect time).
 */
public record FetchPolicy(boolean allowLoopback, boolean allowPrivate) {
    public static final FetchPolicy PUBLIC_ONLY = new FetchPolicy(false, false);

    /** This policy as the address guard of the shared HTTP stack (intranet mode lets every range through). */
    public AddressGuard guard() {
        return new AddressGuard(allowPrivate, allowLoopback, List::of, List.of(), InetAddress::getAllByName,
                "peerdex.importer");
    }

    /** Thrown when a URL points where this policy does not let the importer go. */
    public static final class RefusedException extends RuntimeException {
        public RefusedException(String message) {
            super(message);
        }
    }

    /** Resolves the URL's host and throws {@link RefusedException} if any of its addresses is off limits. */
    public void check(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new RefusedException("only http and https URLs can be imported: " + uri);
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) throw new RefusedException("URL without a host: " + uri);
        try {
            guard().check(host);
        } catch (AddressGuard.RefusedAddressException e) {
            throw new RefusedException(e.getMessage());
        } catch (UnknownHostException e) {
            throw new RefusedException("unknown host: " + host);
        }
    }

    /** Site-local, link-local, any-local, multicast, CGNAT 100.64/10 and IPv6 unique-local fc00::/7. */
    public static boolean isPrivate(InetAddress a) {
        if (a.isSiteLocalAddress() || a.isLinkLocalAddress() || a.isAnyLocalAddress() || a.isMulticastAddress()) {
            return true;
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet6Address) return (b[0] & 0xfe) == 0xfc;
        return (b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64;
    }
}
