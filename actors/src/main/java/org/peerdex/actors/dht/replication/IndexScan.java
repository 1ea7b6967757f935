package org.peerdex.actors.dht.replication;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.rwi.HashBytes;
import org.peerdex.storage.rwi.PackedHashIds;

/**
 * Caches for one scan over stored index entries (rebalance and repair planning): the holders of the last position
 * asked about (a word's postings in one partition share one position, and a scan meets them in a row), and the
 * origin peers parsed from packed holder ids. Not thread-safe: one per scan.
 */
final class IndexScan {
    private final Placement placement;
    private final Ring ring;
    private final PeerId self;
    private final Map<String, PeerId> origins = new HashMap<>();
    private long position = -1;
    private List<PeerId> holders;
    private boolean selfHolds;
    private boolean[] fresh;
    private long freshPosition = -1;

    IndexScan(Placement placement, Ring ring, PeerId self) {
        this.placement = placement;
        this.ring = ring;
        this.self = self;
    }

    /** The holders of {@code position} in the ring, primary first. */
    List<PeerId> holders(long position) {
        if (position != this.position || holders == null) {
            this.position = position;
            holders = placement.holders(position, ring);
            selfHolds = holders.contains(self);
        }
        return holders;
    }

    /** Whether this peer is among the holders of the position last given to {@link #holders}. */
    boolean selfHolds() {
        return selfHolds;
    }

    /**
     * For each holder of the position last given to {@link #holders}, in their order: true if it did not hold the
     * position in every one of {@code bases} (all true without bases). The same for every entry of a word's
     * partition, so it is worked out once per run of entries (a rebalance asked it per entry and holder, 11% of a
     * 500-peer churn simulation). {@code bases} must be the same list for one scan.
     */
    boolean[] newHolders(List<Ring> bases) {
        if (fresh == null || freshPosition != position) {
            freshPosition = position;
            fresh = new boolean[holders.size()];
            for (int i = 0; i < fresh.length; i++) fresh[i] = !heldInAll(placement, holders.get(i), position, bases);
        }
        return fresh;
    }

    /** Whether {@code h} held {@code position} in every one of the base rings (then it needs no digest of it). */
    static boolean heldInAll(Placement placement, PeerId h, long position, List<Ring> bases) {
        if (bases.isEmpty()) return false;
        for (Ring b : bases) if (!placement.holds(h, position, b)) return false;
        return true;
    }

    /** The origin of an entry: this peer if it has no holder ({@code at < 0}), else the packed id at {@code at}. */
    PeerId origin(byte[] value, int at) {
        if (at < 0) return self;
        // an id met before is found by its packed bytes, no string made
        int known = packedOrigins.get(value, at);
        if (known >= 0) return originList.get(known);
        PeerId origin = origins.computeIfAbsent(HashBytes.unpack(value, at), PeerId::parse);
        packedOrigins.put(value, at, originList.size());
        originList.add(origin);
        return origin;
    }

    /** The origin named by a metadata record's holder field (null: this peer). */
    PeerId origin(String holder) {
        return holder == null ? self : origins.computeIfAbsent(holder, PeerId::parse);
    }

    /** the origins met so far by their packed ids (an index into {@link #originList}) */
    private final PackedHashIds packedOrigins = new PackedHashIds();
    private final List<PeerId> originList = new ArrayList<>();
}
