package org.peerdex.actors.dht.replication;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
        // entries in a row mostly name one crawler: its packed id is compared before any string is made
        if (lastOrigin != null && Arrays.equals(value, at, at + HashBytes.PACKED, lastPacked, 0, HashBytes.PACKED)) {
            return lastOrigin;
        }
        System.arraycopy(value, at, lastPacked, 0, HashBytes.PACKED);
        lastOrigin = packedOrigins.get(value, at);
        if (lastOrigin == null) {
            lastOrigin = origins.computeIfAbsent(HashBytes.unpack(value, at), PeerId::parse);
            packedOrigins.put(value, at, lastOrigin);
        }
        return lastOrigin;
    }

    private final byte[] lastPacked = new byte[HashBytes.PACKED];
    private PeerId lastOrigin;
    /** the origins met so far by their packed ids: no string is made for an id met before */
    private final PackedIdMap packedOrigins = new PackedIdMap();

    /** Peer ids by their 9 packed bytes, open addressing on the first eight (ids are hashes: they spread well). */
    private static final class PackedIdMap {
        private long[] heads = new long[64];
        private byte[] tails = new byte[64];
        private PeerId[] ids = new PeerId[64];
        private int size;

        PeerId get(byte[] b, int at) {
            long head = head(b, at);
            byte tail = b[at + 8];
            int mask = ids.length - 1;
            for (int i = slot(head, mask); ids[i] != null; i = (i + 1) & mask) {
                if (heads[i] == head && tails[i] == tail) return ids[i];
            }
            return null;
        }

        void put(byte[] b, int at, PeerId id) {
            if (2 * (size + 1) > ids.length) grow();
            insert(head(b, at), b[at + 8], id);
        }

        private void insert(long head, byte tail, PeerId id) {
            int mask = ids.length - 1;
            int i = slot(head, mask);
            while (ids[i] != null) {
                if (heads[i] == head && tails[i] == tail) return;
                i = (i + 1) & mask;
            }
            heads[i] = head;
            tails[i] = tail;
            ids[i] = id;
            size++;
        }

        private void grow() {
            long[] h = heads;
            byte[] t = tails;
            PeerId[] v = ids;
            heads = new long[h.length * 2];
            tails = new byte[h.length * 2];
            ids = new PeerId[h.length * 2];
            size = 0;
            for (int i = 0; i < v.length; i++) if (v[i] != null) insert(h[i], t[i], v[i]);
        }

        private static long head(byte[] b, int at) {
            long v = 0;
            for (int i = 0; i < 8; i++) v = (v << 8) | (b[at + i] & 0xff);
            return v;
        }

        private static int slot(long head, int mask) {
            return (int) ((head ^ (head >>> 29)) * 0x9E3779B97F4A7C15L >>> 40) & mask;
        }
    }

    /** The origin named by a metadata record's holder field (null: this peer). */
    PeerId origin(String holder) {
        return holder == null ? self : origins.computeIfAbsent(holder, PeerId::parse);
    }
}
