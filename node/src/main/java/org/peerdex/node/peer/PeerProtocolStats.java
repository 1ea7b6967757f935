package org.peerdex.node.peer;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Counters of the peer protocol endpoint and client, shown in /api/status ("peerProtocol"). */
public final class PeerProtocolStats {
    public final AtomicLong accepted = new AtomicLong();
    public final AtomicLong sent = new AtomicLong();
    public final AtomicLong sendFailures = new AtomicLong();
    public final AtomicLong bytesIn = new AtomicLong();
    public final AtomicLong bytesOut = new AtomicLong();
    public final AtomicLong droppedReplyItems = new AtomicLong();
    /** lookup replies whose join answers came as a join table */
    public final AtomicLong joinTablesRead = new AtomicLong();
    private final Map<String, AtomicLong> refused = new ConcurrentHashMap<>();

    /** Counts a refused request under a short reason (a fixed vocabulary, so the map stays small). */
    public void refuse(String reason) {
        refused.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
    }

    public long refused(String reason) {
        AtomicLong n = refused.get(reason);
        return n == null ? 0 : n.get();
    }

    public long refusedTotal() {
        return refused.values().stream().mapToLong(AtomicLong::get).sum();
    }

    public Map<String, Long> refusedByReason() {
        Map<String, Long> m = new TreeMap<>();
        refused.forEach((k, v) -> m.put(k, v.get()));
        return m;
    }
}
