package org.peerdex.protocol.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.PeerId;

class AdmissionTest {
    @Test
    void aPrefixHoldsAtMostItsQuotaAndAPlaceFreesWhenAPeerIsCountedOut() {
        Admission a = new Admission(1000, 4, 4, 6);
        Random r = new Random(3);
        List<PeerId> same = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            PeerId id = PeerId.random(r);
            same.add(id);
            assertEquals(Optional.empty(), a.admit(id, "203.0.113.0/24"));
        }
        assertEquals(Optional.of("prefix full"), a.admit(PeerId.random(r), "203.0.113.0/24"));
        assertEquals(Optional.empty(), a.admit(PeerId.random(r), "198.51.100.0/24"), "another prefix is open");
        a.remove(same.get(0), "203.0.113.0/24");
        assertEquals(3, a.atPrefix("203.0.113.0/24"));
        assertEquals(Optional.empty(), a.admit(PeerId.random(r), "203.0.113.0/24"));
    }

    @Test
    void idsCrowdingOneArcAreRefusedWhileRandomIdsFromManyAddressesAllEnter() {
        Admission a = new Admission(1000, 4, 4, 6);
        Random r = new Random(5);
        // 200 honest peers: random ids, each at a prefix of its own. While the ring is small an arc may fill by
        // chance (a bound of 4 per arc until 128 members); such a peer is refused for now and enters when it says
        // hello again later, as the bound grows with the ring (twice the even share)
        List<PeerId> later = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            PeerId id = PeerId.random(r);
            if (a.admit(id, "10." + i + ".0/24").isPresent()) later.add(id);
        }
        assertTrue(later.size() <= 10, later.size() + " of 200 honest peers refused");
        for (int i = 0; i < later.size(); i++) assertEquals(Optional.empty(), a.admit(later.get(i), "10.1." + i + "/24"));
        // a Sybil operator with fresh prefixes ground ids into the arc of one position: only up to the arc's bound
        long arcStart = 17L << (63 - 6);
        int admitted = 0;
        int refused = 0;
        for (int i = 0; i < 64; i++) {
            PeerId sybil = PeerId.atPosition(arcStart + i * (1L << 40), r);
            Optional<String> why = a.admit(sybil, "192.0." + i + ".0/24");
            if (why.isEmpty()) admitted++;
            else {
                assertEquals("arc full", why.get());
                refused++;
            }
        }
        int limit = Math.max(4, 2 * (int) Math.ceil(a.members() / 64.0));
        assertTrue(admitted <= limit, admitted + " Sybils entered one arc (bound " + limit + ")");
        assertTrue(refused >= 64 - limit, "refused " + refused);
    }

    @Test
    void withSixteenPositionsEveryPointCountsInItsArc() {
        Admission a = new Admission(1000, 4, 4, 6, 16);
        Random r = new Random(6);
        // 200 honest peers with 16 points each: the bound is twice the even share of points (16 x members / 64) and
        // a margin of 3 standard deviations
        int refused = 0;
        for (int i = 0; i < 200; i++) if (a.admit(PeerId.random(r), "10." + i + ".0/24").isPresent()) refused++;
        assertTrue(refused <= 4, refused + " of 200 honest peers refused");
        // Sybils that each put one of their 16 points into the same arc: that arc fills at twice its even share
        long arcStart = 17L << (63 - 6);
        int admitted = 0;
        for (int i = 0; i < 200; i++) {
            PeerId sybil = PeerId.atPosition(arcStart + i * (1L << 40), r); // point 0 in arc 17
            if (a.admit(sybil, "192.0." + i + ".0/24").isEmpty()) admitted++;
        }
        double even = a.members() * 16 / 64.0;
        int bound = 2 * (int) Math.ceil(even) + (int) Math.ceil(3 * Math.sqrt(even));
        assertTrue(admitted <= bound, admitted + " Sybils with a point in one arc (bound " + bound + ")");
        assertTrue(admitted < 200, "the arc filled");
        // counting a peer out frees every arc its points were in
        Admission b = new Admission(10, 4, 1, 6, 16);
        PeerId one = PeerId.random(r);
        assertEquals(Optional.empty(), b.admit(one, "p"));
        b.remove(one, "p");
        assertEquals(Optional.empty(), b.admit(one, "p"));
    }

    @Test
    void theDirectoryIsBounded() {
        Admission a = new Admission(3, 4, 4, 0);
        Random r = new Random(7);
        for (int i = 0; i < 3; i++) assertEquals(Optional.empty(), a.admit(PeerId.random(r), "p" + i));
        assertEquals(Optional.of("directory full"), a.admit(PeerId.random(r), "p9"));
    }
}
