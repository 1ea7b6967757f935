package org.peerdex.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.UrlHash;

class PrefixScoresTest {
    /** A best-first list of n URLs of real hashes, scores falling by random drops (some equal, some far apart). */
    private static List<PrefixScores.Entry> list(int n, long seed) {
        Random r = new Random(seed);
        List<PrefixScores.Entry> out = new ArrayList<>();
        int units = PrefixScores.MAX_UNITS - r.nextInt(30_000);
        for (int i = 0; i < n; i++) {
            String hash = UrlHash.of("https://site" + r.nextInt(50) + ".test/" + i).value();
            out.add(new PrefixScores.Entry(hash.substring(0, UrlPrefixes.CHARS), units));
            int drop = r.nextInt(10) == 0 ? r.nextInt(3000) : r.nextInt(4) == 0 ? 0 : r.nextInt(100);
            units = Math.max(0, units - drop);
        }
        return out;
    }

    @Test
    void readsBackEveryPrefixAndScoreInOrderAtAboutSixBytesAnEntry() {
        for (int n : new int[] {0, 1, 2, 28, 112, 1000}) {
            List<PrefixScores.Entry> entries = list(n, n);
            byte[] bytes = PrefixScores.write(entries);
            assertEquals(entries, PrefixScores.read(bytes, n), n + " entries");
            assertEquals(n, PrefixScores.count(bytes), "counted without reading");
            if (n > 0) {
                assertEquals(n - 1, PrefixScores.count(java.util.Arrays.copyOf(bytes, bytes.length - 1)),
                        "a cut last entry is not counted");
            }
            if (n >= 28) assertTrue(bytes.length <= n * 6.6, bytes.length + " bytes for " + n + " entries");
        }
        // the extremes of a score
        List<PrefixScores.Entry> edges = List.of(new PrefixScores.Entry("_-zZ09", PrefixScores.MAX_UNITS),
                new PrefixScores.Entry("AAAAAA", 0));
        assertEquals(edges, PrefixScores.read(PrefixScores.write(edges), 2));
    }

    @Test
    void refusesRisingScoresTornEntriesSpareBitsAndMoreThanTheBound() {
        assertThrows(IllegalArgumentException.class, () -> PrefixScores.write(List.of(
                new PrefixScores.Entry("AAAAAB", 10), new PrefixScores.Entry("AAAAAC", 11))));
        byte[] bytes = PrefixScores.write(list(20, 7));
        assertThrows(IllegalArgumentException.class, () -> PrefixScores.read(Arrays.copyOf(bytes, bytes.length - 1), 20));
        assertThrows(IllegalArgumentException.class, () -> PrefixScores.read(Arrays.copyOf(bytes, 3), 20));
        assertThrows(IllegalArgumentException.class, () -> PrefixScores.read(bytes, 19));
        byte[] spare = bytes.clone();
        spare[4] |= 1;
        assertThrows(IllegalArgumentException.class, () -> PrefixScores.read(spare, 20));
        // a drop below 0: the first entry falls further than the largest score
        byte[] below = {0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 0x04};
        assertThrows(IllegalArgumentException.class, () -> PrefixScores.read(below, 20));
        assertThrows(IllegalArgumentException.class, () -> new PrefixScores.Entry("AAAAA", 1));
        assertThrows(IllegalArgumentException.class, () -> new PrefixScores.Entry("AAAAAA", PrefixScores.MAX_UNITS + 1));
    }
}
