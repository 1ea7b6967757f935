package org.peerdex.actors.dht.replication;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import org.peerdex.actors.dht.shard.DhtBlacklist;
import org.peerdex.actors.dht.shard.Digests;
import org.peerdex.actors.dht.shard.HeldArcs;
import org.peerdex.actors.dht.shard.RangeDigest;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * A rebalance plan from the index, without the actor: which digests this peer offers to which holder, and which
 * postings it hands off because it no longer holds them. The {@link Replicator} runs it on the index dispatcher
 * when the ring changes and on the repair timers, and turns the plan into digest exchanges and outbox batches.
 * Blocking (reads the whole index or the buckets that matter); not thread-safe (one plan at a time).
 */
final class RebalancePlanner {
    /** What a rebalance offers digests of, and to whom (in the order of how much it covers). */
    enum Mode {
        /** what it holds, to co-holders that are new since the last DELTA or FULL rebalance */
        DELTA,
        /** what it holds, to every co-holder */
        HELD,
        /** what it holds or crawled, to every holder */
        FULL;

        Mode and(Mode other) {
            return this == other ? this : this == DELTA ? other : other == DELTA ? this : FULL;
        }
    }

    /**
     * What a rebalance found: digests to offer per target (per origin, or for the targets in {@code folded} one
     * digest a bucket, {@link Digests#foldOrigins}), postings to hand off per target; and how many of the index's
     * digest buckets it read.
     */
    record Plan(Ring ring, Map<PeerId, List<RangeDigest>> digests, Set<PeerId> folded,
                Map<PeerId, Batching.Targeted> handoff, List<Posting> handoffPostings, boolean handoffTruncated,
                int bucketsRead) {}

    private final PeerId self;
    private final PeerStorage storage;
    private final Placement placement;
    private final boolean acceptRemoteIndex;
    private final int maxHandoff;
    private final ForeignBuckets foreign;

    /**
     * @param acceptRemoteIndex an active peer holds ranges; a passive one holds none and hands off all but its crawl
     * @param maxHandoff        postings one plan hands off at most (the rest in later rounds, {@link Plan#handoffTruncated})
     * @param foreign           the buckets that may hold other peers' postings (narrowed by this planner's scans)
     */
    RebalancePlanner(PeerId self, PeerStorage storage, Placement placement, boolean acceptRemoteIndex, int maxHandoff,
                     ForeignBuckets foreign) {
        this.self = self;
        this.storage = storage;
        this.placement = placement;
        this.acceptRemoteIndex = acceptRemoteIndex;
        this.maxHandoff = maxHandoff;
        this.foreign = foreign;
    }

    /**
     * The peers at the points around each of {@code self}'s points, walking out on either side until {@code r}
     * other peers are met (the whole ring if it is small), in point order, one run per point of {@code self}: the
     * holders of every position {@code self} holds, and the boundaries of those positions, lie among them. Two
     * rings with the same neighbourhood place {@code self}'s positions alike (positions follow from ids, so the
     * same peers in the same order stand at the same points).
     */
    static List<PeerId> neighbourhood(PeerId self, Ring ring, int r) {
        int[] own = ring.pointsOf(self);
        if (ring.size() <= 2 * r + 1 || own.length == 0) return ring.members();
        List<PeerId> out = new ArrayList<>(own.length * (2 * r + 1));
        for (int j : own) {
            int left = reach(self, ring, j, -1, r);
            int right = reach(self, ring, j, 1, r);
            for (int d = -left; d <= right; d++) out.add(ring.get(j + d));
        }
        return out;
    }

    /**
     * The ring without {@code away} as far as {@code self}'s positions can tell: a ring of only the peers of
     * {@code self}'s neighbourhood, reached out far enough that {@code r} others remain on either side of each of its
     * points once {@code away} is gone, less {@code away}. For every position {@code self} holds in {@code ring} it
     * names the same holders (and has the same points among {@code self}'s ranges) as {@code ring} without
     * {@code away}, which is all a DELTA plan asks of a base ring: the holders of positions it holds. The whole ring
     * without a restarted peer is what it stands for, but at 100,000 peers that is a 1.6-million-point ring, and
     * every co-holder of a restarted peer kept its own copy as a base until its next plan (19 MB each; a 16 GiB heap
     * ran out as the churn began). This is a few hundred points.
     */
    static Ring localRingWithout(PeerId self, Ring ring, int r, Collection<PeerId> away) {
        Ring local = ring.size() <= 2 * (r + away.size()) + 1 ? ring
                : Ring.of(neighbourhood(self, ring, r + away.size()), ring.positionsPerPeer());
        for (PeerId id : away) local = local.without(id);
        return local;
    }

