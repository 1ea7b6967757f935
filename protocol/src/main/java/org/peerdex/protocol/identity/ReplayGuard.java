package org.peerdex.protocol.identity;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;

/**
 * Refuses a signed request seen before, or one whose time is outside the allowed skew. Nonces are remembered
 * for twice the skew (a request older than that is refused by its time alone), bounded in number: when full,
 * requests are refused rather than old nonces forgotten early, so a flood cannot open a replay window.
 */
public final class ReplayGuard {
    private final long skewMillis;
    private final int capacity;
    private final Set<String> seen = new HashSet<>();
    private final ArrayDeque<Entry> order = new ArrayDeque<>();

    private record Entry(String key, long at) {}

    public ReplayGuard(long skewMillis, int capacity) {
        this.skewMillis = skewMillis;
        this.capacity = capacity;
    }

    /** Why this request must be refused, or null when it is fresh (and now remembered). */
    public synchronized String check(String key, String nonce, long time, long now) {
        if (Math.abs(now - time) > skewMillis) return "request time outside the allowed clock skew";
        while (!order.isEmpty() && order.peekFirst().at() < now - 2 * skewMillis) seen.remove(order.pollFirst().key());
        String k = key + ' ' + nonce;
        if (seen.contains(k)) return "replayed request";
        if (seen.size() >= capacity) return "too many requests to remember; try again";
        seen.add(k);
        order.addLast(new Entry(k, now));
        return null;
    }
}
