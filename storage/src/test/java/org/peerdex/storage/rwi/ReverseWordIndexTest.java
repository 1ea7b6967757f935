package org.peerdex.storage.rwi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.protocol.ring.RingPosition;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.LevelDbStore;
import org.peerdex.storage.kv.MemoryStore;
import org.peerdex.storage.testing.TestPostings;

/** The RWI on both engines and several partition exponents, checked against a brute-force model. */
class ReverseWordIndexTest {
    private static final int URLS = 400;
    private static final int WORDS = 12;

    @TempDir
    Path dir;
    private KeyValueStore store;

    @AfterEach
    void close() {
        if (store != null) store.close();
    }

    /** "+fold": postings are folded into blocks as they are added, so reads merge both tiers */
    private boolean folding;

    private ReverseWordIndex open(String engine, int exponent) {
        folding = engine.endsWith("+fold");
        store = engine.startsWith("leveldb") ? LevelDbStore.open(dir.resolve("db"), 1 << 20) : new MemoryStore();
        return new ReverseWordIndex(store, new Partitions(exponent));
    }

    /** Folds every fresh entry in small steps (so steps end inside blocks). */
    static void foldInSteps(ReverseWordIndex rwi, int step) {
        byte[] at = new byte[PostingStream.KEY];
        while (at != null) at = rwi.fold(at, step).resume();
    }

    /**
     * Every word in about half of the URLs, with random features; added in batches of 500. Folding, every other
     * batch is folded into blocks as it comes, the last left fresh.
     */
    private List<Posting> fill(ReverseWordIndex rwi) {
        Random r = new Random(41);
        List<Posting> all = new ArrayList<>();
        List<WordHash> words = TestPostings.words(WORDS);
        for (int u = 0; u < URLS; u++) {
            UrlHash url = TestPostings.url(u);
            for (WordHash w : words) if (r.nextBoolean()) all.add(TestPostings.random(r, w, url));
        }
        List<Posting> shuffled = new ArrayList<>(all);
        java.util.Collections.shuffle(shuffled, r);
        for (int i = 0; i < shuffled.size(); i += 500) {
            rwi.add(shuffled.subList(i, Math.min(shuffled.size(), i + 500)), false);
            if (folding && i / 500 % 2 == 0 && i + 500 < shuffled.size()) foldInSteps(rwi, 37);
        }
        return all;
    }

    private static final Comparator<Posting> BY_URL_BYTES =
            (a, b) -> Arrays.compareUnsigned(HashBytes.pack(a.url().value()), HashBytes.pack(b.url().value()));

    private static List<Posting> expected(List<Posting> all, WordHash word) {
        return all.stream().filter(p -> p.word().equals(word)).sorted(BY_URL_BYTES).collect(Collectors.toList());
    }

    @ParameterizedTest(name = "{0}, exponent {1}")
    @CsvSource({"memory,4", "leveldb,4", "memory,0", "memory,8", "memory+fold,4", "leveldb+fold,4", "memory+fold,0", "memory+fold,8"})
    void aBucketScanGivesExactlyThePostingsWhosePositionIsInTheBucket(String engine, int exponent) {
        ReverseWordIndex rwi = open(engine, exponent);
        List<Posting> all = fill(rwi);
        int bits = 10;
        Map<Integer, List<Posting>> byBucket = new HashMap<>();
        rwi.scanAll(p -> byBucket.computeIfAbsent((int) (rwi.partitions().position(p.word(), p.url()) >>> (63 - bits)),
                k -> new ArrayList<>()).add(p));
        int total = 0;
        for (int b = 0; b < 1 << bits; b++) {
            List<Posting> got = new ArrayList<>();
            rwi.scanBucket(bits, b, (k, v) -> got.add(ReverseWordIndex.decode(k, v)));
            got.sort(Comparator.comparing((Posting p) -> p.word().value()).thenComparing(p -> p.url().value()));
            List<Posting> want = new ArrayList<>(byBucket.getOrDefault(b, List.of()));
            want.sort(Comparator.comparing((Posting p) -> p.word().value()).thenComparing(p -> p.url().value()));
            assertEquals(want, got, "bucket " + b);
            total += got.size();
        }
        assertEquals(all.size(), total);
        assertTrue(byBucket.size() > (exponent == 0 ? 5 : 20), "the postings spread over many buckets");
    }

