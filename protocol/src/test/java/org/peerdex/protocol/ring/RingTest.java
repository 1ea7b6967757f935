package org.peerdex.protocol.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.PeerId;

class RingTest {
    private static final long QUARTER = RingPosition.MAX / 4;

    @Test
    void membersAreSortedByPositionAndDeduplicated() {
        Random r = new Random(1);
        List<PeerId> peers = new ArrayList<>();
        for (int i = 0; i < 100; i++) peers.add(PeerId.random(r));
        peers.add(peers.get(0));
        Ring ring = Ring.of(peers);
        assertEquals(100, ring.size());
        for (int i = 1; i < ring.size(); i++) assertTrue(ring.get(i - 1).position() <= ring.get(i).position());
        for (PeerId p : peers) assertEquals(p, ring.get(ring.pointsOf(p)[0]));
        assertEquals(ring.get(0), ring.get(100), "indices wrap");
        assertEquals(ring.get(99), ring.get(-1), "indices wrap");
    }

    @Test
    void aRingWithoutAPeerIsTheRingOfTheOthersAndIsKeptForTheNextAsk() {
        Random r = new Random(5);
        for (int v : new int[] {1, 4, 16}) {
            List<PeerId> peers = new ArrayList<>();
            for (int i = 0; i < 300; i++) peers.add(PeerId.random(r));
            // two peers sharing a position (equal prefixes) order their points by id: cutting one keeps the other's
            peers.add(new PeerId(peers.get(7).value().substring(0, 10) + "zz"));
            Ring ring = Ring.of(peers, v);
            for (PeerId gone : List.of(peers.get(0), peers.get(7), peers.get(150), peers.get(300))) {
                List<PeerId> others = new ArrayList<>(peers);
                others.remove(gone);
                Ring cut = ring.without(gone);
                Ring built = Ring.of(others, v);
                assertEquals(built, cut, "v = " + v);
                assertEquals(built.members(), cut.members(), "v = " + v);
                assertTrue(built.sameMembers(cut));
                assertEquals(others.size(), cut.size());
                assertTrue(cut == ring.without(gone), "the same ring again");
            }
            assertTrue(ring == ring.without(PeerId.random(r)), "a peer not on the ring leaves it as it is");
        }
    }

    @Test
    void ringsOfTheSamePeersAreEqualWhateverOrderTheyCameInAndOthersAreNot() {
        Random r = new Random(3);
        List<PeerId> peers = new ArrayList<>();
        for (int i = 0; i < 20; i++) peers.add(PeerId.random(r));
        List<PeerId> reversed = new ArrayList<>(peers);
        java.util.Collections.reverse(reversed);
        assertEquals(Ring.of(peers), Ring.of(reversed));
        assertEquals(Ring.of(peers).hashCode(), Ring.of(reversed).hashCode());
        assertFalse(Ring.of(peers).equals(Ring.of(peers).without(peers.get(5))));
        assertFalse(Ring.of(peers).equals(Ring.of(peers.subList(0, 19)).with(PeerId.random(r))));
        // the same members, as the member lists compare, without copying them
        assertTrue(Ring.of(peers).sameMembers(Ring.of(reversed)));
        assertTrue(Ring.of(peers, 16).sameMembers(Ring.of(reversed, 16)));
        assertFalse(Ring.of(peers).sameMembers(Ring.of(peers).without(peers.get(5))));
        assertFalse(Ring.of(peers).sameMembers(null));
        assertEquals(Ring.of(peers, 16).members().equals(Ring.of(peers, 1).members()),
                Ring.of(peers, 16).sameMembers(Ring.of(peers, 1)));
    }

    @Test
    void withAndWithoutChangeMembership() {
        Random r = new Random(2);
        PeerId a = PeerId.random(r);
        PeerId b = PeerId.random(r);
        Ring ring = Ring.empty().with(a).with(b);
        assertTrue(ring.contains(a) && ring.contains(b));
        Ring less = ring.without(a);
        assertFalse(less.contains(a));
        assertEquals(1, less.size());
        assertTrue(ring.contains(a), "a ring is immutable");
    }

    @Test
    void successorWrapsAroundTheRing() {
        Random r = new Random(3);
        PeerId q1 = PeerId.atPosition(QUARTER, r);
        PeerId q3 = PeerId.atPosition(3 * QUARTER, r);
        Ring ring = Ring.of(List.of(q3, q1));
        assertEquals(Optional.of(q1), ring.successor(0));
        assertEquals(Optional.of(q1), ring.successor(q1.position()));
        assertEquals(Optional.of(q3), ring.successor(q1.position() + 1));
        assertEquals(Optional.of(q1), ring.successor(q3.position() + 1));
        assertEquals(Optional.empty(), Ring.empty().successor(5));
    }

