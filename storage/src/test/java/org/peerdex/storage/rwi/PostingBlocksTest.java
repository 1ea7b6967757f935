package org.peerdex.storage.rwi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.kv.LevelDbStore;
import org.peerdex.storage.kv.MemoryStore;
import org.peerdex.storage.testing.TestPostings;

/**
 * The two tiers of the reverse word index: long lists folded into many blocks, adds, replacements and deletes
 * (tombstones over blocks) between folds, folds in steps of any size, and writers running while the index folds,
 * all checked against a model of what was written.
 */
class PostingBlocksTest {
    @TempDir
    Path dir;
    private KeyValueStore store;

    @AfterEach
    void close() {
        if (store != null) store.close();
    }

    private ReverseWordIndex open(String engine, int exponent) {
        store = engine.equals("leveldb") ? LevelDbStore.open(dir.resolve("db"), 4 << 20) : new MemoryStore();
        return new ReverseWordIndex(store, new Partitions(exponent));
    }

    /** (word, URL) → posting, in the index's order (packed word, packed URL). */
    private static final class Model {
        final TreeMap<String, Posting> map = new TreeMap<>();

        static String key(WordHash w, UrlHash u) {
            return hex(HashBytes.pack(w.value())) + hex(HashBytes.pack(u.value()));
        }

        void put(Posting p) {
            map.put(key(p.word(), p.url()), p);
        }

        void delete(WordHash w, UrlHash u) {
            map.remove(key(w, u));
        }

