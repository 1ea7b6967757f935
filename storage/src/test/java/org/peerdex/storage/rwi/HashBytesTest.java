package org.peerdex.storage.rwi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.RingPosition;

class HashBytesTest {

    @Test
    void packedOrderIsRingOrder() {
        Random r = new Random(21);
        for (int i = 0; i < 100_000; i++) {
            String a = PeerId.random(r).value();
            String b = i % 10 == 0 ? a.substring(0, 10) + PeerId.random(r).value().substring(10)
                    : PeerId.random(r).value();
            int bytes = Integer.signum(Arrays.compareUnsigned(HashBytes.pack(a), HashBytes.pack(b)));
            int ring = Long.signum(Long.compare(RingPosition.of(a), RingPosition.of(b)));
            if (ring != 0) {
                assertEquals(ring, bytes, a + " vs " + b);
            } else {
                // equal positions: the last two characters decide, in alphabet order
                assertEquals(Integer.signum(alphabetCompare(a, b)), bytes, a + " vs " + b);
            }
        }
    }

    private static int alphabetCompare(String a, String b) {
        for (int i = 0; i < a.length(); i++) {
            int d = Base64Order.value(a.charAt(i)) - Base64Order.value(b.charAt(i));
            if (d != 0) return d;
        }
        return 0;
    }

    @Test
    void packRoundTrips() {
        Random r = new Random(22);
        for (int i = 0; i < 10_000; i++) {
            String h = PeerId.random(r).value();
            byte[] packed = HashBytes.pack(h);
            assertEquals(HashBytes.PACKED, packed.length);
            assertEquals(h, HashBytes.unpack(packed, 0));
        }
        assertEquals("AAAAAAAAAAAA", HashBytes.unpack(new byte[9], 0));
        byte[] ones = new byte[9];
        Arrays.fill(ones, (byte) 0xff);
        assertEquals("____________", HashBytes.unpack(ones, 0));
    }

    @Test
    void malformedHashesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> HashBytes.pack("short"));
        assertThrows(IllegalArgumentException.class, () -> HashBytes.pack("AAAAAAAAAAA+"));
    }
}
