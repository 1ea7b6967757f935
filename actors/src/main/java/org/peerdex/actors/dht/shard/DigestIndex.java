package org.peerdex.actors.dht.shard;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.meta.Cbor;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.HashBytes;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * What anti-entropy needs from a peer's index, compact and grouped by digest bucket: per entry its DHT position,
 * entry hash and origin. Built by one scan when attached, then kept up to date write by write: it observes the
 * store ({@link KeyValueStore.IndexObserver}), so every writer (the shard owner's stores, the local indexer,
 * hand-off deletes, cached search results, blacklist purges) is followed without scanning again. Answering a
 * request reads only the buckets it names, each once. Thread-safe.
 */
public final class DigestIndex implements KeyValueStore.IndexObserver {
    private static final byte[] META_PREFIX = {Keyspace.META};
    private static final int META_KEY_LENGTH = 1 + HashBytes.PACKED;
    private final PeerStorage storage;
    private final ReverseWordIndex rwi;
    /** the origin id of our own crawl (entries without a holder) */
    private final int selfOrigin;
    /** the last holder met (packed) and its origin id: a store of one sender's batch names one crawler again and again */
    private final byte[] lastHolder = new byte[HashBytes.PACKED];
    private int lastHolderId = -1;
    /** whether the store reports writes; if not, every answer scans again */
    private final boolean observed;
    private final Buckets postings = new Buckets();
    private final Buckets metadata = new Buckets();

    private DigestIndex(PeerStorage storage, PeerId self, boolean observe) {
        this.storage = storage;
        this.rwi = storage.rwi();
        this.selfOrigin = OriginIds.of(self.value());
        // writes from here on reach the index; the scan below then covers what was there before (both idempotent)
        this.observed = observe && storage.store().addIndexObserver(this);
    }

    /** An index of {@code storage} that follows its writes until {@link #detach}. */
    public static DigestIndex attach(PeerStorage storage, PeerId self) {
        DigestIndex index = new DigestIndex(storage, self, true);
        index.rebuild();
        return index;
    }

    /** A snapshot of {@code storage} now, that does not follow later writes. */
    public static DigestIndex snapshot(PeerStorage storage, PeerId self) {
        DigestIndex index = new DigestIndex(storage, self, false);
        index.rebuild();
        return index;
    }

    /** Stops following the store. */
    public void detach() {
        if (observed) storage.store().removeIndexObserver(this);
    }

    private synchronized void rebuild() {
        postings.clear();
        metadata.clear();
        rwi.scanEntries(this::put);
        try (KeyValueStore.Cursor c = storage.store().scanPrefix(META_PREFIX)) {
            while (c.next()) put(c.key(), c.value());
        }
    }

    @Override
    public synchronized void put(byte[] key, byte[] value) {
        if (ReverseWordIndex.isPostingKey(key)) {
            long hash = Digests.entryHash(key, ReverseWordIndex.WORD_OFFSET, ReverseWordIndex.URL_OFFSET);
            long position = rwi.position(key);
            Table t = table(postings, Digests.bucketOf(position), true);
            if ((PostingCodec.flags(value) & Posting.CACHED) != 0) {
                t.remove(hash); // a cached copy does not count (and replaced whatever was stored under its key)
                return;
            }
            int at = PostingCodec.holderOffset(value);
            t.put(hash, position, at < 0 ? selfOrigin : holderId(value, at));
        } else if (key.length == META_KEY_LENGTH && key[0] == Keyspace.META) {
            long position = HashBytes.position(key, 1);
            String holder = Cbor.read(value, UrlMetadata.class).holder();
            table(metadata, Digests.bucketOf(position), true)
                    .put(Digests.entryHash(key, -1, 1), position, holder == null ? selfOrigin : OriginIds.of(holder));
        }
    }

    private int holderId(byte[] value, int at) {
        if (lastHolderId < 0 || !Arrays.equals(value, at, at + HashBytes.PACKED, lastHolder, 0, HashBytes.PACKED)) {
            lastHolderId = OriginIds.of(HashBytes.unpack(value, at));
            System.arraycopy(value, at, lastHolder, 0, HashBytes.PACKED);
        }
        return lastHolderId;
    }

    @Override
    public synchronized void deleted(byte[] key) {
        if (ReverseWordIndex.isPostingKey(key)) {
            Table t = postings.get(Digests.bucketOf(rwi.position(key)));
            if (t != null) t.remove(Digests.entryHash(key, ReverseWordIndex.WORD_OFFSET, ReverseWordIndex.URL_OFFSET));
        } else if (key.length == META_KEY_LENGTH && key[0] == Keyspace.META) {
            Table t = metadata.get(Digests.bucketOf(HashBytes.position(key, 1)));
            if (t != null) t.remove(Digests.entryHash(key, -1, 1));
        }
    }

