package org.peerdex.actors.crawl;

/**
 * Events per minute over a sliding window of the last 60 seconds (one bucket per second); a meter younger than a
 * minute extrapolates from the time it has run. Thread-safe: crawlers record, /api/status reads.
 */
public final class RateMeter {
    private static final int SECONDS = 60;
    private final long[] buckets = new long[SECONDS];
    private final long[] bucketSecond = new long[SECONDS];
    private long firstMs = -1;
    private long total;

    public synchronized void record(long nowMs, long n) {
        if (firstMs < 0) firstMs = nowMs;
        long sec = nowMs / 1000;
        int i = (int) (sec % SECONDS);
        if (bucketSecond[i] != sec) {
            bucketSecond[i] = sec;
            buckets[i] = 0;
        }
        buckets[i] += n;
        total += n;
    }

    /** Events in the last minute, scaled up when the meter has run less than a minute. */
    public synchronized double perMinute(long nowMs) {
        if (firstMs < 0) return 0;
        long sec = nowMs / 1000;
        long sum = 0;
        for (int i = 0; i < SECONDS; i++) if (sec - bucketSecond[i] < SECONDS) sum += buckets[i];
        double ranMs = Math.max(1000, Math.min(SECONDS * 1000L, nowMs - firstMs + 1000));
        return Math.round(sum * 60_000.0 / ranMs * 10) / 10.0;
    }

    public synchronized long total() {
        return total;
    }
}
