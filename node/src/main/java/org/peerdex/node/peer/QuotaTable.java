package org.peerdex.node.peer;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Token buckets keyed by a verified peer id or an address prefix, bounded in number (least recently used keys
 * are forgotten first, so a flood of new keys costs memory it cannot grow). Thread-safe.
 */
final class QuotaTable {
    private final double rate;
    private final int burst;
    private final Map<String, double[]> buckets;

    QuotaTable(double ratePerSecond, int burst, int maxKeys) {
        this.rate = ratePerSecond;
        this.burst = burst;
        this.buckets = new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, double[]> e) {
                return size() > maxKeys;
            }
        };
    }

    /** Takes one token for {@code key}; false when it has none left. */
    synchronized boolean take(String key, long nowMillis) {
        double[] b = buckets.computeIfAbsent(key, k -> new double[] {burst, nowMillis});
        double tokens = Math.min(burst, b[0] + (nowMillis - b[1]) * rate / 1000.0);
        b[1] = nowMillis;
        if (tokens >= 1) {
            b[0] = tokens - 1;
            return true;
        }
        b[0] = tokens;
        return false;
    }
}
