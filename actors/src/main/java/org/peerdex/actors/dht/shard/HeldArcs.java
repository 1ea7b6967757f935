package org.peerdex.actors.dht.shard;

import java.util.Arrays;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.protocol.ring.RingPosition;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * The positions a peer holds in a ring, as a few arcs: the holders of a position depend only on its primary (the
 * peer at the clockwise end of its arc), so the held positions are the arcs ending at the peers around it whose
 * positions it holds. Checking a position then costs a few comparisons instead of a ring search; equal to
 * {@link Placement#holds} (peers sharing a position fall back to it). Immutable.
 */
public final class HeldArcs {
    private final PeerId self;
    private final Placement placement;
    private final Ring ring;
    /** ask the placement itself (a small ring, or peers sharing a position) */
    private final boolean fallback;
    private final long[] starts; // exclusive
    private final long[] ends; // inclusive

    private HeldArcs(PeerId self, Placement placement, Ring ring, boolean fallback, long[] starts, long[] ends) {
        this.self = self;
        this.placement = placement;
        this.ring = ring;
        this.fallback = fallback;
        this.starts = starts;
        this.ends = ends;
    }

    public static HeldArcs of(PeerId self, Placement placement, Ring ring) {
        int at = ring.indexOf(self);
        int r = placement.redundancy();
        if (at < 0) return new HeldArcs(self, placement, ring, false, new long[0], new long[0]);
        // a small ring: arcs around the peer would overlap; ask the placement (buckets: all)
        if (ring.size() <= 2 * r + 2) return new HeldArcs(self, placement, ring, true, null, null);
        long[] starts = new long[2 * r + 3];
        long[] ends = new long[2 * r + 3];
        int n = 0;
        for (int d = -r - 1; d <= r + 1; d++) {
            long start = ring.get(at + d - 1).position();
            long end = ring.get(at + d).position();
            if (start == end) return new HeldArcs(self, placement, ring, true, null, null);
            if (!placement.holds(self, end, ring)) continue;
            starts[n] = start;
            ends[n] = end;
            n++;
        }
        return new HeldArcs(self, placement, ring, false, Arrays.copyOf(starts, n), Arrays.copyOf(ends, n));
    }

    public boolean contains(long position) {
        if (fallback) return placement.holds(self, position, ring);
        for (int i = 0; i < starts.length; i++) {
            if (ReverseWordIndex.inRange(position, starts[i], ends[i])) return true;
        }
        return false;
    }

    /** The digest buckets that contain a held position. */
    public boolean[] buckets() {
        boolean[] out = new boolean[Digests.BUCKETS];
        if (fallback) {
            Arrays.fill(out, true);
            return out;
        }
        for (int i = 0; i < starts.length; i++) {
            int from = Digests.bucketOf((starts[i] + 1) & RingPosition.MAX);
            int to = Digests.bucketOf(ends[i]);
            for (int b = from; ; b = (b + 1) % Digests.BUCKETS) {
                out[b] = true;
                if (b == to) break;
            }
        }
        return out;
    }
}
