package org.peerdex.actors.dht;

import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.LinkedHashMap;
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

    private SharedViews() {}

    /** An unmodifiable copy of {@code peers} in peer id order, or an equal one made before. */
    static Map<PeerId, PeerInfo> peers(Map<PeerId, PeerInfo> peers) {
        // sorted by peer id: Map.copyOf would iterate in an order salted per JVM, and a seed must fix a simulation
        return MAPS.intern(Collections.unmodifiableMap(new TreeMap<>(peers)));
    }

    static Ring ring(Ring ring) {
        return RINGS.intern(ring);
    }

    private static final class Recent<T> {
        private final Map<Integer, WeakReference<T>> byHash = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Integer, WeakReference<T>> eldest) {
                return size() > RECENT;
            }
        };

        synchronized T intern(T value) {
            int h = value.hashCode();
            WeakReference<T> ref = byHash.get(h);
            T known = ref == null ? null : ref.get();
            if (known != null && known.equals(value)) return known;
            byHash.put(h, new WeakReference<>(value));
            return value;
        }
    }
}