    private static Table table(Buckets tables, int bucket, boolean positions) {
        Table t = tables.get(bucket);
        if (t == null) tables.put(bucket, t = new Table(positions));
        return t;
    }

    /** Entries indexed now (postings, metadata); for tests. */
    synchronized long[] size() {
        long p = 0;
        long m = 0;
        for (int i = 0; i < postings.used(); i++) p += postings.at(i).size;
        for (int i = 0; i < metadata.used(); i++) m += metadata.at(i).size;
        return new long[] {p, m};
    }

    /**
     * Our digests of the ranges {@code offered} names, compared: the ranges that differ. With a ring, an entry
     * counts where the sender counted it ({@link RangeDigest}): kinds 'p' and 'm' at positions both {@code self} and
     * {@code from} hold, kinds 'c' and 'd' at positions {@code self} holds and {@code from} does not (what we hold
     * but should hand off never counts); with no ring, every entry counts; with no sender, its holdings are not
     * asked. Each bucket named is read once per kind, for all the origins asked about.
     */
    public List<RangeDigest.Range> differing(List<RangeDigest> offered, PeerId self, PeerId from, Placement placement,
                                             Ring ring) {
        List<RangeDigest.Differing> d = differing(offered, self, from, placement, ring, 0, false);
        List<RangeDigest.Range> out = new ArrayList<>(d.size());
        for (RangeDigest.Differing x : d) out.add(x.range());
        return out;
    }

