package org.peerdex.actors.dht.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.TestCorpus;
import org.peerdex.actors.dht.shard.Digests;
import org.peerdex.actors.dht.shard.HeldArcs;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.protocol.ring.RingPosition;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.rwi.Posting;

/** The buckets a rebalance reads when it is not full: every held position's, every foreign posting's. */
class IndexScanTest {
    private static final Placement PLACEMENT = Placement.defaults();

    @Test
    void heldBucketsCoverEveryPositionThePeerHoldsAndLittleElse() {
        Random r = new Random(11);
        for (int size : new int[] {1, 3, 7, 8, 20, 500}) {
            List<PeerId> members = new ArrayList<>();
            for (int i = 0; i < size; i++) members.add(PeerId.random(r));
            Ring ring = Ring.of(members);
            for (PeerId self : members.subList(0, Math.min(5, size))) {
                HeldArcs arcs = HeldArcs.of(self, PLACEMENT, ring);
                boolean[] held = arcs.buckets();
                for (int i = 0; i < 20_000; i++) {
                    long position = r.nextLong() & RingPosition.MAX;
                    assertEquals(PLACEMENT.holds(self, position, ring), arcs.contains(position), "arcs = placement");
                    if (PLACEMENT.holds(self, position, ring)) {
                        assertTrue(held[Digests.bucketOf(position)], "ring of " + size + ": position held, bucket not");
                    }
                }
                // positions at and around the peers' own positions (the arcs' ends)
                for (PeerId p : members) {
                    for (long delta : new long[] {-1, 0, 1}) {
                        long position = (p.position() + delta) & RingPosition.MAX;
                        assertEquals(PLACEMENT.holds(self, position, ring), arcs.contains(position), "arcs = placement");
                        if (PLACEMENT.holds(self, position, ring)) assertTrue(held[Digests.bucketOf(position)]);
                    }
                }
                if (size == 500) {
                    int n = 0;
                    for (boolean b : held) if (b) n++;
                    assertTrue(n < 60, "a peer of 500 holds about 3/500 of the ring, not " + n + " buckets");
                }
            }
        }
        List<PeerId> nine = new ArrayList<>();
        for (int i = 0; i < 9; i++) nine.add(PeerId.random(r));
        boolean[] outside = HeldArcs.of(PeerId.random(r), PLACEMENT, Ring.of(nine)).buckets();
        for (boolean b : outside) assertFalse(b, "a peer outside the ring holds nothing");
    }

    @Test
    void foreignBucketsAreMarkedByWritesFromOthersAndClearedOnlyByAScanThatSawNone() {
        Random r = new Random(12);
        PeerId other = PeerId.random(r);
        try (PeerStorage s = PeerStorage.inMemory(PLACEMENT.partitions())) {
            ForeignBuckets foreign = new ForeignBuckets(s);
            for (int b = 0; b < Digests.BUCKETS; b++) assertTrue(foreign.marked(b), "unknown until scanned");
            boolean[] all = new boolean[Digests.BUCKETS];
            java.util.Arrays.fill(all, true);
            foreign.scanned(foreign.snapshot(), all, new boolean[Digests.BUCKETS]);
            for (int b = 0; b < Digests.BUCKETS; b++) assertFalse(foreign.marked(b));
            // own crawl and cached copies do not mark; postings stored for others do
            List<IndexedDocument> docs = TestCorpus.documents(20, 4);
            for (IndexedDocument d : docs.subList(0, 10)) s.writer().add(d);
            s.writer().flush();
            KeyValueStore.Batch cached = s.store().newBatch();
            for (Posting p : docs.get(10).postings()) s.rwi().addTo(cached, p.asCached(other, 5));
            s.store().write(cached, false);
            for (int b = 0; b < Digests.BUCKETS; b++) assertFalse(foreign.marked(b));
            long[] before = foreign.snapshot();
            KeyValueStore.Batch stored = s.store().newBatch();
            for (Posting p : docs.get(11).postings()) s.rwi().addTo(stored, p.withHolder(other));
            s.store().write(stored, false);
            for (Posting p : docs.get(11).postings()) {
                int b = Digests.bucketOf(PLACEMENT.partitions().position(p.word(), p.url()));
                assertTrue(foreign.marked(b));
            }
            // a scan that started before those writes cannot clear their marks
            foreign.scanned(before, all, new boolean[Digests.BUCKETS]);
            for (Posting p : docs.get(11).postings()) {
                assertTrue(foreign.marked(Digests.bucketOf(PLACEMENT.partitions().position(p.word(), p.url()))));
            }
            foreign.detach();
        }
    }
}
