package org.peerdex.actors.crawl;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * SSRF safety: the crawler does not reach loopback, private, link-local, unique-local, CGNAT or multicast
 * addresses unless the node runs in intranet mode, the host is listed in {@code peerdex.crawler.allow-hosts}, or
 * (loopback only) {@code peerdex.crawler.allow-loopback} is on.
 * The check is made on every resolved address of the host (a public name may point to 127.0.0.1), before the
 * first request and after every redirect. (The HTTP client resolves again; a rebinding DNS server could still
 * race this check.)
 */
public final class AddressGuard {
    private final CrawlerSettings settings;

    public AddressGuard(CrawlerSettings settings) {
        this.settings = settings;
    }

    /** Thrown for a host the crawler must not contact. */
    public static final class RefusedAddressException extends Exception {
        public RefusedAddressException(String message) {
            super(message);
        }
    }

    /** Resolves the host and throws if any of its addresses is off limits; returns the addresses. */
    public InetAddress[] check(String host) throws RefusedAddressException, UnknownHostException {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        InetAddress[] all = InetAddress.getAllByName(bare);
        if (settings.intranet() || CrawlerSettings.matches(settings.allowHosts(), host)) return all;
        for (InetAddress a : all) {
            if (CrawlerSettings.matches(settings.allowHosts(), a.getHostAddress())) continue;
            if (settings.allowLoopback() && a.isLoopbackAddress()) continue;
            String why = internal(a);
            if (why != null) {
                throw new RefusedAddressException(host + " resolves to " + a.getHostAddress() + ", a " + why
                        + " address; the crawler reaches such addresses only in intranet mode (--mode intranet) or"
                        + " for hosts listed in peerdex.crawler.allow-hosts (loopback: peerdex.crawler.allow-loopback = on)");
            }
        }
        return all;
    }

    /** Whether the host may be crawled faster than the politeness floor. */
    public boolean unpolite(String host) {
        if (CrawlerSettings.matches(settings.unpoliteHosts(), host)) return true;
        if (!settings.intranet()) return false;
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) if (internal(a) == null) return false;
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** What kind of internal address this is, or null for a public one. */
    static String internal(InetAddress a) {
        if (a.isLoopbackAddress()) return "loopback";
        if (a.isAnyLocalAddress()) return "wildcard";
        if (a.isLinkLocalAddress()) return "link-local";
        if (a.isSiteLocalAddress()) return "private";
        if (a.isMulticastAddress()) return "multicast";
        byte[] b = a.getAddress();
        if (a instanceof Inet6Address && (b[0] & 0xfe) == 0xfc) return "unique-local";
        if (b.length == 4 && (b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64) return "shared (CGNAT)";
        if (b.length == 4 && (b[0] & 0xff) == 0) return "unspecified";
        return null;
    }
}
