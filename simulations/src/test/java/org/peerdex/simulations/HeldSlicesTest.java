package org.peerdex.simulations;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.shard.HeldArcs;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.protocol.ring.RingPosition;

/** The sliced arcs answer as the arcs do, at random positions and at every arc's ends and their neighbours. */
class HeldSlicesTest {
    @Test
    void slicesAgreeWithTheArcsEverywhereOnRingsSmallAndLarge() {
        Random r = new Random(5);
        HeldSlices slices = new HeldSlices();
        for (int size : new int[] {1, 2, 5, 40, 500}) {
            List<PeerId> peers = new ArrayList<>();
            for (int i = 0; i < size; i++) peers.add(PeerId.random(r));
            Placement placement = new Placement(new Partitions(4), 3, 16);
            Ring ring = placement.ring(peers);
            for (PeerId self : peers.subList(0, Math.min(size, 20))) {
                HeldArcs arcs = HeldArcs.uncached(self, placement, ring);
                slices.reset(arcs); // reused, as a scanning thread reuses it from peer to peer
                List<Long> probes = new ArrayList<>();
                for (int k = 0; k < 2_000; k++) probes.add(r.nextLong() & RingPosition.MAX);
                arcs.forEachRange((lo, hi) -> {
                    for (long p : new long[] {lo, hi}) {
                        for (long d = -2; d <= 2; d++) probes.add((p + d) & RingPosition.MAX);
                        // the ends of the slices around each arc end
                        long start = p & ~((1L << 47) - 1);
                        probes.add(start);
                        probes.add((start - 1) & RingPosition.MAX);
                        probes.add(start + (1L << 47) - 1);
                    }
                });
                for (long x : probes) assertEquals(arcs.contains(x), slices.contains(x), "size " + size + " at " + x);
            }
        }
    }
}
