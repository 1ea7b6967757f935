package org.peerdex.actors.dht.replication;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import org.peerdex.actors.dht.ring.PeerInfo;

/**
 * When may a peer delete postings it handed off? In the open network only after holders on {@code required}
 * distinct address prefixes acknowledged them: a Sybil operator who placed several ids of one prefix around a word
 * must not be able to make honest holders drop their copies by acknowledging into the void. Peers of a trust domain
 * (cluster addresses) and virtual peers are trusted alike, so any acknowledgement counts there.
 */
public final class HandoffQuorum {
    private final int required;
    private final int v4Bits;

    /**
     * @param required distinct prefixes required among the acknowledging holders (R, capped by how many holders
     *                 there are)
     * @param v4Bits   prefix length for IPv4 addresses (IPv6: 48)
     */
    public HandoffQuorum(int required, int v4Bits) {
        this.required = required;
        this.v4Bits = v4Bits;
    }

    /** May the hand-off's local copies go, given the holders that acknowledged it? */
    public boolean satisfied(Collection<PeerInfo> acknowledged) {
        boolean open = false;
        Set<String> prefixes = new HashSet<>();
        for (PeerInfo i : acknowledged) {
            if (i.address().startsWith("peer://")) open = true;
            prefixes.add(prefix(i.address()));
        }
        if (!open) return true;
        // every acknowledging holder on a prefix of its own, up to R of them
        return prefixes.size() >= Math.min(required, acknowledged.size());
    }

    /** The address prefix of "peer://HOST:PORT" (IPv4 /v4Bits, IPv6 /48); the whole address for anything else. */
    String prefix(String address) {
        if (!address.startsWith("peer://")) return address;
        String hostPort = address.substring("peer://".length());
        int colon = hostPort.lastIndexOf(':');
        String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
        if (host.startsWith("[")) {
            String[] groups = host.substring(1, host.length() - 1).split(":");
            return "v6:" + String.join(":", Arrays.copyOf(groups, Math.min(3, groups.length)));
        }
        String[] octets = host.split("\\.");
        if (octets.length != 4) return host;
        long v = 0;
        for (String o : octets) {
            try {
                v = (v << 8) | (Integer.parseInt(o) & 0xff);
            } catch (NumberFormatException e) {
                return host;
            }
        }
        long mask = v4Bits == 0 ? 0 : (0xffffffffL << (32 - v4Bits)) & 0xffffffffL;
        return "v4:" + Long.toHexString(v & mask);
    }
}
