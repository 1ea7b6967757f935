package org.peerdex.actors.dht.replication;

import java.util.concurrent.atomic.AtomicLongArray;
import org.peerdex.actors.dht.shard.Digests;
import org.peerdex.actors.dht.shard.HeldArcs;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * Which digest buckets may hold strays: postings another peer crawled (a holder set, not a cached copy) at
 * positions this peer does not hold, which a rebalance hands off. A superset, kept by observing the store's
 * writes and narrowed by scans that found a bucket without any. Whether a write is a stray is judged against the
 * arcs of the ring of the last plan ({@link #judgeBy}); before any plan every foreign write counts. So a bucket
 * without a mark holds foreign postings only at positions held in that ring, and a rebalance reads the marked
 * buckets, the ones where this peer's arcs shrank since that ring, and the held ones it has digests to offer
 * from, not the whole index (its own crawl elsewhere on the ring is offered only by full rebalances). Until a scan
 * has looked, every bucket counts as marked. Thread-safe.
 */
final class ForeignBuckets implements KeyValueStore.IndexObserver {
    private final PeerStorage storage;
    private final ReverseWordIndex rwi;
    /** per bucket: 0 clean, else a count that moves on every foreign write (so a scan cannot clear a newer one) */
    private final AtomicLongArray marks = new AtomicLongArray(Digests.BUCKETS);
    private final boolean observed;
    /** the arcs writes are judged against (null inside: holds nothing), or null before the first plan */
    private volatile Judge judge;

    /** The arcs of a plan's ring, or null arcs for a peer that holds nothing (a passive one). */
    record Judge(HeldArcs arcs) {
        boolean holds(long position) {
            return arcs != null && arcs.contains(position);
        }
    }

    ForeignBuckets(PeerStorage storage) {
        this.storage = storage;
        this.rwi = storage.rwi();
        for (int b = 0; b < Digests.BUCKETS; b++) marks.set(b, 1);
        this.observed = storage.store().addIndexObserver(this);
    }

    @Override
    public void put(byte[] key, byte[] value) {
        if (!ReverseWordIndex.isPostingKey(key)) return;
        if (PostingCodec.holderOffset(value) < 0 || (PostingCodec.flags(value) & Posting.CACHED) != 0) return;
        long position = rwi.position(key);
        Judge j = judge;
        if (j != null && j.holds(position)) return;
        marks.incrementAndGet(Digests.bucketOf(position));
    }

    @Override
    public void deleted(byte[] key) {
        // a delete can only make a bucket clean, which the next scan finds
    }

    /** From now on, a write is a stray unless {@code next} holds its position; returns the judge before (or null). */
    Judge judgeBy(Judge next) {
        Judge before = judge;
        judge = next;
        return before;
    }

    boolean marked(int bucket) {
        return !observed || marks.get(bucket) != 0;
    }

    /** The marks before a scan starts, for {@link #scanned}. */
    long[] snapshot() {
        long[] out = new long[Digests.BUCKETS];
        for (int b = 0; b < out.length; b++) out[b] = marks.get(b);
        return out;
    }

    /**
     * A scan read the buckets {@code read} and found strays in {@code found}: those stay marked (or become so: a
     * posting written where the judge's ring held it is a stray once the ring moved on), the others are clean.
     */
    void scanned(long[] before, boolean[] read, boolean[] found) {
        for (int b = 0; b < Digests.BUCKETS; b++) {
            if (!read[b]) continue;
            if (found[b]) marks.compareAndSet(b, 0, 1);
            else if (before[b] != 0) marks.compareAndSet(b, before[b], 0);
        }
    }

    void detach() {
        if (observed) storage.store().removeIndexObserver(this);
    }
}
