package org.peerdex.protocol.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;

class PlacementTest {
    private static final long TENTH = RingPosition.MAX / 10;

    /** Peers at 1/10, 3/10, 5/10, 7/10 and 9/10 of the ring. */
    private static List<PeerId> fivePeers() {
        Random r = new Random(1);
        List<PeerId> peers = new ArrayList<>();
        for (int i = 1; i <= 9; i += 2) peers.add(PeerId.atPosition(i * TENTH, r));
        return peers;
    }

    @Test
    void primaryIsTheClockwiseSuccessorAndMirrorsAreItsRightAndLeftNeighbours() {
        List<PeerId> p = fivePeers();
        Ring ring = Ring.of(p);
        Placement placement = new Placement(new Partitions(4), 3);
        // a position between peer 1 (3/10) and peer 2 (5/10): primary 2, mirrors 3 (right) and 1 (left)
        assertEquals(List.of(p.get(2), p.get(3), p.get(1)), placement.holders(4 * TENTH, ring));
        // exactly on a peer: that peer is the primary
        assertEquals(p.get(2), placement.holders(p.get(2).position(), ring).get(0));
        // wrapping: after the last peer comes the first
        assertEquals(List.of(p.get(0), p.get(1), p.get(4)), placement.holders(RingPosition.MAX, ring));
        assertEquals(List.of(p.get(0), p.get(1), p.get(4)), placement.holders(0, ring));
        // R = 5 over 5 peers: right and left alternate outwards
        assertEquals(List.of(p.get(2), p.get(3), p.get(1), p.get(4), p.get(0)),
                new Placement(new Partitions(4), 5).holders(4 * TENTH, ring));
    }

    @Test
    void placementPicksRDistinctPeersWhenTheRingHasAtLeastR() {
        Random r = new Random(2);
        for (int size = 1; size <= 12; size++) {
            List<PeerId> peers = new ArrayList<>();
            for (int i = 0; i < size; i++) peers.add(PeerId.random(r));
            Ring ring = Ring.of(peers);
            for (int redundancy = 1; redundancy <= 6; redundancy++) {
                Placement placement = new Placement(new Partitions(4), redundancy);
                for (int k = 0; k < 50; k++) {
                    List<PeerId> holders = placement.holders(WordHash.of("w" + k), k % 16, ring);
                    assertEquals(Math.min(size, redundancy), holders.size(), "size " + size + " R " + redundancy);
                    assertEquals(holders.size(), new HashSet<>(holders).size(), "holders must be distinct");
                    assertTrue(peers.containsAll(holders));
                }
            }
        }
    }

    @Test
    void anEmptyRingHasNoHolders() {
        assertEquals(List.of(), Placement.defaults().holders(123, Ring.empty()));
    }

    @Test
    void wordHoldersFollowTheUrlsPartition() {
        Random r = new Random(3);
        List<PeerId> peers = new ArrayList<>();
        for (int i = 0; i < 50; i++) peers.add(PeerId.random(r));
        Ring ring = Ring.of(peers);
        Placement placement = Placement.defaults();
        WordHash w = WordHash.of("checkpoint");
        UrlHash u = UrlHash.of("https://www.postgresql.org/docs/current/wal-configuration.html");
        assertEquals(placement.holders(w, placement.partitions().partitionOf(u), ring), placement.holders(w, u, ring));
        List<PeerId> meta = placement.metadataHolders(u, ring);
        assertEquals(ring.get(ring.successorIndex(u.position())), meta.get(0));
        assertTrue(placement.holds(meta.get(1), u.position(), ring));
        PeerId outsider = peers.stream().filter(p -> !meta.contains(p)).findFirst().orElseThrow();
        assertFalse(placement.holds(outsider, u.position(), ring));
    }

    @Test
    void redundancyBelowOneIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new Placement(new Partitions(4), 0));
    }

    @Test
    void holdsAgreesWithTheHolderListForEveryRingSizeRedundancyAndPositionsPerPeer() {
        Random r = new Random(7);
        for (int size = 1; size <= 12; size++) {
            List<PeerId> peers = new ArrayList<>();
            for (int i = 0; i < size; i++) peers.add(PeerId.random(r));
            for (int v : new int[] {1, 3, 16}) {
                for (int redundancy = 1; redundancy <= 5; redundancy++) {
                    Placement placement = new Placement(new Partitions(4), redundancy, v);
                    Ring ring = placement.ring(peers);
                    for (int k = 0; k < 200; k++) {
                        long position = r.nextLong() & RingPosition.MAX;
                        List<PeerId> holders = placement.holders(position, ring);
                        assertEquals(Math.min(redundancy, size), holders.size(), "R distinct holders");
                        assertEquals(ring.successor(position).orElseThrow(), holders.get(0), "the primary first");
                        for (PeerId p : peers) {
                            assertEquals(holders.contains(p), placement.holds(p, position, ring),
                                    "size " + size + ", V " + v + ", R " + redundancy + ", peer " + p + ", holders "
                                            + holders);
                        }
                    }
                }
            }
        }
        assertFalse(Placement.defaults().holds(PeerId.random(r), 0, Ring.empty()));
    }
}
