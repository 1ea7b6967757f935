package org.peerdex.simulations;

import java.util.Arrays;
import org.peerdex.actors.dht.shard.HeldArcs;

/**
 * A peer's held arcs as 65,536 slices of the ring, each wholly held, wholly not, or cut by an arc's end (then the
 * arcs are asked): counting every stored posting's copies on its holders asked the arcs once a posting, a binary
 * search that was half of a count. One per scanning thread, {@link #reset} for each peer.
 */
final class HeldSlices {
    private static final int SHIFT = 47; // positions are 63 bits: the top 16 name the slice
    private static final byte OUT = 0;
    private static final byte HELD = 1;
    private static final byte CUT = 2;
    private final byte[] slices = new byte[1 << (63 - SHIFT)];
    private HeldArcs arcs;

    /** Takes {@code arcs}' ranges. */
    HeldSlices reset(HeldArcs arcs) {
        this.arcs = arcs;
        Arrays.fill(slices, OUT);
        arcs.forEachRange((lo, hi) -> {
            int a = (int) (lo >>> SHIFT);
            int b = (int) (hi >>> SHIFT);
            if (b > a + 1) Arrays.fill(slices, a + 1, b, HELD);
            edge(a, lo, hi);
            if (b != a) edge(b, lo, hi);
        });
        return this;
    }

    /** Slice s meets the range lo..hi: held if the range covers it, otherwise cut (unless some range covers it). */
    private void edge(int s, long lo, long hi) {
        long start = (long) s << SHIFT;
        long end = start + ((1L << SHIFT) - 1);
        if (lo <= start && hi >= end) slices[s] = HELD;
        else if (slices[s] != HELD) slices[s] = CUT;
    }

    boolean contains(long position) {
        byte v = slices[(int) (position >>> SHIFT)];
        return v == HELD || v == CUT && arcs.contains(position);
    }
}
