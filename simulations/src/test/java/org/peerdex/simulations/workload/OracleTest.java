package org.peerdex.simulations.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.ReverseWordIndex;

/** The oracle's posting ids read from stored keys: the same as from the decoded hashes, for every posting. */
class OracleTest {
    @Test
    void everyStoredKeyNamesItsPostingAndAKeyOfAnUnknownDocumentNone() {
        Corpus corpus = new Corpus(new Corpus.Settings(400, 3000, 1.0, 60, 0.7), 17);
        Oracle oracle = new Oracle(new Partitions(4));
        for (int d = 0; d < 400; d++) oracle.add(corpus.document(d));
        oracle.seal();
        Set<Integer> ids = new HashSet<>();
        int[] unknown = {0};
        oracle.centralStorage().rwi().scanEntries((key, value) -> {
            Posting p = ReverseWordIndex.decode(key, value);
            int id = oracle.postingId(key);
            assertEquals(oracle.postingId(p.word(), p.url()), id, p.toString());
            assertTrue(id >= 0, p.toString());
            ids.add(id);
            byte[] other = key.clone();
            other[ReverseWordIndex.URL_OFFSET + 8] ^= 1; // another URL hash: no document of the corpus
            if (oracle.postingId(other) < 0) unknown[0]++;
        });
        assertEquals(oracle.totalPostings(), ids.size(), "every posting met once, under its own id");
        assertEquals(oracle.totalPostings(), unknown[0]);
        // keys out of scan order (backwards, and jumping between words) find the same ids
        java.util.List<byte[][]> entries = new java.util.ArrayList<>();
        oracle.centralStorage().rwi().scanEntries((key, value) -> entries.add(new byte[][] {key.clone(), value.clone()}));
        java.util.Collections.shuffle(entries, new java.util.Random(5));
        for (byte[][] e : entries) {
            Posting p = ReverseWordIndex.decode(e[0], e[1]);
            assertEquals(oracle.postingId(p.word(), p.url()), oracle.postingId(e[0]), p.toString());
        }
    }

    @Test
    void anOracleOnDiskRanksAsOneInMemory() {
        Corpus corpus = new Corpus(new Corpus.Settings(300, 2000, 1.0, 50, 0.7), 23);
        Oracle memory = new Oracle(new Partitions(4));
        java.nio.file.Path dir;
        try (Oracle disk = Oracle.onDisk(new Partitions(4))) {
            for (int d = 0; d < 300; d++) {
                memory.add(corpus.document(d));
                disk.add(corpus.document(d));
            }
            memory.seal();
            disk.seal();
            dir = disk.centralStorage().store() instanceof org.peerdex.storage.kv.LevelDbStore ? null : java.nio.file.Path.of("/");
            assertEquals(null, dir, "the central index is a LevelDB");
            int compared = 0;
            for (int d = 0; d < 300; d += 7) {
                int[] ws = memory.wordsOf(d);
                java.util.List<Integer> q = java.util.List.of(ws[0], ws[ws.length - 1]);
                java.util.List<org.peerdex.protocol.hash.UrlHash> top = memory.top(q, 10);
                assertTrue(!top.isEmpty());
                assertEquals(top, disk.top(q, 10), "query " + q);
                compared++;
            }
            assertTrue(compared > 30);
        }
    }
}