    /**
     * As {@link #differing(List, PeerId, PeerId, Placement, Ring)}, each differing range with the entry hashes we
     * hold in it (the entries that counted for our digest), sorted, as long as the ranges' lists together stay within
     * {@code maxHeld} hashes; a range past that bound has none (its sender sends it whole). A range's list costs a
     * second pass over its bucket, only when it differs. With {@code allOrigins}, a 'p' or 'm' digest counts the
     * entries of every origin in its bucket, whatever origin it names ('c' and 'd' stay the sender's own crawl).
     */
    public List<RangeDigest.Differing> differing(List<RangeDigest> offered, PeerId self, PeerId from,
                                                 Placement placement, Ring ring, int maxHeld, boolean allOrigins) {
        if (!observed) rebuild();
        boolean ringed = ring != null && !ring.isEmpty();
        HeldArcs held = ringed ? HeldArcs.of(self, placement, ring) : null;
        HeldArcs theirs = ringed && from != null ? HeldArcs.of(from, placement, ring) : null;
        // by kind and bucket: kind in the high bits
        Map<Integer, List<RangeDigest>> byRange = new LinkedHashMap<>();
        for (RangeDigest d : offered) byRange.computeIfAbsent(d.kind() << 16 | d.bucket(), k -> new ArrayList<>()).add(d);
        List<RangeDigest.Differing> out = new ArrayList<>();
        int budget = Math.max(0, maxHeld);
        synchronized (this) {
            for (Map.Entry<Integer, List<RangeDigest>> e : byRange.entrySet()) {
                char kind = (char) (e.getKey() >>> 16);
                int bucket = e.getKey() & 0xffff;
                List<RangeDigest> asked = e.getValue();
                Table t = (RangeDigest.isPostings(kind) ? postings : metadata).get(bucket);
                boolean crawl = RangeDigest.isCrawl(kind);
                boolean folded = allOrigins && !crawl;
                // the origins asked about in this bucket, each a slot of the counts (unknown origins: -1)
                Slots slots = folded ? null : Slots.of(asked);
                int n = slots == null ? 0 : slots.size();
                long[] counts = new long[n];
                long[] sums = new long[n];
                long totalCount = 0;
                long totalSum = 0;
                // the arcs within this bucket's positions (one or two), where a search of all of them per entry was a
                // seventh of a 500-peer simulation's main phase
                HeldArcs.Clip heldHere = held == null || t == null ? null
                        : held.clip(Digests.bucketStart(bucket), Digests.bucketEnd(bucket));
                HeldArcs.Clip theirsHere = theirs == null || t == null ? null
                        : theirs.clip(Digests.bucketStart(bucket), Digests.bucketEnd(bucket));
                // no held position in the bucket: nothing of it counts
                if (t != null && !(heldHere != null && heldHere.isEmpty())) {
                    if (folded) {
                        for (int i = 0; i < t.origins.length; i++) {
                            if (t.origins[i] == 0 || !counted(t, i, heldHere, theirsHere, crawl)) continue;
                            totalCount++;
                            totalSum += t.hashes[i];
                        }
                    } else if (n == 1) {
                        // one origin asked (a crawl digest names its sender): an entry of another is passed by
                        // at the cost of a comparison, before its position is checked
                        int only = slots.onlyOrigin() + 1;
                        for (int i = 0; i < t.origins.length; i++) {
                            if (t.origins[i] != only || !counted(t, i, heldHere, theirsHere, crawl)) continue;
                            counts[0]++;
                            sums[0] += t.hashes[i];
                        }
                    } else if (n > 1) {
                        for (int i = 0; i < t.origins.length; i++) {
                            int s = slots.slot(t.origins[i] - 1);
                            if (s < 0 || !counted(t, i, heldHere, theirsHere, crawl)) continue;
                            counts[s]++;
                            sums[s] += t.hashes[i];
                        }
                    }
                }
                // the differing ranges' origins (or, folded, the whole bucket) whose held hashes fit the budget:
                // their lists, filled below
                long[][] lists = null;
                int[] filled = null;
                long[] all = null;
                List<Integer> listed = new ArrayList<>();
                for (RangeDigest d : asked) {
                    int s = folded ? -1 : slots.slot(OriginIds.find(d.origin().value()));
                    long count = folded ? totalCount : s < 0 ? 0 : counts[s];
                    long sum = folded ? totalSum : s < 0 ? 0 : sums[s];
                    if (count == d.count() && sum == d.sum()) continue;
                    if (count == 0) {
                        out.add(new RangeDigest.Differing(d.range(), budget > 0 ? new long[0] : null));
                    } else if (folded) {
                        if (all == null && count <= budget) {
                            budget -= (int) count;
                            all = new long[(int) count];
                        }
                        out.add(new RangeDigest.Differing(d.range(), all));
                    } else if (count <= budget && (lists == null || lists[s] == null)) {
                        budget -= (int) count;
                        if (lists == null) {
                            lists = new long[n][];
                            filled = new int[n];
                        }
                        lists[s] = new long[(int) count];
                        listed.add(s);
                        out.add(new RangeDigest.Differing(d.range(), lists[s]));
                    } else {
                        out.add(new RangeDigest.Differing(d.range(), lists != null && lists[s] != null ? lists[s] : null));
                    }
                }
                if (lists == null && all == null) continue;
                int allFilled = 0;
                for (int i = 0; i < t.origins.length; i++) {
                    int o = t.origins[i] - 1;
                    if (o < 0 || !counted(t, i, heldHere, theirsHere, crawl)) continue;
                    if (all != null) all[allFilled++] = t.hashes[i];
                    int s = lists == null ? -1 : slots.slot(o);
                    if (s >= 0 && lists[s] != null) lists[s][filled[s]++] = t.hashes[i];
                }
                if (all != null) Arrays.sort(all);
                for (int s : listed) Arrays.sort(lists[s]);
            }
        }
        return out;
    }

    /** Whether entry {@code i} of {@code t} counts for a digest of this kind between us and the sender. */
    private static boolean counted(Table t, int i, HeldArcs.Clip held, HeldArcs.Clip theirs, boolean crawl) {
        if (held == null) return true;
        long position = t.positions[i];
        if (!held.contains(position)) return false;
        return theirs == null || theirs.contains(position) != crawl;
    }

    /** {@link #differing(List, PeerId, PeerId, Placement, Ring)} without a sender: what {@code self} holds counts. */
    public List<RangeDigest.Range> differing(List<RangeDigest> offered, PeerId self, Placement placement, Ring ring) {
        return differing(offered, self, null, placement, ring);
    }

    /**
     * The distinct origins a bucket's digests ask about, each a slot 0..n-1, found by origin id (open addressing):
     * counting per slot keeps a request's arrays as small as its question, whatever the process's numbering.
     */
    private static final class Slots {
        private final int[] keys;
        private final int[] slots;
        private int size;

        private Slots(int capacity) {
            int cap = Integer.highestOneBit(Math.max(4, capacity * 2 - 1)) << 1;
            keys = new int[cap];
            slots = new int[cap];
            Arrays.fill(keys, -1);
        }

        static Slots of(List<RangeDigest> asked) {
            Slots s = new Slots(asked.size());
            for (RangeDigest d : asked) {
                int id = OriginIds.find(d.origin().value());
                if (id >= 0) s.add(id);
            }
            return s;
        }

