package org.peerdex.node.peer;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * The network prefix an address belongs to (IPv4 /{@code v4Bits}, IPv6 /{@code v6Bits}): the unit of the
 * directory's diversity limit and of per-prefix quotas, since one operator can mint many keys but holds few
 * prefixes (go-libp2p's routing-table diversity filter works the same way).
 */
public record AddressPrefix(int v4Bits, int v6Bits) {
    public String of(InetAddress a) {
        byte[] b = a.getAddress();
        int bits = b.length == 4 ? v4Bits : v6Bits;
        StringBuilder s = new StringBuilder(b.length == 4 ? "v4:" : "v6:");
        for (int i = 0; i < b.length; i++) {
            int keep = Math.max(0, Math.min(8, bits - 8 * i));
            int mask = keep == 0 ? 0 : (0xff << (8 - keep)) & 0xff;
            s.append(Integer.toHexString(b[i] & mask)).append('.');
        }
        return s.append('/').append(bits).toString();
    }

    /** The prefix of a literal IP (no DNS lookup), or empty for a name. */
    public Optional<String> ofLiteral(String host) {
        Optional<InetAddress> a = literal(host);
        return a.map(this::of);
    }

    /** A literal IPv4/IPv6 address (brackets allowed) parsed without any lookup, or empty. */
    public static Optional<InetAddress> literal(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        boolean v4 = h.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
        boolean v6 = h.contains(":") && h.matches("[0-9A-Fa-f:.]+");
        if (!v4 && !v6) return Optional.empty();
        try {
            return Optional.of(InetAddress.getByName(h)); // a literal: parsed, not resolved
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }
}
