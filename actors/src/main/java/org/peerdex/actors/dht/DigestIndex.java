package org.peerdex.actors.dht;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.rwi.Posting;

/**
 * What anti-entropy needs from a peer's index, compact and grouped by digest bucket: per entry its DHT position,
 * entry hash and origin. Built by one scan and reused while the store's {@code indexGeneration} stays put (or,
 * on a peer that is being written to, for up to {@link #MAX_STALE_MILLIS}), so a burst of digest requests costs
 * one scan instead of one per request; answering a request reads only the buckets it names. A stale index can
 * only miss writes of the last moments: a range then looks differing and its sender sends it again (stores are
 * idempotent). Immutable once built.
 */
final class DigestIndex {
    /** How long an index may serve after the store changed. */
    static final long MAX_STALE_MILLIS = 2_000;
    private final long generation;
    private final long builtAt;
    private final PeerId[] origins;
    private final Kind postings;
    private final Kind metadata;

    /** The entries of one kind, sorted by bucket: bucket b's entries are {@code start[b] .. start[b + 1] - 1}. */
    private record Kind(int[] start, long[] positions, long[] hashes, int[] origins) {}

    private DigestIndex(long generation, long builtAt, PeerId[] origins, Kind postings, Kind metadata) {
        this.generation = generation;
        this.builtAt = builtAt;
        this.origins = origins;
        this.postings = postings;
        this.metadata = metadata;
    }

    /** The cached index if {@code storage} has not changed since it was built or it is fresh enough, else a new one. */
    static DigestIndex current(DigestIndex cached, PeerStorage storage, PeerId self, long nowMillis) {
        long generation = storage.store().indexGeneration();
        if (cached != null && generation >= 0
                && (cached.generation == generation || nowMillis - cached.builtAt < MAX_STALE_MILLIS)) return cached;
        return build(storage, self, generation, nowMillis);
    }

    static DigestIndex build(PeerStorage storage, PeerId self, long generation, long nowMillis) {
        Map<PeerId, Integer> originIds = new HashMap<>();
        List<PeerId> originList = new ArrayList<>();
        Collector p = new Collector();
        Collector m = new Collector();
        var partitions = storage.rwi().partitions();
        storage.rwi().scanAll(x -> !x.has(Posting.CACHED), x -> {
            PeerId origin = x.holder() == null ? self : x.holder();
            long position = partitions.position(x.word(), x.url());
            p.add(position, Digests.entryHash(x.word(), x.url()), id(originIds, originList, origin));
        });
        storage.metadata().scanAll(md -> {
            PeerId origin = md.holder() == null ? self : PeerId.parse(md.holder());
            m.add(md.urlHash().position(), Digests.entryHash(null, md.urlHash()), id(originIds, originList, origin));
        });
        return new DigestIndex(generation, nowMillis, originList.toArray(PeerId[]::new), p.sorted(), m.sorted());
    }

    private static int id(Map<PeerId, Integer> ids, List<PeerId> list, PeerId origin) {
        Integer id = ids.get(origin);
        if (id == null) {
            id = list.size();
            ids.put(origin, id);
            list.add(origin);
        }
        return id;
    }

    /**
     * Our digests of the ranges {@code offered} names, compared: the ranges that differ. Postings count only where
     * {@code self} holds their position in {@code ring} (what we hold but should hand off does not count); with no
     * ring, every posting counts.
     */
    List<RangeDigest.Range> differing(List<RangeDigest> offered, PeerId self, Placement placement, Ring ring) {
        Map<PeerId, Integer> originIds = new HashMap<>();
        for (int i = 0; i < origins.length; i++) originIds.put(origins[i], i);
        boolean filter = ring != null && !ring.isEmpty();
        List<RangeDigest.Range> out = new ArrayList<>();
        for (RangeDigest d : offered) {
            Integer origin = originIds.get(d.origin());
            long count = 0;
            long sum = 0;
            if (origin != null) {
                Kind k = d.kind() == 'p' ? postings : metadata;
                for (int i = k.start[d.bucket()]; i < k.start[d.bucket() + 1]; i++) {
                    if (k.origins[i] != origin) continue;
                    if (d.kind() == 'p' && filter && !placement.holds(self, k.positions[i], ring)) continue;
                    count++;
                    sum += k.hashes[i];
                }
            }
            if (count != d.count() || sum != d.sum()) out.add(d.range());
        }
        return out;
    }

    private static final class Collector {
        long[] positions = new long[64];
        long[] hashes = new long[64];
        int[] origins = new int[64];
        int n;

        void add(long position, long hash, int origin) {
            if (n == positions.length) {
                positions = java.util.Arrays.copyOf(positions, n * 2);
                hashes = java.util.Arrays.copyOf(hashes, n * 2);
                origins = java.util.Arrays.copyOf(origins, n * 2);
            }
            positions[n] = position;
            hashes[n] = hash;
            origins[n] = origin;
            n++;
        }

        /** A counting sort by bucket. */
        Kind sorted() {
            int[] start = new int[Digests.BUCKETS + 1];
            for (int i = 0; i < n; i++) start[Digests.bucketOf(positions[i]) + 1]++;
            for (int b = 0; b < Digests.BUCKETS; b++) start[b + 1] += start[b];
            int[] next = java.util.Arrays.copyOf(start, Digests.BUCKETS);
            long[] pos = new long[n];
            long[] hs = new long[n];
            int[] os = new int[n];
            for (int i = 0; i < n; i++) {
                int at = next[Digests.bucketOf(positions[i])]++;
                pos[at] = positions[i];
                hs[at] = hashes[i];
                os[at] = origins[i];
            }
            return new Kind(start, pos, hs, os);
        }
    }
}
