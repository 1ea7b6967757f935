package org.peerdex.simulations;

import java.util.Arrays;
import org.peerdex.actors.dht.shard.HeldArcs;

/**
 * A peer's held arcs as 65,536 slices of the ring, each wholly held, wholly not, or cut by an arc's end: counting
 * every stored posting's copies on its holders asked the arcs once a posting, a binary search that was half of a
 * count. A cut slice keeps the first arc that reaches into it, and a position there is checked against the few arcs
 * from that one on (the arcs' binary search over every arc was still half of a count at 500 peers, where an arc
 * spans about 20 slices and the postings a peer stores lie in its arcs, a tenth of them in cut slices). One per
 * scanning thread, {@link #reset} for each peer.
 */
final class HeldSlices {
    private static final int SHIFT = 47; // positions are 63 bits: the top 16 name the slice
    private static final byte OUT = 0;
    private static final byte HELD = 1;
    private static final byte CUT = 2;
    private final byte[] slices = new byte[1 << (63 - SHIFT)];
    /** per cut slice: the index of the first arc that reaches into it */
    private final int[] first = new int[1 << (63 - SHIFT)];
    private long[] los = new long[64];
    private long[] his = new long[64];
    private int arcs;

    /** Takes {@code held}'s ranges. */
    HeldSlices reset(HeldArcs held) {
        Arrays.fill(slices, OUT);
        arcs = 0;
        held.forEachRange((lo, hi) -> {
            if (arcs == los.length) {
                los = Arrays.copyOf(los, 2 * arcs);
                his = Arrays.copyOf(his, 2 * arcs);
            }
            int index = arcs++;
            los[index] = lo;
            his[index] = hi;
            int a = (int) (lo >>> SHIFT);
            int b = (int) (hi >>> SHIFT);
            if (b > a + 1) Arrays.fill(slices, a + 1, b, HELD);
            edge(a, lo, hi, index);
            if (b != a) edge(b, lo, hi, index);
        });
        return this;
    }

    /** Slice s meets arc {@code index}, lo..hi: held if the arc covers it, otherwise cut (unless some arc covers it). */
    private void edge(int s, long lo, long hi, int index) {
        long start = (long) s << SHIFT;
        long end = start + ((1L << SHIFT) - 1);
        if (lo <= start && hi >= end) slices[s] = HELD;
        else if (slices[s] == OUT) {
            // arcs come sorted: the first to reach a slice is the lowest
            slices[s] = CUT;
            first[s] = index;
        }
    }

    boolean contains(long position) {
        int s = (int) (position >>> SHIFT);
        byte v = slices[s];
        if (v != CUT) return v == HELD;
        // the arcs are sorted and disjoint: those from the first reaching into the slice, up to the position
        for (int i = first[s]; i < arcs && los[i] <= position; i++) if (position <= his[i]) return true;
        return false;
    }
}
