package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.TestCorpus;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.LevelDbStore;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/** The digest index follows every write to the store and answers as a fresh scan would. */
class DigestIndexTest {
    private static final Placement PLACEMENT = Placement.defaults();
    private final Random random = new Random(7);
    private final PeerId self = PeerId.random(random);
    private final PeerId other = PeerId.random(random);
    private final PeerId third = PeerId.random(random);

    /** The digests a full scan of the storage gives (what the old, rebuilt index compared against). */
    private static List<RangeDigest> scanned(PeerStorage s, PeerId self) {
        Digests d = new Digests();
        s.rwi().scanAll(p -> !p.has(Posting.CACHED),
                p -> d.addPosting(p.holder() == null ? self : p.holder(), p, s.rwi().partitions()));
        s.metadata().scanAll(m -> d.addMetadata(m.holder() == null ? self : PeerId.parse(m.holder()), m.urlHash()));
        return d.digests();
    }

    /** Mixed writes: own crawl, stores from others, cached copies, overwrites, hand-off deletes, URL deletes. */
    private void writeMixed(PeerStorage s, List<IndexedDocument> docs) {
        List<IndexedDocument> own = docs.subList(0, docs.size() / 3);
        for (IndexedDocument d : own) s.writer().add(d);
        s.writer().flush();
        KeyValueStore.Batch b = s.store().newBatch();
        for (int i = docs.size() / 3; i < docs.size(); i++) {
            PeerId from = i % 2 == 0 ? other : third;
            for (Posting p : docs.get(i).postings()) {
                Posting stored = i % 5 == 0 ? p.asCached(from, 9_999_999_999L) : p.withHolder(from);
                s.rwi().addTo(b, stored);
            }
            s.metadata().putTo(b, ShardOwner.withHolder(docs.get(i).metadata(), from.value()));
        }
        s.store().write(b, false);
        // a posting stored again from another origin, a cached copy over a real one, a real one over a cached one
        KeyValueStore.Batch again = s.store().newBatch();
        for (Posting p : docs.get(docs.size() / 3 + 1).postings()) s.rwi().addTo(again, p.withHolder(self));
        for (Posting p : docs.get(docs.size() / 3 + 2).postings()) s.rwi().addTo(again, p.asCached(other, 1));
        for (Posting p : docs.get(docs.size() / 3 + 5).postings()) s.rwi().addTo(again, p.withHolder(third));
        s.store().write(again, false);
        // hand-off deletes of single postings, a URL deleted with its metadata
        List<Posting> gone = new ArrayList<>();
        for (int i = docs.size() / 2; i < docs.size() / 2 + 5; i++) gone.addAll(docs.get(i).postings().subList(0, 3));
        s.rwi().delete(gone);
        IndexedDocument deleted = docs.get(docs.size() - 1);
        s.rwi().deleteUrl(deleted.metadata().urlHash());
        s.metadata().delete(deleted.metadata().urlHash());
        s.store().delete(new byte[] {'r', 1, 2}); // not a posting key: ignored
    }

    private void assertFollowsWrites(PeerStorage s) {
        List<IndexedDocument> docs = TestCorpus.documents(60, 3);
        DigestIndex live = DigestIndex.attach(s, self);
        writeMixed(s, docs);
        List<RangeDigest> truth = scanned(s, self);
        assertTrue(truth.size() > 100, "the corpus spreads over many ranges: " + truth.size());
        assertEquals(List.of(), live.differing(truth, self, PLACEMENT, null), "a live index agrees with a fresh scan");
        assertEquals(List.of(), DigestIndex.snapshot(s, self).differing(truth, self, PLACEMENT, null));
        long[] size = live.size();
        long postings = truth.stream().filter(d -> d.kind() == 'p').mapToLong(RangeDigest::count).sum();
        long metadata = truth.stream().filter(d -> d.kind() == 'm').mapToLong(RangeDigest::count).sum();
        assertEquals(postings, size[0]);
        assertEquals(metadata, size[1]);
        // a digest off by one entry, a range we lack entirely, and one of an origin we never heard of all differ
        RangeDigest first = truth.get(0);
        RangeDigest off = new RangeDigest(first.kind(), first.origin(), first.bucket(), first.count() + 1, first.sum());
        RangeDigest unknown = new RangeDigest('p', PeerId.random(random), 3, 1, 42);
        assertEquals(List.of(off.range(), unknown.range()), live.differing(List.of(off, unknown), self, PLACEMENT, null));
        // detached, it stops following
        live.detach();
        for (Posting p : docs.get(0).postings()) s.rwi().delete(List.of(p));
        assertEquals(List.of(), live.differing(truth, self, PLACEMENT, null));
        assertFalse(DigestIndex.snapshot(s, self).differing(truth, self, PLACEMENT, null).isEmpty());
    }

