package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.protocol.ring.RingPosition;

/** {@link HeldArcs} (and its clips to a span) answers as {@link Placement#holds} does, at one point per peer and at many. */
class HeldArcsTest {

    @Test
    void heldArcsAgreeWithThePlacementForEveryPeerAtManyRingShapes() {
        Random r = new Random(11);
        for (int size : new int[] {1, 2, 3, 4, 5, 7, 9, 20, 60}) {
            List<PeerId> peers = new ArrayList<>();
            for (int i = 0; i < size; i++) peers.add(PeerId.random(r));
            for (int v : new int[] {1, 2, 16}) {
                for (int redundancy : new int[] {1, 3, 5}) {
                    Placement placement = new Placement(new Partitions(4), redundancy, v);
                    Ring ring = placement.ring(peers);
                    long[] probes = probes(ring, r);
                    double shares = 0;
                    for (PeerId self : peers) {
                        HeldArcs held = HeldArcs.of(self, placement, ring);
                        boolean[] buckets = held.buckets();
                        for (long x : probes) {
                            boolean holds = placement.holds(self, x, ring);
                            assertEquals(holds, held.contains(x),
                                    "size " + size + " V " + v + " R " + redundancy + " at " + x);
                            if (holds) assertTrue(buckets[Digests.bucketOf(x)], "a held position's bucket is marked");
                            // a clip of the arcs to a span around x (a point, a bucket's width, most of the ring)
                            long width = new long[] {0, RingPosition.MAX >>> Digests.BUCKET_BITS, RingPosition.MAX / 3}[r.nextInt(3)];
                            long lo = x - Math.min(x, r.nextLong(width + 1));
                            long hi = x + Math.min(RingPosition.MAX - x, r.nextLong(width + 1));
                            HeldArcs.Clip clip = held.clip(lo, hi);
                            assertEquals(holds, clip.contains(x), "clip " + lo + ".." + hi + " at " + x);
                            if (holds) assertFalse(clip.isEmpty(), "a clip holding x is not empty");
                        }
                        shares += held.share();
                    }
                    // every position has min(R, size) holders: the shares add up to that
                    assertEquals(Math.min(redundancy, size), shares, 1e-6,
                            "size " + size + " V " + v + " R " + redundancy);
                }
            }
        }
    }

    /** Random positions, and every point's position and its neighbours (the arc ends, where mistakes hide). */
    private static long[] probes(Ring ring, Random r) {
        long[] out = new long[300 + 3 * ring.points()];
        int n = 0;
        for (int k = 0; k < 300; k++) out[n++] = r.nextLong() & RingPosition.MAX;
        for (int i = 0; i < ring.points(); i++) {
            long p = ring.positionAt(i);
            out[n++] = p;
            out[n++] = (p + 1) & RingPosition.MAX;
            out[n++] = (p - 1) & RingPosition.MAX;
        }
        return out;
    }

    @Test
    void aPeerOffTheRingHoldsNothing() {
        Random r = new Random(12);
        List<PeerId> peers = new ArrayList<>();
        for (int i = 0; i < 10; i++) peers.add(PeerId.random(r));
        Placement placement = new Placement(new Partitions(4), 3, 8);
        HeldArcs held = HeldArcs.of(PeerId.random(r), placement, placement.ring(peers));
        assertEquals(0.0, held.share());
        for (int k = 0; k < 100; k++) assertTrue(!held.contains(r.nextLong() & RingPosition.MAX));
    }
}
