package org.peerdex.storage.rwi;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.peerdex.storage.kv.Keyspace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds the reverse word index's fresh entries into blocks in the background, on one daemon thread: a round starts
 * when fresh writes since the last one began reach {@link #THRESHOLD} or a third of the index, whichever is more, or
 * when there were some and none came for {@link #QUIET_MILLIS} (so a peer that stopped crawling ends up folded, and a
 * store opened with fresh entries, a layout-1 store among them, is folded soon after start). Quiet means no write
 * for that long, not one check interval: an import or a crawl flushes its buffer every few seconds, and once the
 * index is large those gaps grow (a round slows the writers down); counted as quiet, each gap started a round that
 * rewrote every block a few thousand fresh entries fell into, back to back, and the import of a million documents
 * fell from ~300 documents a second to 80-100 at 440,000 documents. A
 * rewrites every block that receives a fresh entry, so rounds wait for a third of the index: as the index grows, each
 * posting is rewritten about three to four times in all (a geometric series, as in LevelDB's own levels) instead of
 * once a round. With a tenth, the folder kept pace with an import and did about ten rewrites a posting: a
 * 100,000-document import took 605 s with its last fold, against 494 s when the folder lagged and folded in larger
 * rounds. A round walks the fresh tier in steps of
 * {@link ReverseWordIndex#FOLD_STEP}, each an atomic write, with a short pause between so writers are never held
 * long; it logs its progress. A failed step (a full disk) is logged and the round ends; nothing is lost, the entries
 * stay fresh.
 */
public final class PostingFolder implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PostingFolder.class);
    /**
     * Fresh entries that start a round at once (on a small index; on a large one, its third). A round's cost is the
     * blocks it rewrites, so a smaller floor means many small rounds: with 200,000, a 10,000-page crawl (1.8 million
     * postings) ran four rounds, 29 s of its 60 s, on a machine of two cores. Reads merge the fresh entries
     * meanwhile (a word's fresh postings read about four times slower than folded ones).
     */
    public static final long THRESHOLD = 1_000_000;
    /** A round starts when the fresh writes reach the index's postings divided by this. */
    static final long INDEX_SHARE = 3;
    private static final long CHECK_MILLIS = 2_000;
    /** No fresh write for this long starts a round for whatever is fresh. */
    static final long QUIET_MILLIS = 30_000;
    private static final long LOG_MILLIS = 10_000;

    private final ReverseWordIndex rwi;
    private final LongSupplier postings;
    private final Thread thread;
    private volatile boolean stopped;

    private PostingFolder(ReverseWordIndex rwi, LongSupplier postings) {
        this.rwi = rwi;
        this.postings = postings;
        this.thread = new Thread(this::run, "peerdex-posting-folder");
        thread.setDaemon(true);
    }

    /** Starts folding {@code rwi} in the background; {@code postings} tells about how many the index holds. */
    public static PostingFolder start(ReverseWordIndex rwi, LongSupplier postings) {
        PostingFolder f = new PostingFolder(rwi, postings);
        f.thread.start();
        return f;
    }

    private void run() {
        long seen = -1;
        long changed = System.nanoTime();
        while (!stopped) {
            try {
                long writes = rwi.freshWrites();
                if (writes != seen) {
                    seen = writes;
                    changed = System.nanoTime();
                }
                boolean quiet = System.nanoTime() - changed >= TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS);
                if (writes >= Math.max(THRESHOLD, postings.getAsLong() / INDEX_SHARE) || writes > 0 && quiet) {
                    round();
                    seen = -1;
                }
                synchronized (this) {
                    if (!stopped) wait(CHECK_MILLIS);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("folding postings into blocks failed (they stay as written, and are folded later): {}",
                        e.toString());
                sleepQuietly();
            }
        }
    }

    private void round() throws InterruptedException {
        rwi.foldRoundStarting();
        boolean complete = false;
        long start = System.nanoTime();
        long lastLog = System.currentTimeMillis();
        long n = 0;
        int blocks = 0;
        try {
            byte[] at = new byte[PostingStream.KEY];
            while (at != null && !stopped) {
                ReverseWordIndex.FoldStep s = rwi.fold(at, ReverseWordIndex.FOLD_STEP);
                n += s.folded();
                blocks += s.blocksWritten();
                at = s.resume();
                if (System.currentTimeMillis() - lastLog > LOG_MILLIS) {
                    log.info("folding postings into blocks: {} so far this round ({} blocks written)", n, blocks);
                    lastLog = System.currentTimeMillis();
                }
                if (at != null) Thread.sleep(1); // writers get the index between steps
            }
            // the folded entries are deletes now, which LevelDB's iterators step over one by one until a compaction
            // drops them: every read of a word's fresh entries would walk them. Compacted at once, most are gone
            if (n > 0 && !stopped) rwi.store().compact(new byte[] {Keyspace.RWI}, new byte[] {(byte) (Keyspace.RWI + 1)});
            complete = at == null;
        } finally {
            rwi.foldRoundEnded(complete);
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (n >= 10_000 || ms > 1_000) log.info("folded {} postings into {} blocks in {} ms", n, blocks, ms);
    }

    private void sleepQuietly() {
        try {
            Thread.sleep(CHECK_MILLIS * 5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the folder and waits for its step to end (before the store closes). */
    @Override
    public void close() {
        stopped = true;
        synchronized (this) {
            notifyAll();
        }
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
