package org.peerdex.actors.crawl;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * SSRF safety: no outgoing fetch reaches loopback, private, link-local, unique-local, CGNAT or multicast
 * addresses unless the node runs in intranet mode, the host is listed in {@code peerdex.crawler.allow-hosts}, or
 * (loopback only) {@code peerdex.crawler.allow-loopback} is on.
 * The check is made on every resolved address of the host (a public name may point to 127.0.0.1). {@link GuardedHttp}
 * checks before every hop and again inside its DNS resolver, whose checked answer is the very address it connects
 * to, so a rebinding DNS server cannot swap a public answer for an internal one between check and connect.
 */
public final class AddressGuard {
    /** Name lookup (the JDK's by default); tests inject one to play a rebinding DNS server. */
    @FunctionalInterface
    public interface Lookup {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    private final boolean intranet;
    private final boolean allowLoopback;
    private final Supplier<List<String>> allowHosts;
    private final List<String> unpoliteHosts;
    private final Lookup lookup;
    /** Where the settings that open this guard live, for the refusal message. */
    private final String settingsPrefix;

    public AddressGuard(CrawlerSettings settings) {
        this(settings.intranet(), settings.allowLoopback(), settings::allowHosts, settings.unpoliteHosts(),
                InetAddress::getAllByName);
    }

    /**
     * @param allowHosts host names or addresses ({@code *} wildcards) reached whatever their addresses; read on every
     *                   check, so a list the admin edits applies at once
     */
    public AddressGuard(boolean intranet, boolean allowLoopback, Supplier<List<String>> allowHosts,
                        List<String> unpoliteHosts, Lookup lookup) {
        this(intranet, allowLoopback, allowHosts, unpoliteHosts, lookup, "peerdex.crawler");
    }

    /** @param settingsPrefix the config section whose allow-hosts/allow-loopback open this guard (for messages) */
    public AddressGuard(boolean intranet, boolean allowLoopback, Supplier<List<String>> allowHosts,
                        List<String> unpoliteHosts, Lookup lookup, String settingsPrefix) {
        this.settingsPrefix = settingsPrefix;
        this.intranet = intranet;
        this.allowLoopback = allowLoopback;
        this.allowHosts = allowHosts;
        this.unpoliteHosts = List.copyOf(unpoliteHosts);
        this.lookup = lookup;
    }

    /** The same guard with another name lookup. */
    public AddressGuard withLookup(Lookup other) {
        return new AddressGuard(intranet, allowLoopback, allowHosts, unpoliteHosts, other, settingsPrefix);
    }

    /** The same guard that also lets these hosts through (e.g. the federated sources an admin configured). */
    public AddressGuard allowing(Supplier<List<String>> more) {
        Supplier<List<String>> mine = allowHosts;
        return new AddressGuard(intranet, allowLoopback, () -> {
            List<String> all = new ArrayList<>(mine.get());
            all.addAll(more.get());
            return all;
        }, unpoliteHosts, lookup, settingsPrefix);
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
        InetAddress[] all = lookup.resolve(bare);
        if (all == null || all.length == 0) throw new UnknownHostException(host);
        List<String> allowed = allowHosts.get();
        if (intranet || CrawlerSettings.matches(allowed, host) || CrawlerSettings.matches(allowed, bare)) return all;
        for (InetAddress a : all) {
            if (CrawlerSettings.matches(allowed, a.getHostAddress())) continue;
            if (allowLoopback && a.isLoopbackAddress()) continue;
            String why = internal(a);
            if (why != null) {
                throw new RefusedAddressException(host + " resolves to " + a.getHostAddress() + ", a " + why
                        + " address; a peer fetches from such addresses only in intranet mode (--mode intranet) or"
                        + " for hosts listed in " + settingsPrefix + ".allow-hosts (loopback: " + settingsPrefix
                        + ".allow-loopback = on)");
            }
        }
        return all;
    }

    /** Whether the host may be crawled faster than the politeness floor. */
    public boolean unpolite(String host) {
        if (CrawlerSettings.matches(unpoliteHosts, host)) return true;
        if (!intranet) return false;
        try {
            for (InetAddress a : lookup.resolve(host)) if (internal(a) == null) return false;
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** What kind of internal address this is, or null for a public one. */
    public static String internal(InetAddress a) {
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
