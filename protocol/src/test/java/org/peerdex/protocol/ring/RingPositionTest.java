package org.peerdex.protocol.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.WordHash;

class RingPositionTest {

    @Test
    void positionsArePositiveAndCoverTheWholeRing() {
        assertEquals(7L, RingPosition.of("AAAAAAAAAAAA"));
        assertEquals(Long.MAX_VALUE, RingPosition.of("__________AA"));
        Random r = new Random(11);
        for (int i = 0; i < 10_000; i++) {
            assertTrue(WordHash.of("w" + r.nextInt()).position() >= 0);
        }
    }

    @Test
    void positionOrderIsHashOrder() {
        Random r = new Random(12);
        for (int i = 0; i < 10_000; i++) {
            String a = WordHash.of("a" + r.nextInt()).value();
            String b = WordHash.of("b" + r.nextInt()).value();
            int byHash = Integer.signum(a.substring(0, 10).compareTo(b.substring(0, 10)));
            // String.compareTo is ASCII order, which is not the alphabet order; compare by alphabet values instead
            int byAlphabet = 0;
            for (int k = 0; k < 10 && byAlphabet == 0; k++) {
                byAlphabet = Integer.compare(Base64Order.value(a.charAt(k)), Base64Order.value(b.charAt(k)));
            }
            assertEquals(Integer.signum(byAlphabet), Long.signum(Long.compare(RingPosition.of(a), RingPosition.of(b))),
                    a + " vs " + b + " (ascii order " + byHash + ")");
        }
    }

    @Test
    void hashPrefixRoundTripsThroughItsPosition() {
        Random r = new Random(13);
        for (int i = 0; i < 10_000; i++) {
            String h = WordHash.of("x" + i).value().substring(0, 10);
            assertEquals(h, RingPosition.toHashPrefix(RingPosition.of(h)));
            long pos = r.nextLong() & RingPosition.MAX;
            long back = RingPosition.of(RingPosition.toHashPrefix(pos));
            // the greatest expressible position not above pos: equal in all but the 3 low bits
            assertEquals(pos | 7, back);
        }
    }

    @Test
    void shortHashesArePaddedAndBadCharactersRejected() {
        assertEquals(RingPosition.of("BAAAAAAAAA"), RingPosition.of("B"));
        assertThrows(IllegalArgumentException.class, () -> RingPosition.of("AB+"));
    }

    @Test
    void distanceIsClockwiseAndWraps() {
        assertEquals(10, RingPosition.distance(5, 15));
        assertEquals(RingPosition.MAX - 9, RingPosition.distance(15, 5));
        assertEquals(0, RingPosition.distance(42, 42));
        assertEquals(1, RingPosition.distance(RingPosition.MAX, 0));
    }
}
