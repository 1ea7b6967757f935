package org.peerdex.protocol.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.identity.PeerKeys;

/**
 * Property test of load balance: 1,000 peers, 100,000 words x 16 partitions = 1.6M word positions. Prints
 * max/mean and the Gini coefficient of positions per peer, for primaries alone and for all R = 3 holders.
 */
class LoadBalanceTest {
    private static final int PEERS = 1_000;
    private static final int WORDS = 100_000;

    /** Gini coefficient of non-negative counts: 0 = perfectly even, towards 1 = one peer holds all. */
    static double gini(long[] counts) {
        long[] s = counts.clone();
        Arrays.sort(s);
        double weighted = 0;
        double total = 0;
        for (int i = 0; i < s.length; i++) {
            weighted += (i + 1) * (double) s[i];
            total += s[i];
        }
        int n = s.length;
        return (2 * weighted) / (n * total) - (n + 1.0) / n;
    }

    @Test
    void giniOfKnownDistributions() {
        assertEquals(0.0, gini(new long[] {5, 5, 5, 5}), 1e-12);
        assertEquals(0.75, gini(new long[] {0, 0, 0, 8}), 1e-12);
    }

    private record Load(long[] primary, long[] all) {}

    private static Load load(Ring ring, Placement placement) {
        long[] primary = new long[ring.size()];
        long[] all = new long[ring.size()];
        Map<PeerId, Integer> index = new HashMap<>();
        for (PeerId p : ring.members()) index.put(p, index.size());
        Partitions partitions = placement.partitions();
        for (int w = 0; w < WORDS; w++) {
            WordHash word = WordHash.of("word" + w);
            for (int p = 0; p < partitions.count(); p++) {
                long pos = partitions.position(word, p);
                List<PeerId> holders = placement.holders(pos, ring);
                primary[index.get(holders.get(0))]++;
                for (PeerId holder : holders) all[index.get(holder)]++;
            }
        }
        return new Load(primary, all);
    }

    private static String describe(String what, long[] counts) {
        long max = Arrays.stream(counts).max().orElse(0);
        long min = Arrays.stream(counts).min().orElse(0);
        double mean = Arrays.stream(counts).average().orElse(0);
        return String.format("%-44s min %6d  mean %8.1f  max %6d  max/mean %5.2f  Gini %.3f", what, min, mean, max,
                max / mean, gini(counts));
    }

    @Test
    void randomPeersShareTheRingWithinLooseBounds() {
        Random r = new Random(42);
        List<PeerId> peers = new ArrayList<>();
        for (int i = 0; i < PEERS; i++) peers.add(PeerId.random(r));
        Ring ring = Ring.of(peers);
        Placement placement = new Placement(new Partitions(4), 3);
        Load load = load(ring, placement);

        System.out.println("load balance: " + PEERS + " random peers, " + WORDS + " words x 16 partitions");
        System.out.println(describe("  positions per primary", load.primary()));
        System.out.println(describe("  positions per holder (primary + 2 mirrors)", load.all()));

        assertEquals((long) WORDS * 16, Arrays.stream(load.primary()).sum());
        assertEquals((long) WORDS * 16 * 3, Arrays.stream(load.all()).sum());
        assertTrue(Arrays.stream(load.all()).allMatch(c -> c > 0), "every peer holds something");
        assertTrue(gini(load.primary()) < 0.6, "primary Gini");
        assertTrue(gini(load.all()) < gini(load.primary()), "mirrors smooth the load");
        assertTrue(gini(load.all()) < 0.45, "holder Gini");
        double mean = (double) WORDS * 16 / PEERS;
        assertTrue(Arrays.stream(load.primary()).max().orElseThrow() / mean < 12, "primary max/mean");
    }

    @Test
    void peersThatJoinAtTheLargestGapShareTheRingEvenly() {
        Random r = new Random(43);
        Ring ring = Ring.of(List.of(PeerId.random(r)));
        List<PeerId> peers = new ArrayList<>(ring.members());
        for (int i = 1; i < PEERS; i++) {
            ring = ring.with(PeerId.atPosition(ring.middleOfLargestGap().orElseThrow(), r));
        }
        Load load = load(ring, new Placement(new Partitions(4), 3));
        System.out.println("load balance: " + PEERS + " peers placed in the largest gap (YaCy), " + WORDS
                + " words x 16 partitions");
        System.out.println(describe("  positions per primary", load.primary()));
        System.out.println(describe("  positions per holder (primary + 2 mirrors)", load.all()));
        assertEquals(PEERS, ring.size());
        assertTrue(peers.stream().allMatch(ring::contains));
        // gaps are 1/512 or 1/1024 of the ring: far more even than random positions
        assertTrue(gini(load.primary()) < 0.3, "primary Gini");
        assertTrue(Arrays.stream(load.primary()).allMatch(c -> c > 0), "every peer is primary for something");
    }

    /**
     * Ids derived from Ed25519 keys (the open network: nobody picks a position) with V positions per peer
     * (virtual positions, {@link PeerId#position(int)}), placed by the real {@link Ring} and {@link Placement}.
     * Prints the load per physical peer for V = 1..16 next to the largest-gap placement above.
     */
    @Test
    void keyDerivedPeersWithVirtualPositionsApproachTheLargestGapBalance() {
        List<PeerId> ids = new ArrayList<>();
        for (int i = 0; i < PEERS; i++) ids.add(PeerKeys.generate(0).id());
        double[] gini = new double[17];
        double[] maxMean = new double[17];
        System.out.println("load balance: " + PEERS + " key-derived peers, V positions each, " + WORDS
                + " words x 16 partitions");
        for (int v : new int[] {1, 2, 4, 8, 16}) {
            Placement placement = new Placement(new Partitions(4), 3, v);
            Ring ring = placement.ring(ids);
            assertEquals(PEERS, ring.size());
            assertEquals(PEERS * v, ring.points());
            Load load = load(ring, placement);
            gini[v] = gini(load.all());
            maxMean[v] = Arrays.stream(load.all()).max().orElseThrow() / (WORDS * 16.0 * 3 / PEERS);
            System.out.println(describe("  V=" + v + " positions per primary", load.primary()));
            System.out.println(describe("  V=" + v + " positions per holder (R = 3)", load.all()));
        }
        assertTrue(gini[16] < gini[4] && gini[4] < gini[1], "more positions per peer even out the load");
        assertTrue(gini[16] < 0.2, "16 positions per peer: holder Gini " + gini[16]);
        assertTrue(maxMean[16] < 2.2, "16 positions per peer: holder max/mean " + maxMean[16]);
    }
}