        /** Where {@code id} is in the table, or the empty place it would take. */
        private int place(int id) {
            int mask = keys.length - 1;
            int i = (id * 0x9E3779B1) >>> 16 & mask;
            while (keys[i] != -1 && keys[i] != id) i = (i + 1) & mask;
            return i;
        }

        private void add(int id) {
            int i = place(id);
            if (keys[i] == id) return;
            keys[i] = id;
            slots[i] = size++;
        }

        /** The slot of origin {@code id}, or -1 if not asked about (or -1 itself). */
        int slot(int id) {
            if (id < 0) return -1;
            int i = place(id);
            return keys[i] == id ? slots[i] : -1;
        }

        int size() {
            return size;
        }

        /** The one origin asked about, when {@link #size} is 1. */
        int onlyOrigin() {
            for (int i = 0; i < keys.length; i++) if (keys[i] != -1) return keys[i];
            throw new IllegalStateException("no origin");
        }
    }

    /**
     * The tables of the buckets in use, by bucket, sorted: a peer of a large ring holds entries in a few dozen of the
     * {@link Digests#BUCKETS} buckets (two arrays of 1,024 empty slots were 8 KiB a virtual peer, 800 MB at 100,000).
     */
    private static final class Buckets {
        private int[] buckets = new int[4];
        private Table[] tables = new Table[4];
        private int used;

        Table get(int bucket) {
            int i = Arrays.binarySearch(buckets, 0, used, bucket);
            return i >= 0 ? tables[i] : null;
        }

        void put(int bucket, Table t) {
            int i = Arrays.binarySearch(buckets, 0, used, bucket);
            if (i >= 0) {
                tables[i] = t;
                return;
            }
            i = -i - 1;
            if (used == buckets.length) {
                buckets = Arrays.copyOf(buckets, used * 2);
                tables = Arrays.copyOf(tables, used * 2);
            }
            System.arraycopy(buckets, i, buckets, i + 1, used - i);
            System.arraycopy(tables, i, tables, i + 1, used - i);
            buckets[i] = bucket;
            tables[i] = t;
            used++;
        }

        int used() {
            return used;
        }

        Table at(int i) {
            return tables[i];
        }

        void clear() {
            Arrays.fill(tables, null);
            used = 0;
        }
    }

    /** One bucket's entries: an open-addressing table by entry hash (linear probing, origin + 1; 0 = empty). */
    private static final class Table {
        long[] hashes;
        long[] positions;
        int[] origins;
        int size;

        Table(boolean withPositions) {
            // most buckets of a virtual peer hold a few entries: start small, double as they come
            hashes = new long[4];
            positions = withPositions ? new long[4] : null;
            origins = new int[4];
        }

        private static int home(long hash, int mask) {
            return (int) (hash ^ (hash >>> 32)) & mask;
        }

        void put(long hash, long position, int origin) {
            if ((size + 1) * 4 > origins.length * 3) grow();
            int mask = origins.length - 1;
            int i = home(hash, mask);
            while (origins[i] != 0 && hashes[i] != hash) i = (i + 1) & mask;
            if (origins[i] == 0) size++;
            hashes[i] = hash;
            if (positions != null) positions[i] = position;
            origins[i] = origin + 1;
        }

        void remove(long hash) {
            int mask = origins.length - 1;
            int i = home(hash, mask);
            while (origins[i] != 0 && hashes[i] != hash) i = (i + 1) & mask;
            if (origins[i] == 0) return;
            size--;
            // backward-shift deletion: move later entries of the probe run into the gap
            int gap = i;
            for (int j = (i + 1) & mask; origins[j] != 0; j = (j + 1) & mask) {
                int h = home(hashes[j], mask);
                // j may move to the gap if its home is not in (gap, j] (cyclically)
                boolean between = gap <= j ? (h > gap && h <= j) : (h > gap || h <= j);
                if (between) continue;
                hashes[gap] = hashes[j];
                if (positions != null) positions[gap] = positions[j];
                origins[gap] = origins[j];
                gap = j;
            }
            origins[gap] = 0;
        }

        private void grow() {
            long[] oh = hashes;
            long[] op = positions;
            int[] oo = origins;
            int cap = oo.length * 2;
            hashes = new long[cap];
            positions = op == null ? null : new long[cap];
            origins = new int[cap];
            size = 0;
            for (int i = 0; i < oo.length; i++) {
                if (oo[i] != 0) put(oh[i], op == null ? 0 : op[i], oo[i] - 1);
            }
        }
    }
}