    /** How many points from point {@code j} in direction {@code dir} until {@code r} peers other than self. */
    private static int reach(PeerId self, Ring ring, int j, int dir, int r) {
        Set<PeerId> met = new HashSet<>();
        int d = 0;
        while (met.size() < r && d < ring.points()) {
            d++;
            PeerId p = ring.get(j + dir * d);
            if (!p.equals(self)) met.add(p);
        }
        return d;
    }

    /** The digest accumulators a run of entries of one position, origin and kind adds to (see {@link #plan}). */
    private static final class DigestRun {
        private long position = -1;
        private PeerId origin;
        private char kind;
        long[][] acc;
        /** the position whose co-holders' digests {@link #perHolder} are (null for self), in the holders' order */
        long holdersPosition = -1;
        Digests[] perHolder;

        boolean same(long position, PeerId origin, char kind) {
            return acc != null && position == this.position && origin == this.origin && kind == this.kind;
        }

        void start(long position, PeerId origin, char kind, long[][] acc) {
            this.position = position;
            this.origin = origin;
            this.kind = kind;
            this.acc = acc;
        }
    }

    /** A full plan: digests of everything to every holder (per origin). */
    Plan plan(Ring ring) {
        return plan(ring, List.of(), Mode.FULL);
    }

    /** A plan with digests per origin to every target. */
    Plan plan(Ring ring, List<Ring> bases, Mode mode) {
        return plan(ring, bases, mode, peer -> true);
    }

