package org.peerdex.actors.dht.ring;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Ring;

/**
 * Equal views share their parts: the peer map and the ring of a new {@link PeerView} are replaced by an equal
 * one made recently, if there is one. A real peer holds a view or two; virtual peers in one JVM see the same
 * membership, and N views of N peers would otherwise hold N^2 entries. Only recent values are looked up (a
 * small cache by hash, weakly held), so nothing is kept alive here.
 */
final class SharedViews {
    private static final int RECENT = 64;
    private static final Recent<Map<PeerId, PeerInfo>> MAPS = new Recent<>();
    private static final Recent<Ring> RINGS = new Recent<>();
    /** rings by a hash of their members in any order */
    private static final Map<Integer, WeakReference<Ring>> RINGS_BY_MEMBERS = Recent.lru();
    /** the most recent maps made here (by identity) and their rings once asked for */
    private static final List<MapRing> RING_OF_MAP = new ArrayList<>();

    private record MapRing(WeakReference<Map<PeerId, PeerInfo>> map, Ring ring) {}

    private SharedViews() {}

    /** An unmodifiable copy of {@code peers} in peer id order, or an equal one made before. */
    static Map<PeerId, PeerInfo> peers(Map<PeerId, PeerInfo> peers) {
        if (isShared(peers)) return peers;
        // looked up before copying: a map's hash and equality do not depend on its order
        Map<PeerId, PeerInfo> known = MAPS.find(peers.hashCode(), peers);
        if (known != null) return isShared(known) ? known : share(known);
        // iterating in peer id order: Map.copyOf would iterate in an order salted per JVM, and a seed must fix a
        // simulation; hashed, not a tree: a peer's owner is looked up for every message sent (at 100,000 virtual
        // peers a tree's 17 compares a lookup were a thirtieth of the indexing phase)
        Map<PeerId, PeerInfo> made = MAPS.intern(Collections.unmodifiableMap(new LinkedHashMap<>(new TreeMap<>(peers))));
        return isShared(made) ? made : share(made);
    }

    static Ring ring(Ring ring) {
        return RINGS.intern(ring);
    }

    /** The ring of the index-accepting peers of {@code live}; computed once for a map made here. */
    static Ring ringOf(Map<PeerId, PeerInfo> live, int positionsPerPeer) {
        synchronized (RING_OF_MAP) {
            for (MapRing e : RING_OF_MAP) {
                if (e.map().get() == live && e.ring() != null && e.ring().positionsPerPeer() == positionsPerPeer) {
                    return e.ring();
                }
            }
        }
        List<PeerId> active = new ArrayList<>();
        for (PeerInfo i : live.values()) if (i.acceptsIndex()) active.add(i.peerId());
        Ring ring = ring(active, positionsPerPeer);
        synchronized (RING_OF_MAP) {
            for (int k = 0; k < RING_OF_MAP.size(); k++) {
                if (RING_OF_MAP.get(k).map().get() == live) RING_OF_MAP.set(k, new MapRing(RING_OF_MAP.get(k).map(), ring));
            }
        }
        return ring;
    }

    private record Reincarnated(Map<PeerId, PeerInfo> before, Map<PeerId, PeerInfo> now, List<PeerId> peers) {}

    private static volatile Reincarnated lastReincarnated;

    /**
     * The peers in both maps whose shard owner differs (a new incarnation under the same id), in the order of
     * {@code now}. The answer for the last pair of maps is kept: every virtual peer asks it of the same two maps
     * after a membership round, which would be N lookups for each of N peers.
     */
    static List<PeerId> reincarnated(Map<PeerId, PeerInfo> before, Map<PeerId, PeerInfo> now) {
        Reincarnated last = lastReincarnated;
        if (last != null && last.before() == before && last.now() == now) return last.peers();
        List<PeerId> out = new ArrayList<>();
        for (PeerInfo i : now.values()) {
            PeerInfo b = before.get(i.peerId());
            if (b != null && !b.shardOwner().equals(i.shardOwner())) out.add(i.peerId());
        }
        List<PeerId> peers = List.copyOf(out);
        lastReincarnated = new Reincarnated(before, now, peers);
        return peers;
    }

    private static boolean isShared(Map<PeerId, PeerInfo> m) {
        synchronized (RING_OF_MAP) {
            for (MapRing e : RING_OF_MAP) if (e.map().get() == m) return true;
        }
        return false;
    }

    private static Map<PeerId, PeerInfo> share(Map<PeerId, PeerInfo> m) {
        synchronized (RING_OF_MAP) {
            if (RING_OF_MAP.size() >= 16) RING_OF_MAP.remove(0);
            RING_OF_MAP.add(new MapRing(new WeakReference<>(m), null));
        }
        return m;
    }

    /** The ring of these distinct peers: a recent equal one, found without sorting them, or a new one. */
    static Ring ring(Collection<PeerId> members, int positionsPerPeer) {
        int h = members.size() * 31 + positionsPerPeer;
        for (PeerId p : members) h += p.hashCode() * 0x9E3779B9;
        synchronized (RINGS_BY_MEMBERS) {
            WeakReference<Ring> ref = RINGS_BY_MEMBERS.get(h);
            Ring known = ref == null ? null : ref.get();
            if (known != null && known.positionsPerPeer() == positionsPerPeer && known.size() == members.size()
                    && containsAll(known, members)) {
                return known;
            }
            Ring made = RINGS.intern(Ring.of(members, positionsPerPeer));
            RINGS_BY_MEMBERS.put(h, new WeakReference<>(made));
            return made;
        }
    }

    private static boolean containsAll(Ring ring, Collection<PeerId> members) {
        for (PeerId p : members) if (!ring.contains(p)) return false;
        return true;
    }

    private static final class Recent<T> {
        private final Map<Integer, WeakReference<T>> byHash = lru();

        static <V> Map<Integer, WeakReference<V>> lru() {
            return new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Integer, WeakReference<V>> eldest) {
                    return size() > RECENT;
                }
            };
        }

        /** A recent value with this hash equal to {@code value} (of any class), or null. */
        synchronized T find(int hash, Object value) {
            WeakReference<T> ref = byHash.get(hash);
            T known = ref == null ? null : ref.get();
            return known != null && known.equals(value) ? known : null;
        }

        synchronized T intern(T value) {
            int h = value.hashCode();
            T known = find(h, value);
            if (known != null) return known;
            byHash.put(h, new WeakReference<>(value));
            return value;
        }
    }
}