    @Test
    void followsEveryWriteToAMemoryStore() {
        try (PeerStorage s = PeerStorage.inMemory(PLACEMENT.partitions())) {
            assertFollowsWrites(s);
        }
    }

    @Test
    void followsEveryWriteToALevelDbStore() throws Exception {
        Path dir = Files.createTempDirectory("digest-index");
        try (PeerStorage s = new PeerStorage(LevelDbStore.open(dir, 1 << 20), PLACEMENT.partitions(), 1 << 20, false)) {
            assertFollowsWrites(s);
        }
    }

    @Test
    void attachedAfterWritesItCountsWhatWasThere() {
        try (PeerStorage s = PeerStorage.inMemory(PLACEMENT.partitions())) {
            writeMixed(s, TestCorpus.documents(40, 5));
            DigestIndex index = DigestIndex.attach(s, self);
            assertEquals(List.of(), index.differing(scanned(s, self), self, PLACEMENT, null));
            index.detach();
        }
    }

    @Test
    void onlyPostingsWhosePositionThisPeerHoldsCount() {
        try (PeerStorage s = PeerStorage.inMemory(PLACEMENT.partitions())) {
            DigestIndex index = DigestIndex.attach(s, self);
            KeyValueStore.Batch b = s.store().newBatch();
            for (IndexedDocument d : TestCorpus.documents(40, 9)) for (Posting p : d.postings()) s.rwi().addTo(b, p.withHolder(other));
            s.store().write(b, false);
            List<PeerId> members = new ArrayList<>(List.of(self, other, third));
            for (int i = 0; i < 7; i++) members.add(PeerId.random(random));
            Ring ring = Ring.of(members);
            Digests held = new Digests();
            Digests all = new Digests();
            s.rwi().scanAll(p -> {
                all.addPosting(other, p, PLACEMENT.partitions());
                if (PLACEMENT.holds(self, PLACEMENT.partitions().position(p.word(), p.url()), ring)) {
                    held.addPosting(other, p, PLACEMENT.partitions());
                }
            });
            List<RangeDigest> heldDigests = held.digests();
            assertTrue(heldDigests.size() < all.digests().size(), "this peer holds only part of what it stores");
            assertEquals(List.of(), index.differing(heldDigests, self, PLACEMENT, ring));
            assertFalse(index.differing(all.digests(), self, PLACEMENT, ring).isEmpty(), "what it does not hold differs");
            assertEquals(List.of(), index.differing(all.digests(), self, PLACEMENT, null), "without a ring, everything counts");
            index.detach();
        }
    }

    @Test
    void aDifferingRangeListsTheHashesHeldThereSoOnlyTheMissingEntriesAreSent() {
        try (PeerStorage s = PeerStorage.inMemory(PLACEMENT.partitions())) {
            List<Posting> all = new ArrayList<>();
            for (IndexedDocument d : TestCorpus.documents(40, 11)) for (Posting p : d.postings()) all.add(p.withHolder(other));
            // the responder lacks every seventh posting the sender holds
            Set<String> missing = storeAllButEvery(7, all, s);
            DigestIndex index = DigestIndex.attach(s, self);
            Digests sender = new Digests();
            for (Posting p : all) sender.addPosting(other, p, PLACEMENT.partitions());

            List<RangeDigest.Differing> differing = index.differing(sender.digests(), self, null, PLACEMENT, null, Integer.MAX_VALUE, false);
            assertFalse(differing.isEmpty());
            Map<RangeDigest.Range, long[]> held = new HashMap<>();
            for (RangeDigest.Differing d : differing) {
                assertNotNull(d.held(), "within the bound every differing range lists what is held there");
                long[] sorted = d.held().clone();
                Arrays.sort(sorted);
                assertArrayEquals(sorted, d.held(), "sorted, for the sender's search");
                held.put(d.range(), d.held());
            }
            // what the sender then sends: its entries of a differing range whose hash the responder did not list
            Set<String> sent = new HashSet<>();
            for (Posting p : all) {
                long[] h = held.get(new RangeDigest.Range('p', other, Digests.bucketOf(p, PLACEMENT.partitions())));
                if (h != null && Arrays.binarySearch(h, Digests.entryHash(p.word(), p.url())) < 0) {
                    sent.add(p.word().value() + p.url().value());
                }
            }
            assertEquals(missing, sent, "exactly the missing postings, not their ranges whole");
            long listed = differing.stream().mapToLong(d -> d.held().length).sum();
            long inRanges = all.stream().filter(p -> held.containsKey(new RangeDigest.Range('p', other,
                    Digests.bucketOf(p, PLACEMENT.partitions())))).count();
            assertEquals(inRanges - missing.size(), listed, "the lists name what the responder holds of those ranges");

            // past the bound, ranges are sent whole; the lists given stay within it
            List<RangeDigest.Differing> bounded = index.differing(sender.digests(), self, null, PLACEMENT, null, 30, false);
            assertEquals(differing.size(), bounded.size());
            assertTrue(bounded.stream().filter(d -> d.held() != null).mapToLong(d -> d.held().length).sum() <= 30);
            assertTrue(bounded.stream().anyMatch(d -> d.held() == null), "a range past the bound has no list");
            assertTrue(bounded.stream().anyMatch(d -> d.held() != null && d.held().length > 0));
            assertTrue(index.differing(sender.digests(), self, null, PLACEMENT, null, 0, false).stream().allMatch(d -> d.held() == null));
            index.detach();
        }
    }