    /**
     * Scans the index and the metadata: what to hand off, which digests to offer (see {@link Mode}). With
     * {@code bases} (DELTA: the ring of the last DELTA or FULL rebalance and every ring seen since) digests go only
     * to holders that were not holders in one of the bases. Digests go per origin to the targets {@code perOrigin}
     * names, and folded (one digest a bucket) to the others.
     */
    Plan plan(Ring ring, List<Ring> bases, Mode mode, Predicate<PeerId> perOrigin) {
        Map<PeerId, Digests> digests = new HashMap<>();
        Function<PeerId, Digests> newDigests = peer -> perOrigin.test(peer) ? new Digests() : Digests.folded(self);
        Map<PeerId, Batching.Targeted> handoff = new HashMap<>();
        List<Posting> handoffPostings = new ArrayList<>();
        boolean[] truncated = {false};
        boolean active = acceptRemoteIndex;
        // blocked entries are neither offered in digests nor handed off (they stay here, never sent)
        DhtBlacklist.Outgoing blocked = DhtBlacklist.outgoing(storage);
        ReverseWordIndex rwi = storage.rwi();
        IndexScan scan = new IndexScan(placement, ring, self);
        HeldArcs arcs = active ? HeldArcs.of(self, placement, ring) : null;
        // writes from here on are judged against this ring (see ForeignBuckets); the judge before tells which
        // buckets may hold foreign postings at positions held then and no longer
        ForeignBuckets.Judge judgedBefore = foreign.judgeBy(new ForeignBuckets.Judge(arcs));
        long[] marksBefore = foreign.snapshot();
        boolean[] foundForeign = new boolean[Digests.BUCKETS];
        // per holder, the buckets with a position it did not hold in every base ring (all, without bases)
        Map<PeerId, boolean[]> newTo = new HashMap<>();
        Map<PeerId, boolean[]> newMetadataTo = new HashMap<>();
        // the digest accumulators of the last (position, origin, kind), one per holder (null: self): a scan meets a
        // word's postings in one partition in a row, which add to the same ranges of the same co-holders
        DigestRun run = new DigestRun();
        // keys and a few fields only: a posting is decoded only when it is handed off (or the blacklist must judge it)
        ReverseWordIndex.EntrySink sink = (key, value) -> {
            if ((PostingCodec.flags(value) & Posting.CACHED) != 0) return;
            long position = rwi.position(key);
            int at = PostingCodec.holderOffset(value);
            List<PeerId> holders = scan.holders(position);
            boolean own = at < 0;
            boolean held = active && scan.selfHolds();
            if (!own && !held) foundForeign[Digests.bucketOf(position)] = true;
            if (blocked.active() && blocked.blocks(ReverseWordIndex.decode(key, value))) return;
            if (own || held) {
                if (!held && mode != Mode.FULL) return; // our crawl, held elsewhere: the crawl repair offers it
                PeerId origin = scan.origin(value, at);
                long hash = Digests.entryHash(key, ReverseWordIndex.WORD_OFFSET, ReverseWordIndex.URL_OFFSET);
                char kind = RangeDigest.postingsKind(held);
                if (!run.same(position, origin, kind)) {
                    int bucket = Digests.bucketOf(position);
                    if (run.perHolder == null || run.holdersPosition != position) {
                        boolean[] fresh = scan.newHolders(bases);
                        run.holdersPosition = position;
                        run.perHolder = new Digests[fresh.length];
                        for (int i = 0; i < fresh.length; i++) {
                            PeerId h = holders.get(i);
                            if (h.equals(self)) continue;
                            // a digest covers its whole range (the receiver counts all of it): a holder new to one
                            // position of a bucket gets the bucket's digest, with the positions it held before
                            if (fresh[i]) newTo.computeIfAbsent(h, k -> new boolean[Digests.BUCKETS])[bucket] = true;
                            run.perHolder[i] = digests.computeIfAbsent(h, newDigests);
                        }
                    }
                    // one array a holders' position, refilled at each run (a new one each run was a tenth of
                    // the plans' allocations: a word's postings in a partition change origin nearly every entry)
                    if (run.acc == null || run.acc.length != run.perHolder.length) run.acc = new long[run.perHolder.length][];
                    long[][] acc = run.acc;
                    for (int i = 0; i < acc.length; i++) {
                        acc[i] = run.perHolder[i] == null ? null : run.perHolder[i].accumulator(kind, origin, bucket);
                    }
                    run.start(position, origin, kind, acc);
                }
                for (long[] a : run.acc) {
                    if (a == null) continue;
                    a[0]++;
                    a[1] += hash;
                }
            } else {
                // bounded: the rest are handed off in further rounds (their buckets stay marked foreign)
                if (handoffPostings.size() >= maxHandoff) {
                    truncated[0] = true;
                    return;
                }
                Posting p = ReverseWordIndex.decode(key, value);
                handoffPostings.add(p);
                for (PeerId h : holders) handoff.computeIfAbsent(h, k -> new Batching.Targeted()).postings.add(p);
            }
        };
        boolean[] read = new boolean[Digests.BUCKETS];
        // what it holds and has digests to offer of (not read for a full plan, which reads everything)
        boolean[] offer = mode == Mode.FULL ? null : arcs == null ? new boolean[Digests.BUCKETS]
                : mode == Mode.DELTA && !bases.isEmpty() ? bucketsWithNewHolders(arcs, bases) : arcs.buckets();
        try {
            if (mode == Mode.FULL) {
                rwi.scanEntries(sink);
                Arrays.fill(read, true);
            } else {
                // and what others crawled that it may have to hand off (strays since the last plan, what it held
                // then and no longer): its own crawl elsewhere is skipped
                boolean[] lost = bucketsLost(judgedBefore, arcs);
                for (int b = 0; b < Digests.BUCKETS; b++) {
                    if (!offer[b] && !lost[b] && !foreign.marked(b)) continue;
                    read[b] = true;
                    rwi.scanBucket(Digests.BUCKET_BITS, b, sink);
                }
            }
        } catch (RuntimeException e) {
            // the scan did not see what the new judge's ring made strays: the next plan reads every bucket
            foreign.judgeBy(null);
            throw e;
        }
        foreign.scanned(marksBefore, read, foundForeign);
        // a plan short of FULL offers only metadata it holds, and a DELTA plan only in buckets where a holder is new
        // (the same test as for postings: the holders of a position are those of the end of its segment); the rest
        // is skipped on the key, not decoded (each plan decoded every record: a sixth of a 500-peer churn run's plans)
        LongPredicate metadataPositions = mode == Mode.FULL ? position -> true
                : arcs == null ? position -> false
                : position -> offer[Digests.bucketOf(position)] && arcs.contains(position);
        storage.metadata().scanAll(metadataPositions, md -> {
            if (blocked.blocks(md)) return;
            List<PeerId> holders = placement.metadataHolders(md.urlHash(), ring);
            boolean own = md.holder() == null;
            boolean held = active && holders.contains(self);
            if (!own && !held) return;
            if (!held && mode != Mode.FULL) return;
            PeerId origin = scan.origin(md.holder());
            int bucket = Digests.bucketOfMetadata(md.urlHash());
            char kind = RangeDigest.metadataKind(held);
            for (PeerId h : holders) {
                if (h.equals(self)) continue;
                if (!IndexScan.heldInAll(placement, h, md.urlHash().position(), bases)) {
                    newMetadataTo.computeIfAbsent(h, k -> new boolean[Digests.BUCKETS])[bucket] = true;
                }
                digests.computeIfAbsent(h, newDigests).add(kind, origin, bucket, Digests.entryHash(null, md.urlHash()));
            }
        });
        Map<PeerId, List<RangeDigest>> out = new HashMap<>();
        Set<PeerId> folded = new HashSet<>();
        digests.forEach((peer, d) -> {
            boolean[] p = newTo.get(peer);
            boolean[] m = newMetadataTo.get(peer);
            if (p == null && m == null) return;
            // only the ranges a holder is new to are made and sorted (a DELTA plan accumulates every co-holder's)
            List<RangeDigest> ranges = d.digests(r -> {
                boolean[] wanted = RangeDigest.isPostings(r.kind()) ? p : m;
                return wanted != null && wanted[r.bucket()];
            });
            if (ranges.isEmpty()) return;
            out.put(peer, ranges);
            if (d.isFolded()) folded.add(peer);
        });
        int bucketsRead = 0;
        for (boolean b : read) if (b) bucketsRead++;
        return new Plan(ring, out, folded, handoff, handoffPostings, truncated[0], bucketsRead);
    }

