package org.peerdex.actors.dht.shard;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.protocol.ring.RingPosition;

/**
 * The positions a peer holds in a ring, as a few sorted ranges: the holders of a position depend only on its
 * primary point (the point at the clockwise end of its arc), so the held positions are the arcs ending at the
 * points around this peer's own points whose holders include it. Checking a position then costs a binary search
 * instead of a walk along the ring; equal to {@link Placement#holds}. Immutable.
 */
public final class HeldArcs {
    private final PeerId self;
    private final Placement placement;
    private final Ring ring;
    /** ask the placement itself (a ring of at most R peers: every peer holds everything) */
    private final boolean fallback;
    /** disjoint inclusive ranges, sorted, adjacent ones merged */
    private final long[] los;
    private final long[] his;

    private HeldArcs(PeerId self, Placement placement, Ring ring, boolean fallback, long[] los, long[] his) {
        this.self = self;
        this.placement = placement;
        this.ring = ring;
        this.fallback = fallback;
        this.los = los;
        this.his = his;
    }

    /**
     * The arcs of the rings asked about last, per peer: a peer's arcs in a ring depend on that ring alone, and every
     * digest a holder compares asks for its own arcs and the sender's. Rings and placements are immutable and
     * compared by identity here (a ring is replaced, not changed); the two most recent are kept, so a peer between
     * two views (or the simulator's peers, which share ring objects) does not rebuild them per message.
     */
    private static final int CACHED_RINGS = 2;
    private static final Deque<Cached> CACHE = new ArrayDeque<>();

    private record Cached(Ring ring, Placement placement, Map<PeerId, HeldArcs> arcs) {}

    public static HeldArcs of(PeerId self, Placement placement, Ring ring) {
        Map<PeerId, HeldArcs> arcs = null;
        synchronized (CACHE) {
            for (Cached c : CACHE) {
                if (c.ring() == ring && c.placement() == placement) {
                    arcs = c.arcs();
                    break;
                }
            }
            if (arcs == null) {
                if (CACHE.size() >= CACHED_RINGS) CACHE.removeLast();
                arcs = new ConcurrentHashMap<>();
                CACHE.addFirst(new Cached(ring, placement, arcs));
            }
        }
        HeldArcs known = arcs.get(self);
        if (known != null) return known;
        HeldArcs built = build(self, placement, ring);
        arcs.put(self, built);
        return built;
    }

    /**
     * The arcs of {@code self} in {@code ring}, built now and not cached: for a ring no peer uses (a measurement's
     * view of the whole network), which would otherwise push the peers' own rings out of the cache.
     */
    public static HeldArcs uncached(PeerId self, Placement placement, Ring ring) {
        return build(self, placement, ring);
    }

    private static HeldArcs build(PeerId self, Placement placement, Ring ring) {
        int[] own = ring.pointsOf(self);
        int r = placement.redundancy();
        if (own.length == 0) return new HeldArcs(self, placement, ring, false, new long[0], new long[0]);
        if (ring.size() <= r) return new HeldArcs(self, placement, ring, true, null, null);
        int points = ring.points();
        // arc i runs from point i-1 (exclusive) to point i (inclusive). The holders of arc i are met walking
        // i, i+1, i-1, i+2, ...: for self's point j to be among them, the points between i and j (which the walk
        // meets first) must hold fewer than R other peers. Past that on either side no arc is held through j.
        TreeSet<Integer> arcs = new TreeSet<>();
        for (int j : own) {
            for (int dir = -1; dir <= 1; dir += 2) {
                Set<PeerId> between = new HashSet<>();
                for (int d = dir < 0 ? 1 : 0; d < points; d++) {
                    int i = Math.floorMod(j + dir * d, points);
                    if (d > 0) {
                        PeerId p = ring.get(j + dir * d);
                        if (!p.equals(self)) between.add(p);
                        if (between.size() >= r) break;
                    }
                    if (placement.holds(self, ring.positionAt(i), ring)) arcs.add(i);
                }
            }
        }
        long[] los = new long[arcs.size() + 1];
        long[] his = new long[arcs.size() + 1];
        int n = 0;
        for (int i : arcs) {
            long start = ring.positionAt(i - 1);
            long end = ring.positionAt(i);
            if (start == end) continue; // points sharing a position: the later ones end empty arcs
            long lo = (start + 1) & RingPosition.MAX;
            if (lo <= end) {
                los[n] = lo;
                his[n++] = end;
            } else { // the arc across position 0
                if (n + 2 > los.length) {
                    los = Arrays.copyOf(los, n + 2);
                    his = Arrays.copyOf(his, n + 2);
                }
                los[n] = lo;
                his[n++] = RingPosition.MAX;
                los[n] = 0;
                his[n++] = end;
            }
        }
        return merged(self, placement, ring, Arrays.copyOf(los, n), Arrays.copyOf(his, n));
    }

