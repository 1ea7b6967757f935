package org.peerdex.actors.dht;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.peerdex.actors.dht.replication.Replicator;
import org.peerdex.actors.dht.shard.ShardOwner;

/**
 * DHT messages and their wire bytes per remote peer, both ways: what the Replicator sent (replication, hand-off,
 * repair digests) and what the ShardOwner received (stores, lookups, digests). Cumulative; a reader takes the
 * difference of two snapshots for a rate. Written by the actors, read by the console's network view.
 */
public final class PeerTraffic {
    /** At most this many remote peers are tracked (a hostile flood of new senders cannot grow it further). */
    static final int MAX_PEERS = 4096;

    /** One remote peer's counters. */
    public static final class Counters {
        public final AtomicLong sentMessages = new AtomicLong();
        public final AtomicLong sentBytes = new AtomicLong();
        public final AtomicLong receivedMessages = new AtomicLong();
        public final AtomicLong receivedBytes = new AtomicLong();
    }

    private final Map<String, Counters> byPeer = new ConcurrentHashMap<>();

    public void sent(String peer, long bytes) {
        Counters c = counters(peer);
        if (c == null) return;
        c.sentMessages.incrementAndGet();
        c.sentBytes.addAndGet(bytes);
    }

    public void received(String peer, long bytes) {
        Counters c = counters(peer);
        if (c == null) return;
        c.receivedMessages.incrementAndGet();
        c.receivedBytes.addAndGet(bytes);
    }

    private Counters counters(String peer) {
        if (peer == null || peer.isEmpty()) return null;
        Counters c = byPeer.get(peer);
        if (c != null) return c;
        if (byPeer.size() >= MAX_PEERS) return null;
        return byPeer.computeIfAbsent(peer, k -> new Counters());
    }

    /** Peer (id, or Artery address when the id is unknown) → sentMessages, sentBytes, receivedMessages, receivedBytes. */
    public Map<String, Map<String, Long>> snapshot() {
        Map<String, Map<String, Long>> out = new TreeMap<>();
        byPeer.forEach((peer, c) -> {
            Map<String, Long> m = new LinkedHashMap<>();
            m.put("sentMessages", c.sentMessages.get());
            m.put("sentBytes", c.sentBytes.get());
            m.put("receivedMessages", c.receivedMessages.get());
            m.put("receivedBytes", c.receivedBytes.get());
            out.put(peer, m);
        });
        return out;
    }
}
