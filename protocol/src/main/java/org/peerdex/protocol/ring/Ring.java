package org.peerdex.protocol.ring;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.peerdex.protocol.hash.PeerId;

/**
 * An immutable snapshot of the live, index-accepting peers on the ring. Each peer stands at {@code V} points (its
 * virtual positions, {@link PeerId#position(int)}; V = 1 is one point per peer, as YaCy places them); the points
 * are sorted by position, and a position belongs to the point at or clockwise after it. Indices given to
 * {@link #get}, {@link #positionAt} and returned by {@link #successorIndex} and {@link #pointsOf} are point
 * indices, taken modulo the number of points; {@link #size} and {@link #members} count peers.
 */
public final class Ring {
    private static final Ring EMPTY = new Ring(new PeerId[0], new long[0], new PeerId[0], 1);
    /** virtual positions of recent peers: V - 1 hashes each, asked for again at every ring change */
    private static final Map<PeerId, long[]> POSITIONS = new ConcurrentHashMap<>();
    private static final int MAX_CACHED = 1 << 18;

    /** distinct peers, in the order of their first position */
    private final PeerId[] peers;
    private final long[] positions;
    private final PeerId[] owners;
    private final int positionsPerPeer;
    /** 0 until computed (a racy but idempotent cache, as String's) */
    private int hash;
    /** Arrays.hashCode of the members, kept (0: not computed yet) */
    private int membersHash;
    /** the rings {@link #without} made last, by the peer left out (at most sixteen) */
    private final Map<PeerId, Ring> withoutMemo = new LinkedHashMap<>(8, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<PeerId, Ring> eldest) {
            return size() > 16;
        }
    };

    private Ring(PeerId[] peers, long[] positions, PeerId[] owners, int positionsPerPeer) {
        this.peers = peers;
        this.positions = positions;
        this.owners = owners;
        this.positionsPerPeer = positionsPerPeer;
    }

    public static Ring empty() {
        return EMPTY;
    }

    /** One point per peer. */
    public static Ring of(Collection<PeerId> peers) {
        return of(peers, 1);
    }

    /** {@code positionsPerPeer} points per peer (virtual positions). */
    public static Ring of(Collection<PeerId> peers, int positionsPerPeer) {
        if (positionsPerPeer < 1) throw new IllegalArgumentException("positions per peer must be at least 1");
        PeerId[] distinct = peers.stream().distinct().toArray(PeerId[]::new);
        int v = positionsPerPeer;
        int n = distinct.length * v;
        long[][] own = new long[distinct.length][];
        for (int p = 0; p < distinct.length; p++) own[p] = positionsOf(distinct[p], v);
        // a primitive sort of the positions, then each point finds its slot by binary search: a ring of 100,000
        // peers at 16 points is 1.6M points, and a sort of boxed indices with a comparator took seconds
        long[] sortedPositions = new long[n];
        for (int p = 0, k = 0; p < distinct.length; p++) for (int i = 0; i < v; i++) sortedPositions[k++] = own[p][i];
        Arrays.sort(sortedPositions);
        int[] ownerIndex = new int[n];
        Arrays.fill(ownerIndex, -1);
        boolean shared = false;
        for (int p = 0; p < distinct.length; p++) {
            for (int i = 0; i < v; i++) {
                int k = Arrays.binarySearch(sortedPositions, own[p][i]);
                while (k > 0 && sortedPositions[k - 1] == own[p][i]) k--;
                while (ownerIndex[k] >= 0) { // points sharing a position (equal 10-character prefixes): next slot
                    k++;
                    shared = true;
                }
                ownerIndex[k] = p;
            }
        }
        if (shared) orderSharedPositions(sortedPositions, ownerIndex, distinct);
        PeerId[] sortedOwners = new PeerId[n];
        List<PeerId> byFirst = new ArrayList<>(distinct.length);
        boolean[] listed = new boolean[distinct.length];
        for (int k = 0; k < n; k++) {
            int p = ownerIndex[k];
            sortedOwners[k] = distinct[p];
            if (!listed[p]) {
                listed[p] = true;
                byFirst.add(distinct[p]);
            }
        }
        // one point per peer: the points are the peers (one array for both: the simulator holds many rings)
        PeerId[] members = v == 1 ? sortedOwners : byFirst.toArray(PeerId[]::new);
        return new Ring(members, sortedPositions, sortedOwners, v);
    }

    /** Points at one position are ordered by peer id, so that every peer builds the same ring. */
    private static void orderSharedPositions(long[] positions, int[] ownerIndex, PeerId[] distinct) {
        for (int from = 0; from < positions.length; ) {
            int to = from + 1;
            while (to < positions.length && positions[to] == positions[from]) to++;
            if (to - from > 1) {
                Integer[] run = new Integer[to - from];
                for (int k = from; k < to; k++) run[k - from] = ownerIndex[k];
                Arrays.sort(run, (a, b) -> distinct[a].value().compareTo(distinct[b].value()));
                for (int k = from; k < to; k++) ownerIndex[k] = run[k - from];
            }
            from = to;
        }
    }

    /** The first {@code v} positions of a peer (cached: rings are rebuilt at every membership change). */
    static long[] positionsOf(PeerId peer, int v) {
        if (v == 1) return new long[] {peer.position()};
        long[] known = POSITIONS.get(peer);
        if (known != null && known.length >= v) return known;
        long[] made = new long[v];
        for (int i = 0; i < v; i++) made[i] = peer.position(i);
        if (POSITIONS.size() >= MAX_CACHED) POSITIONS.clear();
        POSITIONS.put(peer, made);
        return made;
    }

    public Ring with(PeerId peer) {
        List<PeerId> all = new ArrayList<>(members());
        all.add(peer);
        return of(all, positionsPerPeer);
    }

    /**
     * This ring without {@code peer}. The last few asked for are kept with this ring: every peer around a restarted
     * one asks for the same ring (a replicator counts it as a holder that was away), and in a simulation of 10,000
     * peers each restart had 100 of them build and keep their own copy of a 160,000-point ring.
     */
    public Ring without(PeerId peer) {
        synchronized (withoutMemo) {
            Ring known = withoutMemo.get(peer);
            if (known != null) return known;
        }
        Ring made = cut(peer);
        synchronized (withoutMemo) {
            withoutMemo.put(peer, made);
        }
        return made;
    }

    /**
     * This ring with {@code peer}'s points cut out: the same ring {@link #of} builds from the other members (the
     * others' points keep their order), without hashing and sorting every point again.
     */
    private Ring cut(PeerId peer) {
        int[] gone = pointsOf(peer);
        if (gone.length == 0) return this;
        long[] pos = new long[positions.length - gone.length];
        PeerId[] own = new PeerId[pos.length];
        int from = 0;
        int to = 0;
        for (int g : gone) {
            System.arraycopy(positions, from, pos, to, g - from);
            System.arraycopy(owners, from, own, to, g - from);
            to += g - from;
            from = g + 1;
        }
        System.arraycopy(positions, from, pos, to, positions.length - from);
        System.arraycopy(owners, from, own, to, positions.length - from);
        PeerId[] members;
        if (positionsPerPeer == 1) {
            members = own; // one array for both, as of() makes it
        } else {
            members = new PeerId[peers.length - 1];
            int m = 0;
            for (PeerId p : peers) if (!p.equals(peer)) members[m++] = p;
        }
        return new Ring(members, pos, own, positionsPerPeer);
    }

    /** The number of peers. */
    public int size() {
        return peers.length;
    }

    /** The number of points: peers times positions per peer. */
    public int points() {
        return positions.length;
    }

    public int positionsPerPeer() {
        return positionsPerPeer;
    }

    public boolean isEmpty() {
        return peers.length == 0;
    }

    public boolean contains(PeerId peer) {
        return pointAt(peer.position(), peer) >= 0;
    }

    /** The index of {@code peer}'s point at {@code position}, or -1. */
    private int pointAt(long position, PeerId peer) {
        int i = Arrays.binarySearch(positions, position);
        if (i < 0) return -1;
        // several points may share a position (equal 10-character prefixes); scan the run
        while (i > 0 && positions[i - 1] == position) i--;
        for (int j = i; j < positions.length && positions[j] == position; j++) if (owners[j].equals(peer)) return j;
        return -1;
    }

    /** The peers, each once, in the order of their first point on the ring. */
    public List<PeerId> members() {
        return List.of(peers);
    }

    /**
     * True if {@code other} has the same {@link #members()} in the same order, without copying them (a ring of
     * 100,000 peers compared on every view change of every virtual peer was a copy of both member lists each time).
     */
    public boolean sameMembers(Ring other) {
        // the kept hash first: at 100,000 peers every peer asks this on every ring change, and rings of the same
        // size (a join and a crash in one membership round) would otherwise compare a long way before differing
        return other == this || other != null && peers.length == other.peers.length
                && membersHash() == other.membersHash() && Arrays.equals(peers, other.peers);
    }

    private int membersHash() {
        int h = membersHash;
        if (h == 0) {
            h = Arrays.hashCode(peers) | 1;
            membersHash = h;
        }
        return h;
    }

    /** The peer at point {@code index} (modulo the number of points). */
    public PeerId get(int index) {
        return owners[Math.floorMod(index, owners.length)];
    }

    /** The position of point {@code index} (modulo the number of points). */
    public long positionAt(int index) {
        return positions[Math.floorMod(index, positions.length)];
    }

    /** The indices of {@code peer}'s points, ascending; empty if it is not on the ring. */
    public int[] pointsOf(PeerId peer) {
        if (!contains(peer)) return new int[0];
        long[] own = positionsOf(peer, positionsPerPeer);
        int[] out = new int[positionsPerPeer];
        int n = 0;
        for (int v = 0; v < positionsPerPeer; v++) {
            int j = pointAt(own[v], peer);
            if (j >= 0) out[n++] = j;
        }
        int[] sorted = Arrays.copyOf(out, n);
        Arrays.sort(sorted);
        // two virtual positions of one peer may be equal (a 60-bit collision): count the point once
        int m = 0;
        for (int k = 0; k < sorted.length; k++) if (k == 0 || sorted[k] != sorted[k - 1]) sorted[m++] = sorted[k];
        return Arrays.copyOf(sorted, m);
    }

    /** Index of the clockwise successor point of {@code position}: the first point at or after it, wrapping. */
    public int successorIndex(long position) {
        if (positions.length == 0) throw new IllegalStateException("empty ring");
        int i = Arrays.binarySearch(positions, position);
        if (i >= 0) {
            while (i > 0 && positions[i - 1] == position) i--;
            return i;
        }
        int insertion = -i - 1;
        return insertion == positions.length ? 0 : insertion;
    }

    public Optional<PeerId> successor(long position) {
        return positions.length == 0 ? Optional.empty() : Optional.of(owners[successorIndex(position)]);
    }

    /**
     * The largest gap between neighbouring points: a new peer may take its middle, as YaCy's peers do.
     * On an empty ring any position will do and empty is returned.
     */
    public Optional<Long> middleOfLargestGap() {
        if (positions.length == 0) return Optional.empty();
        long best = -1;
        long bestStart = 0;
        for (int i = 0; i < positions.length; i++) {
            long from = positions[i];
            long to = positions[(i + 1) % positions.length];
            long d = positions.length == 1 ? RingPosition.MAX : RingPosition.distance(from, to);
            if (Long.compareUnsigned(d, best) > 0 || best < 0) {
                best = d;
                bestStart = from;
            }
        }
        return Optional.of((bestStart + best / 2) & RingPosition.MAX);
    }

    /** Rings are equal when they hold the same peers at the same points. */
    @Override
    public boolean equals(Object o) {
        // the kept hash first: rings are shared and keep theirs, and two 100,000-peer rings of the same size
        // compare a long way before they differ (every directory compares its new ring with its last)
        return o == this || o instanceof Ring r && positionsPerPeer == r.positionsPerPeer && hashCode() == r.hashCode()
                && Arrays.equals(positions, r.positions) && Arrays.equals(owners, r.owners);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = (31 * Arrays.hashCode(positions) + positionsPerPeer) | 1;
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        return positionsPerPeer == 1 ? "Ring" + Arrays.toString(peers)
                : "Ring" + Arrays.toString(peers) + " x" + positionsPerPeer;
    }
}