    @Test
    void digestsOfAllOriginsCompareWholeBucketsAndListEveryHashHeldThere() {
        try (PeerStorage s = PeerStorage.inMemory(PLACEMENT.partitions())) {
            // postings of three crawling peers; the responder lacks every ninth
            List<Posting> all = new ArrayList<>();
            List<IndexedDocument> docs = TestCorpus.documents(60, 13);
            for (int i = 0; i < docs.size(); i++) {
                PeerId origin = i % 3 == 0 ? other : i % 3 == 1 ? third : self;
                for (Posting p : docs.get(i).postings()) all.add(origin.equals(self) ? p : p.withHolder(origin));
            }
            Set<String> missing = storeAllButEvery(9, all, s);
            DigestIndex index = DigestIndex.attach(s, self);
            PeerId sender = PeerId.random(random);
            Digests perOrigin = new Digests();
            for (Posting p : all) perOrigin.addPosting(p.holder() == null ? self : p.holder(), p, PLACEMENT.partitions());
            List<RangeDigest> folded = Digests.foldOrigins(perOrigin.digests(), sender);
            // one digest a bucket and kind, not one per origin (60 documents spread thinly over 1,024 buckets)
            assertTrue(folded.size() < perOrigin.digests().size(), folded.size() + " against " + perOrigin.digests().size());
            assertEquals(folded.size(), folded.stream().map(d -> d.kind() + ":" + d.bucket()).distinct().count());
            assertTrue(folded.stream().allMatch(d -> d.origin().equals(sender)));
            assertEquals(all.size(), folded.stream().mapToLong(RangeDigest::count).sum());

            List<RangeDigest.Differing> differing = index.differing(folded, self, null, PLACEMENT, null, Integer.MAX_VALUE, true);
            Map<Integer, long[]> held = new HashMap<>();
            for (RangeDigest.Differing d : differing) {
                assertEquals(sender, d.range().origin(), "a range as it was asked");
                assertNotNull(d.held());
                held.put(d.range().bucket(), d.held());
            }
            Set<String> sent = new HashSet<>();
            for (Posting p : all) {
                long[] h = held.get(Digests.bucketOf(p, PLACEMENT.partitions()));
                if (h != null && Arrays.binarySearch(h, Digests.entryHash(p.word(), p.url())) < 0) {
                    sent.add(p.word().value() + p.url().value());
                }
            }
            assertEquals(missing, sent, "what the sender sends is exactly what is missing, of every origin");
            // in sync, nothing differs; compared per origin, folded sums differ wherever more than the sender crawled
            Digests present = new Digests();
            s.rwi().scanAll(p -> present.addPosting(p.holder() == null ? self : p.holder(), p, PLACEMENT.partitions()));
            assertEquals(List.of(), index.differing(Digests.foldOrigins(present.digests(), sender), self, null,
                    PLACEMENT, null, Integer.MAX_VALUE, true));
            assertFalse(index.differing(Digests.foldOrigins(present.digests(), sender), self, null, PLACEMENT, null,
                    Integer.MAX_VALUE, false).isEmpty(), "a responder comparing per origin sees every bucket differ");
            index.detach();
        }
    }

