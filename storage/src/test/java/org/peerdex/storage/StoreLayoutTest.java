package org.peerdex.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.kv.LevelDbStore;
import org.peerdex.storage.testing.TestPostings;

/** A store is read only in the layout it was written in; a stamp it cannot read is refused, never misread. */
class StoreLayoutTest {
    private static final Partitions PARTITIONS = new Partitions(4);

    private static PeerStorage open(Path dir) {
        return new PeerStorage(LevelDbStore.open(dir, 1 << 20), PARTITIONS, 1 << 20, false);
    }

    @Test
    void aNewStoreIsStampedAndAStoreWithoutAStampIsTakenAsLayoutOneAndMigrated(@TempDir Path dir) {
        try (PeerStorage s = open(dir.resolve("new"))) {
            assertEquals(Optional.of(StoreLayout.CURRENT), StoreLayout.of(s.store()));
        }
        // a store written before stamps existed: documents, no stamp
        Path old = dir.resolve("old");
        try (PeerStorage s = open(old)) {
            s.writer().add(TestPostings.document(1));
            s.writer().flush();
            s.store().delete(Keys.of(Keyspace.SETTINGS, "layout".getBytes(StandardCharsets.US_ASCII)));
            assertEquals(Optional.empty(), StoreLayout.of(s.store()));
        }
        try (PeerStorage s = open(old)) {
            assertEquals(Optional.of(StoreLayout.CURRENT), StoreLayout.of(s.store()));
            assertEquals(1, s.stats().documents(), "its documents are read as before");
        }
    }

    /**
     * Writes random postings of {@code words} words over {@code urls} URLs (each with probability 1 / {@code oneIn})
     * as an older build wrote them: 'r' word ‖ URL → posting and an 'x' URL ‖ word key per posting, folded into
     * blocks or not, stamped {@code layout}. Returns what was written.
     */
    private static java.util.List<org.peerdex.storage.rwi.Posting> writeOlderLayout(Path db, long seed, int words,
                                                                                    int urls, int oneIn, boolean fold,
                                                                                    int layout) {
        java.util.Random r = new java.util.Random(seed);
        java.util.List<org.peerdex.storage.rwi.Posting> written = new java.util.ArrayList<>();
        try (KeyValueStore raw = LevelDbStore.open(db, 1 << 20)) {
            org.peerdex.storage.rwi.ReverseWordIndex older = new org.peerdex.storage.rwi.ReverseWordIndex(raw, PARTITIONS);
            for (org.peerdex.protocol.hash.WordHash w : TestPostings.words(words)) {
                for (int u = 0; u < urls; u++) {
                    if (r.nextInt(oneIn) == 0) written.add(TestPostings.random(r, w, TestPostings.url(u)));
                }
            }
            older.add(written, true);
            if (fold) older.foldAll();
            StoreLayout.stamp(raw, layout);
        }
        return written;
    }

    /**
     * A store written in layout 1 (one key per posting, stamp 1) opens with every posting readable, is stamped with
     * the current layout at once (so a layout-1 build refuses it), and folds into blocks with every posting unchanged.
     */
    @Test
    void aLayoutOneStoreIsMigratedToBlocksWithEveryPostingKept(@TempDir Path dir) {
        Path db = dir.resolve("db");
        java.util.List<org.peerdex.storage.rwi.Posting> written = writeOlderLayout(db, 11, 5, 600, 3, false, 1);
        try (KeyValueStore raw = LevelDbStore.open(db, 1 << 20);
             KeyValueStore.Cursor c = raw.scanPrefix(new byte[] {Keyspace.POSTING_BLOCKS})) {
            assertTrue(!c.next(), "layout 1 has no blocks");
        }
        try (PeerStorage s = open(db)) {
            assertEquals(Optional.of(StoreLayout.CURRENT), StoreLayout.of(s.store()), "stamped at once");
            assertEquals(written.size(), s.rwi().totalPostings(), "readable before any fold");
            s.rwi().foldAll();
            try (KeyValueStore.Cursor c = s.store().scanPrefix(new byte[] {Keyspace.RWI})) {
                assertTrue(!c.next(), "every posting folded");
            }
            for (org.peerdex.storage.rwi.Posting p : written) {
                assertEquals(Optional.of(p), s.rwi().get(p.word(), p.url()));
            }
            assertEquals(written.size(), s.rwi().totalPostings());
        }
        try (KeyValueStore raw = LevelDbStore.open(db, 1 << 20);
             KeyValueStore.Cursor c = raw.scanPrefix(new byte[] {Keyspace.POSTING_BLOCKS})) {
            assertTrue(c.next(), "the blocks are on disk");
        }
    }