    @ParameterizedTest(name = "{0}, exponent {1}")
    @CsvSource({"memory,4", "leveldb,0", "memory,8", "memory+fold,4", "leveldb+fold,0", "memory+fold,8"})
    void rawEntriesGiveEveryPostingWithItsPositionFromTheKey(String engine, int exponent) {
        ReverseWordIndex rwi = open(engine, exponent);
        List<Posting> all = fill(rwi);
        List<Posting> scanned = new ArrayList<>();
        rwi.scanEntries((key, value) -> {
            Posting p = ReverseWordIndex.decode(key, value);
            assertEquals(rwi.partitions().position(p.word(), p.url()), rwi.position(key));
            assertEquals(p.url().position(), HashBytes.position(key, ReverseWordIndex.URL_OFFSET));
            scanned.add(p);
        });
        List<Posting> viaScanAll = new ArrayList<>();
        rwi.scanAll(viaScanAll::add);
        assertEquals(viaScanAll, scanned);
        assertEquals(all.size(), scanned.size());
    }

    @ParameterizedTest(name = "{0}, exponent {1}")
    @CsvSource({"memory,4", "leveldb,4", "memory,0", "leveldb,8", "memory+fold,4", "leveldb+fold,4", "memory+fold,0", "leveldb+fold,8"})
    void postingsOfAWordAreAllOfThemSortedByUrlHash(String engine, int exponent) {
        ReverseWordIndex rwi = open(engine, exponent);
        List<Posting> all = fill(rwi);
        for (WordHash w : TestPostings.words(WORDS)) {
            List<Posting> got = rwi.postings(w);
            assertEquals(expected(all, w), got, "word " + w);
            assertTrue(got.size() > URLS / 4, "the word has postings");
            for (int i = 1; i < got.size(); i++) {
                assertTrue(got.get(i - 1).url().position() <= got.get(i).url().position(), "ring order");
                assertTrue(rwi.partitions().partitionOf(got.get(i - 1).url())
                        <= rwi.partitions().partitionOf(got.get(i).url()), "grouped by partition");
            }
            assertEquals(got.size(), rwi.count(w));
        }
        assertEquals(all.size(), rwi.totalPostings());
        assertEquals(List.of(), rwi.postings(WordHash.of("absent")));
    }

    @ParameterizedTest(name = "{0}, exponent {1}")
    @CsvSource({"memory,4", "leveldb,4", "memory,0", "memory,1", "leveldb,8", "memory+fold,4", "leveldb+fold,4", "memory+fold,1", "leveldb+fold,8"})
    void postingsOfAPartitionAreExactlyThoseWhoseUrlFallsInIt(String engine, int exponent) {
        ReverseWordIndex rwi = open(engine, exponent);
        List<Posting> all = fill(rwi);
        Partitions partitions = rwi.partitions();
        for (WordHash w : TestPostings.words(WORDS)) {
            int sum = 0;
            for (int p = 0; p < partitions.count(); p++) {
                final int part = p;
                List<Posting> want = expected(all, w).stream().filter(x -> partitions.partitionOf(x.url()) == part)
                        .collect(Collectors.toList());
                assertEquals(want, rwi.postings(w, p), "word " + w + " partition " + p);
                assertEquals(want.size(), rwi.count(w, p));
                sum += want.size();
            }
            assertEquals(rwi.count(w), sum);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"memory", "leveldb", "memory+fold", "leveldb+fold"})
    void deleteUrlRemovesEveryPostingOfThatUrlAndNoOther(String engine) {
        ReverseWordIndex rwi = open(engine, 4);
        List<Posting> all = fill(rwi);
        UrlHash victim = TestPostings.url(7);
        long ofVictim = all.stream().filter(p -> p.url().equals(victim)).count();
        assertTrue(ofVictim > 0);
        assertEquals(ofVictim, rwi.wordsOf(victim).size());
        assertEquals(ofVictim, rwi.deleteUrl(victim));
        assertEquals(List.of(), rwi.wordsOf(victim));
        for (WordHash w : TestPostings.words(WORDS)) {
            assertFalse(rwi.postings(w).stream().anyMatch(p -> p.url().equals(victim)));
        }
        assertEquals(all.size() - ofVictim, rwi.totalPostings());
        assertEquals(0, rwi.deleteUrl(victim));
    }

