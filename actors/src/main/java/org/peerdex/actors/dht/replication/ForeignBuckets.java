package org.peerdex.actors.dht.replication;

import java.util.concurrent.atomic.AtomicLongArray;
import org.peerdex.actors.dht.shard.Digests;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * Which digest buckets may hold postings another peer crawled (a holder set, not a cached copy): a superset,
 * kept by observing the store's writes and narrowed by scans that found a bucket without any. A rebalance that
 * only hands off what this peer no longer holds and offers what it holds then reads these buckets and the ones it
 * holds, not the whole index (its own crawl elsewhere on the ring is offered only by full rebalances). Until a
 * scan has looked, every bucket counts as marked. Thread-safe.
 */
final class ForeignBuckets implements KeyValueStore.IndexObserver {
    private final PeerStorage storage;
    private final ReverseWordIndex rwi;
    /** per bucket: 0 clean, else a count that moves on every foreign write (so a scan cannot clear a newer one) */
    private final AtomicLongArray marks = new AtomicLongArray(Digests.BUCKETS);
    private final boolean observed;

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
        marks.incrementAndGet(Digests.bucketOf(rwi.position(key)));
    }

    @Override
    public void deleted(byte[] key) {
        // a delete can only make a bucket clean, which the next scan finds
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

    /** A scan read the buckets {@code read} and found foreign postings in {@code found}: the others are clean. */
    void scanned(long[] before, boolean[] read, boolean[] found) {
        for (int b = 0; b < Digests.BUCKETS; b++) {
            if (read[b] && !found[b] && before[b] != 0) marks.compareAndSet(b, before[b], 0);
        }
    }

    void detach() {
        if (observed) storage.store().removeIndexObserver(this);
    }
}
