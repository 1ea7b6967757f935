package org.peerdex.protocol.ring;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.peerdex.protocol.hash.PeerId;

/**
 * Who may still enter a ring in the open network: the diversity bounds a peer applies to the peers it admits
 * (go-libp2p's routing-table diversity filter is the model). A peer is refused when the ring already holds
 * {@code maxPeers}, when its address prefix (an IPv4 /24 or IPv6 /48) already has {@code maxPerPrefix} peers, or
 * when an arc of the ring (the top {@code arcBits} bits of a position) that one of its points falls in already has
 * max({@code maxPerArc}, 2 &times; the even share) points (plus a margin with several points per peer, see
 * {@link #arcLimit}), so a few addresses cannot crowd one word's positions.
 * A peer stands at {@code positionsPerPeer} points ({@link PeerId#position(int)}), each counted in its arc.
 * The node's membership and the simulator's membership service both use this table. Not thread-safe: one owner.
 */
public final class Admission {
    private final int maxPeers;
    private final int maxPerPrefix;
    private final int maxPerArc;
    private final int arcBits;
    private final int positionsPerPeer;
    private final Map<String, Integer> perPrefix = new HashMap<>();
    private final int[] perArc;
    private int members;

    public Admission(int maxPeers, int maxPerPrefix, int maxPerArc, int arcBits) {
        this(maxPeers, maxPerPrefix, maxPerArc, arcBits, 1);
    }

    public Admission(int maxPeers, int maxPerPrefix, int maxPerArc, int arcBits, int positionsPerPeer) {
        if (maxPeers < 1 || maxPerPrefix < 1 || maxPerArc < 1) throw new IllegalArgumentException("admission limits must be at least 1");
        if (arcBits < 0 || arcBits > 16) throw new IllegalArgumentException("arc bits must be in 0..16");
        if (positionsPerPeer < 1) throw new IllegalArgumentException("positions per peer must be at least 1");
        this.positionsPerPeer = positionsPerPeer;
        this.maxPeers = maxPeers;
        this.maxPerPrefix = maxPerPrefix;
        this.maxPerArc = maxPerArc;
        this.arcBits = arcBits;
        this.perArc = new int[1 << arcBits];
    }

    /**
     * Why a peer with this id at this prefix cannot enter ("directory full", "prefix full", "arc full"), or empty:
     * then it is counted in.
     */
    public Optional<String> admit(PeerId id, String prefix) {
        if (members >= maxPeers) return Optional.of("directory full");
        if (perPrefix.getOrDefault(prefix, 0) >= maxPerPrefix) return Optional.of("prefix full");
        int[] arcs = arcsOf(id);
        int limit = arcLimit();
        for (int arc : arcs) if (perArc[arc] >= limit) return Optional.of("arc full");
        perPrefix.merge(prefix, 1, Integer::sum);
        for (int arc : arcs) perArc[arc]++;
        members++;
        return Optional.empty();
    }

    /** Counts out a peer admitted before with this id and prefix (it left or failed its probes). */
    public void remove(PeerId id, String prefix) {
        Integer n = perPrefix.get(prefix);
        if (n == null) throw new IllegalStateException("no peer was admitted at " + prefix);
        if (n == 1) perPrefix.remove(prefix);
        else perPrefix.put(prefix, n - 1);
        for (int arc : arcsOf(id)) perArc[arc]--;
        members--;
    }

    /**
     * The most points one arc may hold now: max(maxPerArc, twice the even share once the next member is in). With
     * several points per peer each newcomer must fit all of them, so the bound gets 3 standard deviations of the
     * even share on top: random points of honest peers then almost never fill an arc (a peer's 16 arcs are 16 chances).
     */
    int arcLimit() {
        double even = (members + 1) * (double) positionsPerPeer / perArc.length;
        int bound = Math.max(maxPerArc, 2 * (int) Math.ceil(even));
        return positionsPerPeer == 1 ? bound : bound + (int) Math.ceil(3 * Math.sqrt(even));
    }

    int arcOf(PeerId id) {
        return (int) (id.position() >>> (63 - arcBits));
    }

    /** The arc of each of the peer's points (an arc twice when two points share it). */
    int[] arcsOf(PeerId id) {
        long[] points = Ring.positionsOf(id, positionsPerPeer);
        int[] out = new int[positionsPerPeer];
        for (int i = 0; i < positionsPerPeer; i++) out[i] = (int) (points[i] >>> (63 - arcBits));
        return out;
    }

    public int members() {
        return members;
    }

    /** Admitted peers at this prefix. */
    public int atPrefix(String prefix) {
        return perPrefix.getOrDefault(prefix, 0);
    }
}
