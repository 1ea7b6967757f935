package org.peerdex.actors.dht.replication;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.peerdex.actors.dht.shard.HeldArcs;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.rwi.HashBytes;

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

    /** The origin of an entry: this peer if it has no holder ({@code at < 0}), else the packed id at {@code at}. */
    PeerId origin(byte[] value, int at) {
        if (at < 0) return self;
        return origins.computeIfAbsent(HashBytes.unpack(value, at), PeerId::parse);
    }

    /** The origin named by a metadata record's holder field (null: this peer). */
    PeerId origin(String holder) {
        return holder == null ? self : origins.computeIfAbsent(holder, PeerId::parse);
    }

    /** The digest buckets that contain positions {@code self} holds in {@code ring}. */
    static boolean[] heldBuckets(PeerId self, Placement placement, Ring ring) {
        return HeldArcs.of(self, placement, ring).buckets();
    }
}
