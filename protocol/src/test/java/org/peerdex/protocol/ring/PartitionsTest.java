package org.peerdex.protocol.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;

class PartitionsTest {
    private static final List<String> WORDS = List.of("postgresql", "min_wal_size", "checkpoint", "wal", "größe",
            "журнал", "日志", "2024");

    @Test
    void allWordsOfADocumentFallInTheUrlsPartition() {
        Partitions partitions = new Partitions(4);
        for (int d = 0; d < 500; d++) {
            UrlHash url = UrlHash.of("https://example.org/doc/" + d + ".html");
            int p = partitions.partitionOf(url);
            assertEquals(url.position() >>> 59, p);
            for (String w : WORDS) {
                long pos = partitions.position(WordHash.of(w), url);
                assertEquals(p, partitions.partitionOfPosition(pos), "word " + w + " of " + url);
            }
        }
    }

    @Test
    void everyPartitionIsReachedByUrls() {
        Partitions partitions = new Partitions(4);
        Set<Integer> seen = new HashSet<>();
        for (int d = 0; d < 2000; d++) seen.add(partitions.partitionOf(UrlHash.of("http://h" + d + ".example.com/")));
        assertEquals(16, seen.size());
    }

    @Test
    void aWordHasTwoToTheEPositionsSpacedEvenly() {
        for (int e = 0; e <= 8; e++) {
            Partitions partitions = new Partitions(e);
            assertEquals(1 << e, partitions.count());
            for (String w : WORDS) {
                WordHash word = WordHash.of(w);
                long first = partitions.position(word, 0);
                assertTrue(first >= 0);
                for (int p = 1; p < partitions.count(); p++) {
                    long pos = partitions.position(word, p);
                    assertTrue(pos >= 0);
                    assertEquals(1L << (63 - e), pos - partitions.position(word, p - 1), "e=" + e + " p=" + p);
                    assertEquals(p, partitions.partitionOfPosition(pos));
                }
                // the word's own position is one of its partition positions
                assertEquals(word.position(), partitions.position(word, partitions.partitionOfPosition(word.position())));
            }
        }
    }

    @Test
    void partitionOutOfRangeIsRejected() {
        Partitions partitions = new Partitions(4);
        assertThrows(IllegalArgumentException.class, () -> partitions.position(WordHash.of("x"), 16));
        assertThrows(IllegalArgumentException.class, () -> partitions.position(WordHash.of("x"), -1));
        assertThrows(IllegalArgumentException.class, () -> new Partitions(9));
        assertThrows(IllegalArgumentException.class, () -> new Partitions(-1));
    }
}