    @Test
    void manyOriginsInOneBucketAreCountedApartWhateverOrderEachIndexMetThem() {
        try (PeerStorage complete = PeerStorage.inMemory(PLACEMENT.partitions());
             PeerStorage partial = PeerStorage.inMemory(PLACEMENT.partitions())) {
            // 48 crawlers; the partial store meets them in the opposite order and lacks every fifth posting
            List<PeerId> crawlers = new ArrayList<>();
            for (int i = 0; i < 48; i++) crawlers.add(PeerId.random(random));
            List<Posting> all = new ArrayList<>();
            List<IndexedDocument> docs = TestCorpus.documents(96, 17);
            for (int i = 0; i < docs.size(); i++) {
                for (Posting p : docs.get(i).postings()) all.add(p.withHolder(crawlers.get(i % crawlers.size())));
            }
            DigestIndex full = DigestIndex.attach(complete, self);
            KeyValueStore.Batch b = complete.store().newBatch();
            for (Posting p : all) complete.rwi().addTo(b, p);
            complete.store().write(b, false);
            List<Posting> reversed = new ArrayList<>(all);
            Collections.reverse(reversed);
            Set<String> missing = storeAllButEvery(5, reversed, partial);
            DigestIndex lacking = DigestIndex.attach(partial, other);

            Digests sender = new Digests();
            for (Posting p : all) sender.addPosting(p.holder(), p, PLACEMENT.partitions());
            List<RangeDigest> digests = sender.digests();
            assertTrue(digests.stream().map(RangeDigest::bucket).distinct().count() < digests.size(),
                    "some bucket is asked about for several origins at once");
            assertEquals(List.of(), full.differing(digests, self, null, PLACEMENT, null, Integer.MAX_VALUE, false));

            List<RangeDigest.Differing> differing = lacking.differing(digests, other, null, PLACEMENT, null,
                    Integer.MAX_VALUE, false);
            Map<RangeDigest.Range, long[]> held = new HashMap<>();
            for (RangeDigest.Differing d : differing) held.put(d.range(), d.held());
            Set<String> sent = new HashSet<>();
            for (Posting p : all) {
                long[] h = held.get(new RangeDigest.Range('p', p.holder(), Digests.bucketOf(p, PLACEMENT.partitions())));
                if (h != null && Arrays.binarySearch(h, Digests.entryHash(p.word(), p.url())) < 0) {
                    sent.add(p.word().value() + p.url().value());
                }
            }
            assertEquals(missing, sent, "per origin, exactly the missing postings");
            // an origin no index in the process has met differs wherever its digest is not empty
            RangeDigest stranger = new RangeDigest('p', PeerId.random(random), digests.get(0).bucket(), 2, 99);
            assertEquals(List.of(stranger.range()), lacking.differing(List.of(stranger), other, PLACEMENT, null));
            full.detach();
            lacking.detach();
        }
    }

    @Test
    void entryHashFromPackedKeysEqualsTheHashOfTheStrings() {
        for (IndexedDocument d : TestCorpus.documents(5, 1)) {
            UrlMetadata m = d.metadata();
            byte[] meta = new byte[10];
            org.peerdex.storage.rwi.HashBytes.packInto(m.urlHash().value(), meta, 1);
            assertEquals(Digests.entryHash(null, m.urlHash()), Digests.entryHash(meta, -1, 1));
            for (Posting p : d.postings()) {
                byte[] key = new byte[19];
                org.peerdex.storage.rwi.HashBytes.packInto(p.word().value(), key, 1);
                org.peerdex.storage.rwi.HashBytes.packInto(p.url().value(), key, 10);
                assertEquals(Digests.entryHash(p.word(), p.url()), Digests.entryHash(key, 1, 10));
            }
        }
    }

    /** Stores every posting but each {@code n}th (from the first) in {@code s}; returns the left-out ones' word and URL hashes. */
    private static Set<String> storeAllButEvery(int n, List<Posting> all, PeerStorage s) {
        Set<String> missing = new HashSet<>();
        KeyValueStore.Batch b = s.store().newBatch();
        for (int i = 0; i < all.size(); i++) {
            if (i % n == 0) missing.add(all.get(i).word().value() + all.get(i).url().value());
            else s.rwi().addTo(b, all.get(i));
        }
        s.store().write(b, false);
        return missing;
    }
}