    private static HeldArcs merged(PeerId self, Placement placement, Ring ring, long[] los, long[] his) {
        Integer[] order = new Integer[los.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> Long.compare(los[a], los[b]));
        long[] l = new long[los.length];
        long[] h = new long[los.length];
        int n = 0;
        for (int k : order) {
            if (n > 0 && h[n - 1] != RingPosition.MAX && h[n - 1] + 1 >= los[k]) {
                h[n - 1] = Math.max(h[n - 1], his[k]);
            } else {
                l[n] = los[k];
                h[n++] = his[k];
            }
        }
        return new HeldArcs(self, placement, ring, false, Arrays.copyOf(l, n), Arrays.copyOf(h, n));
    }

    public boolean contains(long position) {
        if (fallback) return placement.holds(self, position, ring);
        int i = Arrays.binarySearch(los, position);
        if (i >= 0) return true;
        int before = -i - 2;
        return before >= 0 && position <= his[before];
    }

    /**
     * These arcs where they meet the positions {@code lo..hi} (both inclusive, lo <= hi): a digest compares a bucket's
     * entries, which lie close together, against the one or two arcs there instead of searching all of them per entry.
     */
    public Clip clip(long lo, long hi) {
        if (fallback) return new Clip(this, null, null);
        int from = 0;
        int to = his.length;
        while (from < to) { // the first range not wholly below lo
            int mid = (from + to) >>> 1;
            if (his[mid] < lo) from = mid + 1;
            else to = mid;
        }
        int end = from;
        while (end < los.length && los[end] <= hi) end++;
        return new Clip(null, Arrays.copyOfRange(los, from, end), Arrays.copyOfRange(his, from, end));
    }

    /** Held ranges within a span of positions (see {@link #clip}); answers {@link #contains} for positions in it. */
    public static final class Clip {
        private final HeldArcs whole;
        private final long[] los;
        private final long[] his;

        private Clip(HeldArcs whole, long[] los, long[] his) {
            this.whole = whole;
            this.los = los;
            this.his = his;
        }

        /** Whether no position of the clipped span is held. */
        public boolean isEmpty() {
            return whole == null && los.length == 0;
        }

        /** Whether a position within the clipped span is held (outside it: undefined). */
        public boolean contains(long position) {
            if (whole != null) return whole.contains(position);
            for (int i = 0; i < los.length; i++) {
                if (position < los[i]) return false;
                if (position <= his[i]) return true;
            }
            return false;
        }
    }

    /** Receives one held range, both ends inclusive. */
    @FunctionalInterface
    public interface RangeConsumer {
        void accept(long lo, long hi);
    }

    /** The held positions as inclusive ranges, ascending (one range over the whole ring when all hold all). */
    public void forEachRange(RangeConsumer c) {
        if (fallback) {
            c.accept(0, RingPosition.MAX);
            return;
        }
        for (int i = 0; i < los.length; i++) c.accept(los[i], his[i]);
    }

    /** The ring these arcs are in. */
    public Ring ring() {
        return ring;
    }

    /** The share of the ring this peer holds, in [0, 1]. */
    public double share() {
        if (fallback) return 1.0;
        double out = 0;
        for (int i = 0; i < los.length; i++) out += (his[i] - los[i] + 1.0) / RingPosition.MAX;
        return Math.min(1.0, out);
    }

    /** The digest buckets that contain a held position. */
    public boolean[] buckets() {
        boolean[] out = new boolean[Digests.BUCKETS];
        if (fallback) {
            Arrays.fill(out, true);
            return out;
        }
        for (int i = 0; i < los.length; i++) {
            int from = Digests.bucketOf(los[i]);
            int to = Digests.bucketOf(his[i]);
            for (int b = from; b <= to; b++) out[b] = true;
        }
        return out;
    }
}
