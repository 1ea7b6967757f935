package org.peerdex.actors.dht;

import java.util.HashMap;
import java.util.Map;

/**
 * A token bucket per sender: each message costs one token, tokens refill at {@code rate} per second up to
 * {@code burst}. A sender out of tokens is told how long to pause. Not thread-safe (an actor owns it).
 */
public final class SenderRateLimiter {
    private final double rate;
    private final int burst;
    private final Map<String, double[]> buckets = new HashMap<>();

    public SenderRateLimiter(double ratePerSecond, int burst) {
        if (ratePerSecond <= 0 || burst < 1) throw new IllegalArgumentException("rate and burst must be positive");
        this.rate = ratePerSecond;
        this.burst = burst;
    }

    /** 0 if the message may pass now, else the milliseconds until the sender has a token again. */
    public long acquire(String sender, long nowMillis) {
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
}
