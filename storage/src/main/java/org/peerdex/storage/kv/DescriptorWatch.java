package org.peerdex.storage.kv;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the table files iq80 evicted from its cache from using up the process's file descriptors.
 *
 * <p>iq80 0.12's table cache does not close the file of a table it evicts: its removal listener hands the close to a
 * phantom-reference cleaner (an iterator on another thread may still read the table), which runs only once the
 * table object has been garbage-collected. Writing or scanning a store of thousands of 2 MB tables opens them
 * faster than the old generation of a large heap is collected: at 25 GB (12,000 tables) a scan died with "Too many
 * open files" under a limit of 20,000. This watch reads the process's descriptor count and, once it passes a share
 * of the limit ({@code -Dpeerdex.storage.descriptor-share}, 0.5; 0 turns the watch off), asks the JVM for a
 * collection, after which iq80's cleaner closes every evicted table no iterator still holds.
 *
 * <p>The count is read by a background thread every {@link #PERIOD_MS}, and by scans as they read (a scan opens
 * hundreds of tables a second), spaced by how many descriptors are left before a collection would be due: reading
 * the count lists every open descriptor. After a collection the next one waits until the count has grown a
 * sixteenth of the limit above the lowest it fell to, so a store that really holds that many files is not collected
 * over and over. A JVM started with {@code -XX:+DisableExplicitGC} ignores the requests.
 */
final class DescriptorWatch {
    private static final Logger log = LoggerFactory.getLogger(DescriptorWatch.class);
    /** How often the background thread reads the count (it lists /proc/self/fd: about a millisecond at 10,000). */
    static final long PERIOD_MS = 250;
    /** The least a scan reads between two reads of the count. */
    static final long MIN_SCAN_BYTES = 1 << 20;
    /** The smallest table assumed when a scan's next check is spaced by the descriptors left (iq80 cuts its tables at
     * 2 MB, earlier where the next level overlaps much). */
    static final long SMALL_TABLE_BYTES = 64 << 10;
    private static final long LOG_GAP_MS = 60_000;
    private static final DescriptorWatch OFF = new DescriptorWatch(() -> 0, Long.MAX_VALUE, Long.MAX_VALUE, 1, () -> {},
            System::currentTimeMillis);

    private static volatile DescriptorWatch process = OFF;
    private static boolean started;

    private final LongSupplier openCount;
    private final long limit;
    private final long threshold;
    private final long step;
    private final Runnable collect;
    private final LongSupplier clockMs;
    private final ReentrantLock lock = new ReentrantLock();
    /** The lowest count read since the last collection (0 before the first). */
    private long base;
    private long lastLogMs = Long.MIN_VALUE / 2;
    private long collections;
    /** How much a scan may read before it reads the count again; set by each check from the descriptors left. */
    private volatile long scanBytes = MIN_SCAN_BYTES;

    /**
     * @param threshold the count from which a collection is asked for
     * @param step how far the count must grow above the lowest it fell to since the last collection to ask again
     */
    DescriptorWatch(LongSupplier openCount, long limit, long threshold, long step, Runnable collect,
                    LongSupplier clockMs) {
        this.openCount = openCount;
        this.limit = limit;
        this.threshold = threshold;
        this.step = step;
        this.collect = collect;
        this.clockMs = clockMs;
    }

    /** The process's watch (a watch that never collects until a store started it, or where it is off). */
    static DescriptorWatch process() {
        return process;
    }

    /** Starts the process's watch once, on the first iq80 store opened; stays off where the count cannot be read. */
    static synchronized void ensureStarted() {
        if (started) return;
        started = true;
        double share = Double.parseDouble(System.getProperty("peerdex.storage.descriptor-share", "0.5"));
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (share <= 0 || !(os instanceof UnixOperatingSystemMXBean unix)) return;
        long limit = unix.getMaxFileDescriptorCount();
        DescriptorWatch w = new DescriptorWatch(unix::getOpenFileDescriptorCount, limit,
                Math.max(64, (long) (limit * share)),
                Math.max(32, limit / 16), System::gc, System::currentTimeMillis);
        process = w;
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "peerdex-descriptor-watch");
            t.setDaemon(true);
            return t;
        });
        s.scheduleWithFixedDelay(() -> {
            try {
                w.check();
            } catch (RuntimeException e) {
                log.warn("descriptor watch: {}", e.toString());
            }
        }, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
        log.debug("descriptor watch: collects past {} open descriptors (limit {})", w.threshold, limit);
    }

    /**
     * Reads the count; past the threshold and {@code step} above the lowest count since the last collection, asks
     * for a collection. A check while another thread's runs returns at once.
     */
    boolean check() {
        if (threshold == Long.MAX_VALUE || !lock.tryLock()) return false;
        try {
            long open = openCount.getAsLong();
            base = Math.min(base, open);
            boolean collectNow = open >= threshold && open >= base + step;
            if (collectNow) {
                collect.run();
                collections++;
                base = open;
                long now = clockMs.getAsLong();
                if (now - lastLogMs >= LOG_GAP_MS) {
                    lastLogMs = now;
                    log.info("{} file descriptors open (collecting past {}): asked for a garbage collection so LevelDB "
                            + "closes the table files its cache evicted ({} so far)", open, threshold, collections);
                }
            }
            // reading the count lists every descriptor (milliseconds at thousands): a scan reads it again only when
            // a quarter of the descriptors left before the next collection could have gone to tables of the
            // smallest size
            long due = Math.min(limit, Math.max(threshold, base + step));
            scanBytes = Math.max(MIN_SCAN_BYTES, Math.max(0, due - open) / 4 * SMALL_TABLE_BYTES);
            return collectNow;
        } finally {
            lock.unlock();
        }
    }

    /** How much a scan may read before it calls {@link #check} again. */
    long scanBytes() {
        return scanBytes;
    }

    long collections() {
        return collections;
    }
}
