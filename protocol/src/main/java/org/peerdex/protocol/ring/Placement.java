package org.peerdex.protocol.ring;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;

/**
 * Where a position's data lives: the primary is the peer of the first point clockwise from it among live peers;
 * its mirrors are the peers of the points to the right and left, alternating (right first, so that the peer which
 * becomes primary when the primary dies already holds a copy), skipping peers already counted (a peer stands at
 * {@code positionsPerPeer} points). A ring of fewer than R peers keeps every copy it can.
 *
 * @param positionsPerPeer virtual positions per peer: the rings this placement builds ({@link #ring}); it is a
 *                         parameter of the network, as the partitions and R are: peers that disagree on it place
 *                         the same position on different holders
 */
public record Placement(Partitions partitions, int redundancy, int positionsPerPeer) {
    public static final int DEFAULT_REDUNDANCY = 3;
    /** LoadBalanceTest: 16 key-derived positions per peer give a holder max/mean of 1.48 at 1,000 peers */
    public static final int DEFAULT_POSITIONS_PER_PEER = 16;

    public Placement {
        if (redundancy < 1) throw new IllegalArgumentException("redundancy must be at least 1");
        if (positionsPerPeer < 1) throw new IllegalArgumentException("positions per peer must be at least 1");
    }

    /** One position per peer. */
    public Placement(Partitions partitions, int redundancy) {
        this(partitions, redundancy, 1);
    }

    public static Placement defaults() {
        return new Placement(new Partitions(Partitions.DEFAULT_EXPONENT), DEFAULT_REDUNDANCY);
    }

    /**
     * The parameters peers of one network must agree on, as a short text ("p16.r3.v16": partitions, R, positions
     * per peer): the open network's hellos carry it, and a peer of other parameters is not admitted.
     */
    public String tag() {
        return "p" + partitions.count() + ".r" + redundancy + ".v" + positionsPerPeer;
    }

    /** The ring of these peers at this placement's positions per peer. */
    public Ring ring(Collection<PeerId> peers) {
        return Ring.of(peers, positionsPerPeer);
    }

    /** The holders of a position, primary first, then mirrors; distinct, at most min(R, ring size). */
    public List<PeerId> holders(long position, Ring ring) {
        if (ring.isEmpty()) return List.of();
        int n = Math.min(redundancy, ring.size());
        int primary = ring.successorIndex(position);
        // a list that skips what it has (a handful of peers): a linked hash set per call was most of the
        // allocations of a holder's ring checks
        List<PeerId> out = new ArrayList<>(n);
        out.add(ring.get(primary));
        for (int step = 1; out.size() < n; step++) {
            addNew(out, ring.get(primary + step));
            if (out.size() < n) addNew(out, ring.get(primary - step));
        }
        return out;
    }

    private static void addNew(List<PeerId> out, PeerId p) {
        if (!out.contains(p)) out.add(p);
    }

    public List<PeerId> holders(WordHash word, int partition, Ring ring) {
        return holders(partitions.position(word, partition), ring);
    }

    public List<PeerId> holders(WordHash word, UrlHash url, Ring ring) {
        return holders(partitions.position(word, url), ring);
    }

    /** Holders of a URL's metadata: the R peers responsible for the URL hash's own position. */
    public List<PeerId> metadataHolders(UrlHash url, Ring ring) {
        return holders(url.position(), ring);
    }

    /** True if {@code peer} is one of the holders of {@code position}. */
    public boolean holds(PeerId peer, long position, Ring ring) {
        if (ring.isEmpty()) return false;
        if (ring.size() <= redundancy) return ring.contains(peer);
        // walk primary, +1, -1, +2, ... as holders() does, without building the list
        int primary = ring.successorIndex(position);
        PeerId[] seen = new PeerId[redundancy];
        int counted = 0;
        for (int step = 0; ; step++) {
            for (int side = 0; side < (step == 0 ? 1 : 2); side++) {
                PeerId p = ring.get(side == 0 ? primary + step : primary - step);
                if (p.equals(peer)) return true;
                boolean known = false;
                for (int k = 0; k < counted && !known; k++) known = seen[k].equals(p);
                if (known) continue;
                seen[counted++] = p;
                if (counted >= redundancy) return false;
            }
        }
    }
}
