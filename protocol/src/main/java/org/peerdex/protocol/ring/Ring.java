package org.peerdex.protocol.ring;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.peerdex.protocol.hash.PeerId;

/** An immutable snapshot of the live, index-accepting peers, sorted by ring position. */
public final class Ring {
    private static final Ring EMPTY = new Ring(new PeerId[0]);
    private final PeerId[] peers;
    private final long[] positions;
    /** 0 until computed (a racy but idempotent cache, as String's) */
    private int hash;

    private Ring(PeerId[] sorted) {
        this.peers = sorted;
        this.positions = new long[sorted.length];
        for (int i = 0; i < sorted.length; i++) positions[i] = sorted[i].position();
    }

    private Ring(PeerId[] sorted, long[] positions) {
        this.peers = sorted;
        this.positions = positions;
    }

    public static Ring empty() {
        return EMPTY;
    }

    public static Ring of(Collection<PeerId> peers) {
        // each position parsed once, not once per comparison: views of hundreds of peers are built often
        PeerId[] distinct = peers.stream().distinct().toArray(PeerId[]::new);
        long[] positions = new long[distinct.length];
        Integer[] order = new Integer[distinct.length];
        for (int i = 0; i < distinct.length; i++) {
            positions[i] = distinct[i].position();
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            int c = Long.compare(positions[a], positions[b]);
            return c != 0 ? c : distinct[a].value().compareTo(distinct[b].value());
        });
        PeerId[] sorted = new PeerId[distinct.length];
        long[] sortedPositions = new long[distinct.length];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = distinct[order[i]];
            sortedPositions[i] = positions[order[i]];
        }
        return new Ring(sorted, sortedPositions);
    }

    public Ring with(PeerId peer) {
        List<PeerId> all = new ArrayList<>(members());
        all.add(peer);
        return of(all);
    }

    public Ring without(PeerId peer) {
        List<PeerId> all = new ArrayList<>(members());
        all.remove(peer);
        return of(all);
    }

    public int size() {
        return peers.length;
    }

    public boolean isEmpty() {
        return peers.length == 0;
    }

    public boolean contains(PeerId peer) {
        return indexOf(peer) >= 0;
    }

    public List<PeerId> members() {
        return List.of(peers);
    }

    public PeerId get(int index) {
        return peers[Math.floorMod(index, peers.length)];
    }

    public int indexOf(PeerId peer) {
        int i = Arrays.binarySearch(positions, peer.position());
        if (i < 0) return -1;
        // several peers may share a position (equal 10-char prefixes); scan the run
        int lo = i;
        while (lo > 0 && positions[lo - 1] == positions[i]) lo--;
        for (int j = lo; j < peers.length && positions[j] == positions[i]; j++) if (peers[j].equals(peer)) return j;
        return -1;
    }

    /** Index of the clockwise successor of {@code position}: the first peer at or after it, wrapping. */
    public int successorIndex(long position) {
        if (peers.length == 0) throw new IllegalStateException("empty ring");
        int i = Arrays.binarySearch(positions, position);
        if (i >= 0) {
            while (i > 0 && positions[i - 1] == position) i--;
            return i;
        }
        int insertion = -i - 1;
        return insertion == peers.length ? 0 : insertion;
    }

    public Optional<PeerId> successor(long position) {
        return peers.length == 0 ? Optional.empty() : Optional.of(peers[successorIndex(position)]);
    }

    /**
     * The largest gap between neighbours: a new peer may take its middle, as YaCy's peers do.
     * On an empty ring any position will do and empty is returned.
     */
    public Optional<Long> middleOfLargestGap() {
        if (peers.length == 0) return Optional.empty();
        long best = -1;
        long bestStart = 0;
        for (int i = 0; i < peers.length; i++) {
            long from = positions[i];
            long to = positions[(i + 1) % peers.length];
            long d = peers.length == 1 ? RingPosition.MAX : RingPosition.distance(from, to);
            if (Long.compareUnsigned(d, best) > 0 || best < 0) {
                best = d;
                bestStart = from;
            }
        }
        return Optional.of((bestStart + best / 2) & RingPosition.MAX);
    }

    /** Rings are equal when they hold the same peers. */
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof Ring r && Arrays.equals(positions, r.positions) && Arrays.equals(peers, r.peers);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = Arrays.hashCode(positions) | 1;
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        return "Ring" + Arrays.toString(peers);
    }
}
