package org.peerdex.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.UrlHash;

class UrlPrefixesTest {
    private static List<String> urls(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(UrlHash.of("https://prefix" + (i % 7) + ".test/page/" + i).value());
        return out;
    }

    @Test
    void packsTwoPrefixesInNineBytesAndReadsBackEveryOne() {
        for (int n : new int[] {1, 2, 7, 100}) {
            List<String> hashes = urls(n);
            byte[] packed = UrlPrefixes.pack(hashes);
            assertEquals((n + 1) / 2 * 9, packed.length, n + " URLs");
            Set<String> expected = new HashSet<>();
            for (String h : hashes) expected.add(h.substring(0, UrlPrefixes.CHARS));
            assertEquals(expected, UrlPrefixes.read(packed, n));
        }
        // a URL named twice is packed once
        List<String> twice = new ArrayList<>(urls(3));
        twice.add(twice.get(0));
        assertEquals(18, UrlPrefixes.pack(twice).length);
    }

    @Test
    void refusesTornPacksAndMoreThanTheBound() {
        byte[] packed = UrlPrefixes.pack(urls(10));
        assertThrows(IllegalArgumentException.class, () -> UrlPrefixes.read(Arrays.copyOf(packed, 17), 10));
        assertThrows(IllegalArgumentException.class, () -> UrlPrefixes.read(packed, 8));
        assertEquals(10, UrlPrefixes.read(packed, 10).size());
        assertThrows(IllegalArgumentException.class, () -> new V1.Lookup(new V1.Key(org.peerdex.protocol.hash.WordHash.of("word").value(),
                0), null, null, 5, null, false, false, Arrays.copyOf(packed, 10)));
    }
}
