package org.peerdex.actors.dht.shard;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A token bucket per sender: each message costs one token, tokens refill at {@code rate} per second up to
 * {@code burst}. A sender out of tokens is told how long to pause. The table is bounded: past {@code maxSenders}
 * the least recently seen sender is forgotten (it comes back with a full bucket), so a flood of new sender names
 * costs no memory it can grow. Thread-safe (the peer protocol's endpoint calls it from many threads).
 */
public final class SenderRateLimiter {
    /** senders remembered by default */
    public static final int MAX_SENDERS = 65_536;
    private final double rate;
    private final int burst;
    private final Map<String, double[]> buckets;

    public SenderRateLimiter(double ratePerSecond, int burst) {
        this(ratePerSecond, burst, MAX_SENDERS);
    }

    public SenderRateLimiter(double ratePerSecond, int burst, int maxSenders) {
        if (ratePerSecond <= 0 || burst < 1) throw new IllegalArgumentException("rate and burst must be positive");
        this.rate = ratePerSecond;
        this.burst = burst;
        this.buckets = new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, double[]> e) {
                return size() > maxSenders;
            }
        };
    }

    /** 0 if the message may pass now, else the milliseconds until the sender has a token again. */
    public synchronized long acquire(String sender, long nowMillis) {
        forgetRefilled(nowMillis);
        double[] b = buckets.computeIfAbsent(sender, k -> new double[] {burst, nowMillis});
        double tokens = Math.min(burst, b[0] + (nowMillis - b[1]) * rate / 1000.0);
        b[1] = nowMillis;
        if (tokens >= 1) {
            b[0] = tokens - 1;
            return 0;
        }
        b[0] = tokens;
        return (long) Math.ceil((1 - tokens) * 1000.0 / rate);
    }

    /**
     * Forgets the least recently seen senders whose bucket has refilled: a full bucket is what a sender not in the
     * table gets, so nothing changes for them, and the table holds the senders of the last {@code burst / rate}
     * seconds instead of every sender ever met (at 100,000 simulated peers, 16.5 million buckets, 1.2 GB). Two at most
     * a call: a call adds at most one.
     */
    private void forgetRefilled(long nowMillis) {
        Iterator<double[]> eldest = buckets.values().iterator();
        for (int n = 0; n < 2 && eldest.hasNext(); n++) {
            double[] b = eldest.next();
            if (b[0] + (nowMillis - b[1]) * rate / 1000.0 < burst) return;
            eldest.remove();
        }
    }

    /** Takes one token for {@code sender}; false when it has none left. */
    public boolean take(String sender, long nowMillis) {
        return acquire(sender, nowMillis) == 0;
    }

    /** How many senders the table holds now. */
    public synchronized int senders() {
        return buckets.size();
    }
}