    /**
     * Folds run while a writer keeps replacing and deleting postings, the same ones the folds are moving into blocks:
     * once the writer stops and the rest is folded, every posting is the writer's last version of it (a fold never
     * deletes a fresh entry written after it read it, nor resurrects a deleted posting).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"memory", "leveldb"})
    void foldsRacingWritersLoseNoWrite(String engine) throws Exception {
        ReverseWordIndex rwi = open(engine, 2);
        List<WordHash> words = TestPostings.words(6);
        Map<String, Posting> model = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread writer = new Thread(() -> {
            Random r = new Random(3);
            for (int i = 0; i < 6000 && !stop.get(); i++) {
                WordHash w = words.get(r.nextInt(words.size()));
                UrlHash u = TestPostings.url(r.nextInt(150));
                if (r.nextInt(5) == 0) {
                    rwi.delete(List.of(TestPostings.random(r, w, u)));
                    model.remove(w.value() + u.value());
                } else {
                    Posting p = TestPostings.random(r, w, u);
                    rwi.add(List.of(p), false);
                    model.put(w.value() + u.value(), p);
                }
            }
        });
        writer.start();
        int rounds = 0;
        while (writer.isAlive()) {
            foldInSteps(rwi, 17 + rounds % 40);
            rounds++;
        }
        writer.join();
        rwi.foldAll();
        assertTrue(rounds > 1, "folds ran while the writer wrote");
        Map<String, Posting> stored = new HashMap<>();
        rwi.scanAll(p -> stored.put(p.word().value() + p.url().value(), p));
        assertEquals(model.size(), stored.size());
        for (var e : model.entrySet()) assertEquals(e.getValue(), stored.get(e.getKey()), e.getKey());
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {org.peerdex.storage.kv.Keyspace.RWI})) {
            assertFalse(c.next(), "nothing left fresh");
        }
    }

    /**
     * Documents written whole keep one word list each: the words of the list that still have a posting (a single
     * delete, as after a hand-off, leaves the list alone), merged with words added one by one, and a delete of the
     * URL removes them all.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"memory", "leveldb", "memory+fold", "leveldb+fold"})
    void documentsWrittenWholeKeepOneWordListThatFollowsDeletes(String engine) {
        ReverseWordIndex rwi = open(engine, 4);
        Random r = new Random(9);
        List<WordHash> words = TestPostings.words(WORDS);
        Map<UrlHash, List<Posting>> docs = new HashMap<>();
        for (int u = 0; u < 50; u++) {
            UrlHash url = TestPostings.url(u);
            List<Posting> ps = new ArrayList<>();
            for (WordHash w : words) if (r.nextInt(3) > 0) ps.add(TestPostings.random(r, w, url));
            docs.put(url, ps);
            KeyValueStore.Batch b = store.newBatch();
            rwi.addDocumentTo(b, url, ps);
            store.write(b, false);
        }
        if (folding) foldInSteps(rwi, 23);
        int keys = 0;
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {org.peerdex.storage.kv.Keyspace.URL_WORDS})) {
            while (c.next()) keys++;
        }
        assertEquals(50, keys, "one word entry per document");
        UrlHash doc = TestPostings.url(3);
        List<Posting> ps = docs.get(doc);
        assertEquals(ps.stream().map(Posting::word).sorted(Comparator.comparing(WordHash::value)).toList(),
                rwi.wordsOf(doc).stream().sorted(Comparator.comparing(WordHash::value)).toList());
        // a hand-off deletes single postings: the list still names the word, wordsOf does not
        Posting gone = ps.get(0);
        rwi.delete(List.of(gone));
        assertFalse(rwi.wordsOf(doc).contains(gone.word()));
        assertEquals(ps.size() - 1, rwi.wordsOf(doc).size());
        // a word added alone (a posting from another peer) joins the document's words
        WordHash extra = words.stream().filter(w -> ps.stream().noneMatch(p -> p.word().equals(w))).findFirst()
                .orElse(gone.word());
        rwi.add(List.of(TestPostings.random(r, extra, doc)), false);
        assertTrue(rwi.wordsOf(doc).contains(extra));
        long before = rwi.totalPostings();
        int deleted = rwi.deleteUrl(doc);
        assertEquals(ps.size(), deleted, "every remaining posting of the document, the one added alone included");
        assertEquals(before - deleted, rwi.totalPostings());
        assertEquals(List.of(), rwi.wordsOf(doc));
        for (WordHash w : words) assertFalse(rwi.postings(w).stream().anyMatch(p -> p.url().equals(doc)));
        // the other documents are untouched
        UrlHash other = TestPostings.url(4);
        assertEquals(docs.get(other).size(), rwi.wordsOf(other).size());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"memory", "leveldb", "memory+fold", "leveldb+fold"})
    void deleteSinglePostingsAndReplaceOnReAdd(String engine) {
        ReverseWordIndex rwi = open(engine, 4);
        List<Posting> all = fill(rwi);
        Posting first = all.get(0);
        rwi.delete(List.of(first));
        assertFalse(rwi.postings(first.word()).contains(first));
        assertFalse(rwi.wordsOf(first.url()).contains(first.word()));
        Posting changed = TestPostings.random(new Random(5), first.word(), first.url());
        rwi.add(List.of(first), false);
        rwi.add(List.of(changed), false);
        List<Posting> now = rwi.postings(first.word()).stream().filter(p -> p.url().equals(first.url()))
                .collect(Collectors.toList());
        assertEquals(List.of(changed), now, "a later posting for the same word and URL replaces the earlier");
        assertEquals(all.size(), rwi.totalPostings());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"memory", "leveldb", "memory+fold", "leveldb+fold"})
    void scanRingReturnsExactlyThePostingsWhosePositionIsInTheRange(String engine) {
        ReverseWordIndex rwi = open(engine, 4);
        List<Posting> all = fill(rwi);
        Partitions partitions = rwi.partitions();
        Random r = new Random(43);
        List<long[]> ranges = new ArrayList<>();
        for (int i = 0; i < 20; i++) ranges.add(new long[] {r.nextLong() & RingPosition.MAX, r.nextLong() & RingPosition.MAX});
        ranges.add(new long[] {RingPosition.MAX / 2, RingPosition.MAX / 4}); // wraps past zero
        ranges.add(new long[] {123, 123}); // the whole ring
        for (long[] range : ranges) {
            Map<String, Posting> want = new HashMap<>();
            for (Posting p : all) {
                long pos = partitions.position(p.word(), p.url());
                long d = RingPosition.distance(range[0], pos);
                boolean in = range[0] == range[1] || (d != 0 && d <= RingPosition.distance(range[0], range[1]));
                if (in) want.put(p.word() + "/" + p.url(), p);
            }
            Map<String, Posting> got = new HashMap<>();
            rwi.scanRing(range[0], range[1], p -> got.put(p.word() + "/" + p.url(), p));
            assertEquals(want, got, "range " + range[0] + ".." + range[1]);
        }
        Map<String, Posting> whole = new HashMap<>();
        rwi.scanRing(5, 5, p -> whole.put(p.word() + "/" + p.url(), p));
        assertEquals(all.size(), whole.size());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"memory", "leveldb", "memory+fold", "leveldb+fold"})
    void rangesOfNeighboursPartitionTheRing(String engine) {
        ReverseWordIndex rwi = open(engine, 4);
        List<Posting> all = fill(rwi);
        long[] cuts = {RingPosition.MAX / 7, RingPosition.MAX / 3, RingPosition.MAX / 2, RingPosition.MAX - 5};
        int total = 0;
        for (int i = 0; i < cuts.length; i++) {
            int[] n = {0};
            rwi.scanRing(cuts[i], cuts[(i + 1) % cuts.length], p -> n[0]++);
            total += n[0];
        }
        assertEquals(all.size(), total, "every posting is in exactly one of the ranges");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"memory", "leveldb", "memory+fold", "leveldb+fold"})
    void urlHashesAtTheEdgesOfPartitionsLandInTheRightOne(String engine) {
        ReverseWordIndex rwi = open(engine, 4);
        WordHash w = WordHash.of("edge");
        Random r = new Random(44);
        // the first and last hash of the ring, and the last and first hash around the boundary of partitions 0|1
        List<UrlHash> urls = List.of(UrlHash.parse("AAAAAAAAAAAA"), UrlHash.parse("____________"),
                UrlHash.parse("D___________"), UrlHash.parse("EAAAAAAAAAAA"));
        List<Posting> ps = new ArrayList<>();
        for (UrlHash u : urls) ps.add(TestPostings.random(r, w, u));
        rwi.add(ps, true);
        assertEquals(List.of(ps.get(0), ps.get(2)), rwi.postings(w, 0));
        assertEquals(List.of(ps.get(3)), rwi.postings(w, 1));
        assertEquals(List.of(ps.get(1)), rwi.postings(w, 15));
        for (int p = 2; p < 15; p++) assertEquals(List.of(), rwi.postings(w, p));
        assertEquals(List.of(ps.get(0), ps.get(2), ps.get(3), ps.get(1)), rwi.postings(w));
    }
}