    /**
     * The buckets with a position {@code self} holds ({@code arcs}) where another holder did not hold it in every
     * one of {@code bases}: the only buckets a DELTA plan has digests to offer from. After one peer joins or
     * leaves, that is a few buckets around its points, not every bucket this peer holds (which a DELTA plan read,
     * 55% of a 500-peer churn simulation's time).
     */
    private boolean[] bucketsWithNewHolders(HeldArcs arcs, List<Ring> bases) {
        boolean[] out = new boolean[Digests.BUCKETS];
        List<Ring> rings = new ArrayList<>(bases.size() + 1);
        rings.add(arcs.ring());
        rings.addAll(bases);
        segments(arcs, rings, (from, to) -> {
            for (PeerId h : placement.holders(to, arcs.ring())) {
                if (!h.equals(self) && !IndexScan.heldInAll(placement, h, to, bases)) {
                    mark(out, from, to);
                    return;
                }
            }
        });
        return out;
    }

    /**
     * The buckets with a position held in the judge's ring and not in {@code now} (null: nothing held now), where
     * foreign postings written under that judge may now be strays; every bucket without a judge before.
     */
    static boolean[] bucketsLost(ForeignBuckets.Judge before, HeldArcs now) {
        boolean[] out = new boolean[Digests.BUCKETS];
        if (before == null) {
            Arrays.fill(out, true);
            return out;
        }
        if (before.arcs() == null) return out;
        List<Ring> rings = now == null ? List.of(before.arcs().ring()) : List.of(before.arcs().ring(), now.ring());
        segments(before.arcs(), rings, (from, to) -> {
            if (now == null || !now.contains(to)) mark(out, from, to);
        });
        return out;
    }

    /** Receives a run of positions [from, to] over which the holders stay the same in every ring given. */
    @FunctionalInterface
    interface SegmentConsumer {
        void accept(long from, long to);
    }

    /**
     * Cuts each range of {@code arcs} at the points of every ring in {@code rings}: within a piece, every position
     * has the same successor point in each of those rings (the first point at or after it), so the holders of its
     * last position are the holders of all of it.
     */
    static void segments(HeldArcs arcs, List<Ring> rings, SegmentConsumer c) {
        arcs.forEachRange((lo, hi) -> {
            TreeSet<Long> cuts = new TreeSet<>();
            for (Ring r : rings) {
                if (r.isEmpty()) continue;
                // the first point at or after lo (the successor index wraps to 0 past the last point)
                int i = r.successorIndex(lo);
                if (r.positionAt(i) < lo) continue;
                for (; i < r.points() && r.positionAt(i) < hi; i++) cuts.add(r.positionAt(i));
            }
            cuts.add(hi);
            long from = lo;
            for (long to : cuts) {
                c.accept(from, to);
                from = to + 1;
            }
        });
    }

    private static void mark(boolean[] buckets, long from, long to) {
        for (int b = Digests.bucketOf(from); b <= Digests.bucketOf(to); b++) buckets[b] = true;
    }
}
