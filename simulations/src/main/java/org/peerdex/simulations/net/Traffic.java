package org.peerdex.simulations.net;

import java.util.Map;
import java.util.TreeMap;

/** Messages, bytes and drops per traffic category (lookup, replication, repair, membership, ...). */
public final class Traffic {
    /** Counters of one category. */
    public static final class Counter {
        public long messages;
        public long bytes;
        public long dropped;
    }

    private final Map<String, Counter> byCategory = new TreeMap<>();

    void count(String category, int bytes) {
        Counter c = byCategory.computeIfAbsent(category, k -> new Counter());
        c.messages++;
        c.bytes += bytes;
    }

    void drop(String category) {
        byCategory.computeIfAbsent(category, k -> new Counter()).dropped++;
    }

    public Counter get(String category) {
        return byCategory.getOrDefault(category, new Counter());
    }

    public Map<String, Counter> all() {
        return byCategory;
    }

    public long totalMessages() {
        return byCategory.values().stream().mapToLong(c -> c.messages).sum();
    }

    public long totalBytes() {
        return byCategory.values().stream().mapToLong(c -> c.bytes).sum();
    }
}