        List<Posting> of(WordHash w) {
            String prefix = hex(HashBytes.pack(w.value()));
            return new ArrayList<>(map.subMap(prefix, prefix + "~").values());
        }
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x & 0xff));
        return s.toString();
    }

    private static void check(ReverseWordIndex rwi, Model model, List<WordHash> words, Random r) {
        for (WordHash w : words) {
            List<Posting> want = model.of(w);
            assertEquals(want, rwi.postings(w), "postings of " + w);
            assertEquals(want.size(), rwi.count(w));
            int sum = 0;
            for (int p = 0; p < rwi.partitions().count(); p++) sum += rwi.count(w, p);
            assertEquals(want.size(), sum, "partitions add up");
            for (int i = 0; i < 20 && !want.isEmpty(); i++) {
                Posting p = want.get(r.nextInt(want.size()));
                assertEquals(Optional.of(p), rwi.get(w, p.url()));
            }
        }
        assertEquals(model.map.size(), rwi.totalPostings());
        List<Posting> all = new ArrayList<>();
        rwi.scanAll(all::add);
        assertEquals(new ArrayList<>(model.map.values()), all, "every posting, in key order");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"memory", "leveldb"})
    void longListsFoldIntoBlocksAndReadTheSameWhateverIsFolded(String engine) {
        ReverseWordIndex rwi = open(engine, 2);
        Random r = new Random(7);
        List<WordHash> words = TestPostings.words(3);
        Model model = new Model();
        int[] steps = {5, 100, 4096};
        for (int round = 0; round < 6; round++) {
            List<Posting> batch = new ArrayList<>();
            for (int i = 0; i < 1500; i++) {
                WordHash w = words.get(r.nextInt(words.size()));
                UrlHash u = TestPostings.url(r.nextInt(3000));
                Posting p = TestPostings.random(r, w, u);
                batch.add(p);
            }
            rwi.add(batch, false);
            batch.forEach(model::put);
            // deletes: of folded postings (tombstones over blocks), of fresh ones, of absent ones
            KeyValueStore.Batch b = store.newBatch();
            for (int i = 0; i < 300; i++) {
                WordHash w = words.get(r.nextInt(words.size()));
                UrlHash u = TestPostings.url(r.nextInt(3000));
                rwi.deleteTo(b, w, u);
                model.delete(w, u);
            }
            store.write(b, false);
            check(rwi, model, words, r);
            ReverseWordIndexTest.foldInSteps(rwi, steps[round % steps.length]);
            check(rwi, model, words, r);
        }
        // all folded: nothing fresh, every block within one partition, no larger than MAX, its key its range's end
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.RWI})) {
            assertFalse(c.next(), "nothing fresh after a full fold");
        }
        int blocks = 0;
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.POSTING_BLOCKS})) {
            while (c.next()) {
                blocks++;
                PostingBlock block = PostingBlock.decode(c.value());
                assertTrue(block.size() > 0 && block.size() <= PostingBlock.MAX, "block of " + block.size());
                int partition = (c.key()[1 + 2 * HashBytes.PACKED - HashBytes.PACKED] & 0xff) >>> 6;
                for (int i = 0; i < block.size(); i++) {
                    byte[] u = block.packedUrl(i);
                    assertEquals(partition, (u[0] & 0xff) >>> 6, "a block holds one partition");
                    assertTrue(Arrays.compareUnsigned(u, 0, 9, c.key(), 10, 19) <= 0, "inside the block's range");
                }
            }
        }
        assertTrue(blocks > 3 * 4, "long lists span many blocks: " + blocks);
    }

    @Test
    void aFoldedQuietIndexSkipsTheFreshTierAndAWriteTurnsItBackOn() {
        ReverseWordIndex rwi = open("leveldb", 4);
        Random r = new Random(9);
        List<WordHash> words = TestPostings.words(2);
        Model model = new Model();
        List<Posting> ps = new ArrayList<>();
        for (int i = 0; i < 800; i++) ps.add(TestPostings.random(r, words.get(i % 2), TestPostings.url(i)));
        rwi.add(ps, false);
        ps.forEach(model::put);
        assertFalse(rwi.freshTierEmpty(), "opened with writes since: the fresh tier may hold postings");
        rwi.foldAll();
        assertTrue(rwi.freshTierEmpty());
        check(rwi, model, words, r);
        // a write after the round: it must be seen at once, a delete too
        Posting late = TestPostings.random(r, words.get(0), TestPostings.url(5000));
        rwi.add(List.of(late), false);
        model.put(late);
        Posting gone = ps.get(3);
        rwi.delete(List.of(gone));
        model.delete(gone.word(), gone.url());
        assertFalse(rwi.freshTierEmpty());
        check(rwi, model, words, r);
        assertEquals(Optional.of(late), rwi.get(late.word(), late.url()));
        assertEquals(Optional.empty(), rwi.get(gone.word(), gone.url()));
    }

    @Test
    void blockCeilingsBoundEveryPostingOfTheirBlock() {
        ReverseWordIndex rwi = open("memory", 0);
        Random r = new Random(3);
        WordHash w = WordHash.of("ceiling");
        List<Posting> ps = new ArrayList<>();
        for (int i = 0; i < 1000; i++) ps.add(TestPostings.random(r, w, TestPostings.url(i)));
        rwi.add(ps, false);
        rwi.foldAll();
        int checked = 0;
        try (PostingStream s = PostingStream.ofWord(store, HashBytes.pack(w.value()))) {
            for (; !s.exhausted(); s.next()) {
                PostingBlock.Ceiling c = s.blockCeiling();
                assertTrue(c != null, "no fresh entries: every posting is in a block with a ceiling");
                Posting p = ReverseWordIndex.decode(s.key(), s.value());
                assertTrue(p.hitCount() <= c.maxHitCount());
                assertEquals(p.flags(), p.flags() & c.flags());
                assertTrue(p.wordsInText() >= c.minWordsInText());
                assertTrue(p.firstPosition() >= c.minFirstPosition());
                checked++;
            }
        }
        assertEquals(1000, checked);
    }

    /** A score of the kind a ranking gives: flags and hit count, and a share of the URL (so it varies per page). */
    private static final BlockScore SCORE = new BlockScore() {
        @Override
        public int revision() {
            return 7;
        }

        @Override
        public double of(Posting p) {
            return Integer.bitCount(p.flags()) * 1.7 + Math.log1p(p.hitCount()) + (p.url().value().charAt(3) % 13) / 10.0;
        }
    };

    @ParameterizedTest
    @ValueSource(strings = {"memory", "leveldb"})
    void blocksCarryTheHighestScoreOfTheirPostingsAndASkipLandsPastTheBlock(String engine) {
        ReverseWordIndex rwi = open(engine, 2);
        rwi.scoreBlocksWith(SCORE);
        Random r = new Random(11);
        WordHash w = WordHash.of("bounded");
        List<Posting> ps = new ArrayList<>();
        for (int i = 0; i < 1500; i++) ps.add(TestPostings.random(r, w, TestPostings.url(i)));
        rwi.add(ps, false);
        rwi.foldAll();
        // the stream visits each block from its first posting: the block's bound is its postings' highest score
        int blocks = 0;
        int seen = 0;
        try (PostingStream s = PostingStream.ofWord(store, HashBytes.pack(w.value()))) {
            while (!s.exhausted()) {
                double bound = s.blockMaxScore(SCORE.revision());
                assertEquals(Double.POSITIVE_INFINITY, s.blockMaxScore(SCORE.revision() + 1), "another revision bounds nothing");
                int left = s.leftInBlock();
                double max = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < left; i++) {
                    Posting p = ReverseWordIndex.decode(s.key(), s.value());
                    max = Math.max(max, SCORE.of(p));
                    assertEquals(left - i, s.leftInBlock());
                    assertTrue(s.blockMaxScore(SCORE.revision()) == bound, "the same block's bound to its end");
                    s.next();
                    seen++;
                }
                assertEquals(PostingBlock.roundUp(max), bound, 0.0, "block " + blocks);
                assertTrue(bound >= max);
                blocks++;
            }
        }
        assertEquals(ps.size(), seen);
        assertTrue(blocks >= ps.size() / PostingBlock.MAX, "blocks: " + blocks);

        // a fresh posting inside a block: that block bounds nothing until it is folded again
        Posting replaced = TestPostings.random(r, w, TestPostings.url(700));
        rwi.add(List.of(replaced), false);
        byte[] at = HashBytes.pack(replaced.url().value());
        try (PostingStream s = PostingStream.ofWord(store, HashBytes.pack(w.value()))) {
            int skipped = 0;
            int stepped = 0;
            while (!s.exhausted()) {
                if (s.blockMaxScore(SCORE.revision()) == Double.POSITIVE_INFINITY) {
                    // not skippable: the replaced posting lies ahead in this block, or this is it
                    assertTrue(s.compareUrl(at) <= 0 && Arrays.compareUnsigned(s.blockEnd(), HashBytes.PACKED,
                            PostingStream.KEY, at, 0, HashBytes.PACKED) >= 0, "only the block of the fresh entry");
                    s.next();
                    stepped++;
                    continue;
                }
                // a skip lands on the first posting after the block's end, or ends the list
                byte[] end = s.blockEnd();
                int left = s.leftInBlock();
                boolean more = s.skipBlock();
                skipped += left;
                assertEquals(!s.exhausted(), more);
                if (more) assertTrue(Arrays.compareUnsigned(s.key(), 1, 1 + PostingStream.KEY, end, 0, PostingStream.KEY) > 0);
            }
            assertTrue(skipped > ps.size() - 2 * PostingBlock.MAX, "skipped " + skipped);
            assertEquals(ps.size(), skipped + stepped, "a skip passes over its block's postings and no other");
        }
        rwi.foldAll();
        try (PostingStream s = PostingStream.ofWord(store, HashBytes.pack(w.value()))) {
            for (; !s.exhausted(); s.next()) {
                assertTrue(s.blockMaxScore(SCORE.revision()) >= SCORE.of(ReverseWordIndex.decode(s.key(), s.value())));
            }
        }
    }

    @Test
    void blocksFoldedWithoutAScoreAndBlocksOfVersionTwoBoundNothing() {
        ReverseWordIndex rwi = open("memory", 0);
        Random r = new Random(5);
        WordHash w = WordHash.of("unscored");
        List<PostingBlock.Entry> entries = new ArrayList<>();
        List<Posting> ps = new ArrayList<>();
        for (int i = 0; i < 300; i++) ps.add(TestPostings.random(r, w, TestPostings.url(i)));
        rwi.add(ps, false);
        rwi.foldAll();
        try (PostingStream s = PostingStream.ofWord(store, HashBytes.pack(w.value()))) {
            assertEquals(Double.POSITIVE_INFINITY, s.blockMaxScore(SCORE.revision()));
            for (int i = 0; i < 40; i++, s.next()) entries.add(new PostingBlock.Entry(s.packedUrl(), s.value()));
        }
        // a block as the previous build wrote it: version 2, no revision, no score
        byte[] v3 = PostingBlock.encode(entries);
        Varint.Reader h = new Varint.Reader(v3, 1);
        for (int i = 0; i < 6; i++) h.read(); // count, the ceiling's five values
        int scoreAt = h.position();
        byte[] v2 = new byte[v3.length - 5];
        System.arraycopy(v3, 0, v2, 0, scoreAt);
        System.arraycopy(v3, scoreAt + 5, v2, scoreAt, v3.length - scoreAt - 5);
        v2[0] = 2;
        PostingBlock old = PostingBlock.decode(v2);
        PostingBlock now = PostingBlock.decode(PostingBlock.encode(entries, HashBytes.pack(w.value()), SCORE));
        assertEquals(0, old.scoreRevision());
        assertEquals(Double.POSITIVE_INFINITY, old.maxScore());
        assertEquals(SCORE.revision(), now.scoreRevision());
        assertEquals(entries.size(), old.size());
        assertEquals(now.ceiling(), old.ceiling());
        for (int i = 0; i < entries.size(); i++) {
            assertTrue(Arrays.equals(entries.get(i).packedUrl(), old.packedUrl(i)));
            assertTrue(Arrays.equals(entries.get(i).value(), old.value(i)));
        }
    }

    @Test
    void writersRunningWhileTheIndexFoldsLoseNothing() throws Exception {
        ReverseWordIndex rwi = open("leveldb", 4);
        List<WordHash> words = TestPostings.words(4);
        int writers = 3;
        Map<Integer, Model> models = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < writers; t++) {
            int id = t;
            Model model = new Model();
            models.put(id, model);
            threads.add(new Thread(() -> {
                Random r = new Random(id);
                try {
                    for (int round = 0; round < 60; round++) {
                        List<Posting> batch = new ArrayList<>();
                        for (int i = 0; i < 100; i++) {
                            // each writer has its own URLs: URL numbers id, id + writers, ...
                            UrlHash u = TestPostings.url(id + writers * r.nextInt(700));
                            batch.add(TestPostings.random(r, words.get(r.nextInt(words.size())), u));
                        }
                        rwi.add(batch, false);
                        batch.forEach(model::put);
                        KeyValueStore.Batch b = store.newBatch();
                        for (int i = 0; i < 20; i++) {
                            UrlHash u = TestPostings.url(id + writers * r.nextInt(700));
                            WordHash w = words.get(r.nextInt(words.size()));
                            rwi.deleteTo(b, w, u);
                            model.delete(w, u);
                        }
                        store.write(b, false);
                    }
                } catch (Throwable e) {
                    failed.set(e);
                }
            }));
        }
        Thread folder = new Thread(() -> {
            try {
                while (!stop.get()) ReverseWordIndexTest.foldInSteps(rwi, 64);
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        folder.start();
        threads.forEach(Thread::start);
        for (Thread t : threads) t.join();
        stop.set(true);
        folder.join();
        assertEquals(null, failed.get());
        Model all = new Model();
        models.values().forEach(m -> all.map.putAll(m.map));
        check(rwi, all, words, new Random(1));
        rwi.foldAll();
        check(rwi, all, words, new Random(2));
    }
}
