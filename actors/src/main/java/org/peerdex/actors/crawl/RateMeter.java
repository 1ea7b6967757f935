package org.peerdex.actors.crawl;

/**
 * Events per minute over a sliding window of the last 60 seconds (one bucket per second); a meter younger than a
 * minute extrapolates from the time it has run. It also counts events per minute of the clock over the last hour
 * (a ring of 60 buckets), for the console's plots. Thread-safe: crawlers record, /api/status reads.
 */
public final class RateMeter {
    private static final int SECONDS = 60;
    private final long[] buckets = new long[SECONDS];
    private final long[] bucketSecond = new long[SECONDS];
    private static final int MINUTES = 60;
    private final long[] minutes = new long[MINUTES];
    private final long[] minuteOf = new long[MINUTES];
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
        long min = nowMs / 60_000;
        int j = (int) (min % MINUTES);
        if (minuteOf[j] != min) {
            minuteOf[j] = min;
            minutes[j] = 0;
        }
        minutes[j] += n;
        total += n;
    }

    /**
     * Events in each of the last 60 minutes of the clock, oldest first; the last is the current minute, so far.
     * Minutes before the meter's first event count 0.
     */
    public synchronized long[] lastHour(long nowMs) {
        long min = nowMs / 60_000;
        long[] out = new long[MINUTES];
        for (int k = 0; k < MINUTES; k++) {
            long m = min - (MINUTES - 1) + k;
            int j = (int) (Math.floorMod(m, (long) MINUTES));
            out[k] = minuteOf[j] == m && firstMs >= 0 ? minutes[j] : 0;
        }
        return out;
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
