package org.peerdex.protocol.ring;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;

/**
 * Where a position's data lives: the primary is the clockwise successor among live peers; its mirrors are its
 * neighbours to the right and left, alternating (right first, so that the peer which becomes primary when the
 * primary dies already holds a copy). A ring of fewer than R peers keeps every copy it can.
 */
public record Placement(Partitions partitions, int redundancy) {
    public static final int DEFAULT_REDUNDANCY = 3;

    public Placement {
        if (redundancy < 1) throw new IllegalArgumentException("redundancy must be at least 1");
    }

    public static Placement defaults() {
        return new Placement(new Partitions(Partitions.DEFAULT_EXPONENT), DEFAULT_REDUNDANCY);
    }

    /** The holders of a position, primary first, then mirrors; distinct, at most min(R, ring size). */
    public List<PeerId> holders(long position, Ring ring) {
        if (ring.isEmpty()) return List.of();
        int n = Math.min(redundancy, ring.size());
        int primary = ring.successorIndex(position);
        Set<PeerId> out = new LinkedHashSet<>();
        out.add(ring.get(primary));
        for (int step = 1; out.size() < n; step++) {
            out.add(ring.get(primary + step));
            if (out.size() < n) out.add(ring.get(primary - step));
        }
        return new ArrayList<>(out);
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
        // the first R of primary, +1, -1, +2, ... are distinct when the ring has at least R peers (as holders())
        int primary = ring.successorIndex(position);
        if (ring.get(primary).equals(peer)) return true;
        int counted = 1;
        for (int step = 1; counted < redundancy; step++) {
            if (ring.get(primary + step).equals(peer)) return true;
            if (++counted >= redundancy) break;
            if (ring.get(primary - step).equals(peer)) return true;
            counted++;
        }
        return false;
    }
}