    /**
     * A layout-2 store (one {@code 'x'} key per posting for every document) is stamped with the current layout on
     * open, its documents' words read from those keys, and a document deleted or written again there leaves no
     * posting behind.
     */
    @Test
    void aLayoutTwoStoreIsStampedCurrentAndItsPerPostingWordKeysStillServeDeletes(@TempDir Path dir) {
        Path db = dir.resolve("db");
        java.util.List<org.peerdex.storage.rwi.Posting> written = writeOlderLayout(db, 12, 6, 40, 2, true, 2);
        try (PeerStorage s = open(db)) {
            assertEquals(Optional.of(StoreLayout.CURRENT), StoreLayout.of(s.store()), "stamped at once");
            org.peerdex.protocol.hash.UrlHash victim = TestPostings.url(5);
            long ofVictim = written.stream().filter(p -> p.url().equals(victim)).count();
            assertTrue(ofVictim > 0);
            assertEquals(ofVictim, s.rwi().wordsOf(victim).size());
            assertEquals(ofVictim, s.rwi().deleteUrl(victim));
            assertEquals(written.size() - ofVictim, s.rwi().totalPostings());
            assertEquals(java.util.List.of(), s.rwi().wordsOf(victim));
        }
    }

    @Test
    void aStoreOfANewerLayoutIsRefusedWithAMessageAndLeftUntouched(@TempDir Path dir) {
        Path db = dir.resolve("db");
        try (PeerStorage s = open(db)) {
            s.writer().add(TestPostings.document(1));
            s.writer().flush();
            StoreLayout.stamp(s.store(), StoreLayout.CURRENT + 1);
        }
        StoreLayout.UnreadableLayoutException e = assertThrows(StoreLayout.UnreadableLayoutException.class, () -> open(db));
        assertEquals(StoreLayout.CURRENT + 1, e.found());
        assertTrue(e.getMessage().contains("newer Peerdex"), e.getMessage());
        // the refusal released the store (no lock kept) and changed nothing in it
        try (KeyValueStore raw = LevelDbStore.open(db, 1 << 20)) {
            assertEquals(Optional.of(StoreLayout.CURRENT + 1), StoreLayout.of(raw));
        }
    }

    @Test
    void anOlderOrUnreadableStampIsRefusedToo(@TempDir Path dir) {
        Path db = dir.resolve("db");
        try (PeerStorage s = open(db)) {
            StoreLayout.stamp(s.store(), 0);
        }
        assertTrue(assertThrows(StoreLayout.UnreadableLayoutException.class, () -> open(db)).getMessage()
                .contains("no longer reads"));
        try (KeyValueStore raw = LevelDbStore.open(db, 1 << 20)) {
            KeyValueStore.Batch b = raw.newBatch();
            b.put(Keys.of(Keyspace.SETTINGS, "layout".getBytes(StandardCharsets.US_ASCII)), "two".getBytes(StandardCharsets.US_ASCII));
            raw.write(b, true);
        }
        assertTrue(assertThrows(StoreLayout.UnreadableLayoutException.class, () -> open(db)).getMessage()
                .contains("unreadable"));
    }
}