    @Test
    void middleOfLargestGapLiesBetweenTheTwoFarthestNeighbours() {
        Random r = new Random(4);
        PeerId a = PeerId.atPosition(0, r);
        PeerId b = PeerId.atPosition(QUARTER, r);
        // gaps: a->b one quarter, b->a three quarters (wrapping): the middle is at 5/8 of the ring
        long middle = Ring.of(List.of(a, b)).middleOfLargestGap().orElseThrow();
        assertEquals(b.position() + RingPosition.distance(b.position(), a.position()) / 2, middle);
        assertTrue(Math.abs(middle - 5 * (RingPosition.MAX / 8)) < 16);
        assertEquals(Optional.empty(), Ring.empty().middleOfLargestGap());
    }

    @Test
    void middleOfLargestGapOfOnePeerIsOppositeIt() {
        Random r = new Random(5);
        PeerId a = PeerId.atPosition(3 * QUARTER, r);
        long middle = Ring.of(List.of(a)).middleOfLargestGap().orElseThrow();
        assertEquals(RingPosition.MAX / 2, RingPosition.distance(a.position(), middle), 8);
    }

    @Test
    void peersJoiningAtTheLargestGapSplitTheRingEvenly() {
        Random r = new Random(6);
        Ring ring = Ring.of(List.of(PeerId.random(r)));
        for (int i = 1; i < 64; i++) ring = ring.with(PeerId.atPosition(ring.middleOfLargestGap().orElseThrow(), r));
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < ring.size(); i++) {
            long d = RingPosition.distance(ring.get(i).position(), ring.get(i + 1).position());
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        // 64 = 2^6 peers: every gap is 1/64 of the ring, up to the 3 bits a hash cannot express
        assertTrue((double) max / min < 1.0001, "max/min gap " + (double) max / min);
    }

    @Test
    void virtualPositionsPutEveryPeerAtVPointsThatFollowFromItsId() {
        Random r = new Random(5);
        List<PeerId> peers = new ArrayList<>();
        for (int i = 0; i < 50; i++) peers.add(PeerId.random(r));
        Ring ring = Ring.of(peers, 8);
        assertEquals(50, ring.size());
        assertEquals(400, ring.points());
        assertEquals(8, ring.positionsPerPeer());
        for (int i = 1; i < ring.points(); i++) assertTrue(ring.positionAt(i - 1) <= ring.positionAt(i));
        for (PeerId p : peers) {
            int[] points = ring.pointsOf(p);
            assertEquals(8, points.length, "one point per position of " + p);
            java.util.Set<Long> expected = new java.util.HashSet<>();
            for (int v = 0; v < 8; v++) expected.add(p.position(v));
            for (int i : points) {
                assertEquals(p, ring.get(i));
                assertTrue(expected.contains(ring.positionAt(i)), "points lie at the id's own positions");
            }
            assertTrue(ring.contains(p));
        }
        assertEquals(peers.size(), new java.util.HashSet<>(ring.members()).size(), "members are listed once");
        // a position is at the peer whose point is the first at or after it
        for (int k = 0; k < 1000; k++) {
            long x = r.nextLong() & RingPosition.MAX;
            int s = ring.successorIndex(x);
            assertTrue(ring.positionAt(s) >= x || s == 0, "successor point at or after the position");
            if (s > 0) assertTrue(ring.positionAt(s - 1) < x, "no point between");
        }
        Ring without = ring.without(peers.get(3));
        assertEquals(392, without.points());
        assertFalse(without.contains(peers.get(3)));
        assertEquals(0, without.pointsOf(peers.get(3)).length);
        assertEquals(ring, without.with(peers.get(3)));
        assertFalse(ring.equals(Ring.of(peers, 4)), "the same peers at fewer points are another ring");
    }

    @Test
    void virtualPositionZeroIsTheIdsOwnPositionAndTheOthersAreItsHashes() {
        PeerId p = PeerId.random(new Random(9));
        assertEquals(p.position(), p.position(0));
        assertEquals(p.position(5), p.position(5), "deterministic");
        assertTrue(p.position(1) != p.position(2));
        assertTrue(p.position(1) >= 0 && (p.position(1) & 7) == 7, "a position as a hash prefix gives it");
    }
}
