package org.peerdex.storage.frontier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.peerdex.storage.kv.LevelDbStore;
import org.peerdex.storage.testing.SmallDisk;

/**
 * The frontier on a real full disk (a small tmpfs; needs root, as in CI, and is skipped otherwise): a write that
 * fails admits nothing and spends none of the crawl's budget, so the same URLs offered again when space returns
 * are admitted in full. The crawler relies on this when it retries a page whose links could not be written.
 */
class FrontierDiskFullTest {
    private SmallDisk disk;

    @BeforeEach
    void mountSmallDisk() throws Exception {
        disk = SmallDisk.mount(4);
    }

    @AfterEach
    void unmount() throws Exception {
        if (disk != null) disk.close();
    }

    @Test
    void aFailedOfferSpendsNoBudgetAndTheSameUrlsAreAdmittedWhenSpaceReturns() throws Exception {
        int maxPages = 0;
        try (LevelDbStore store = LevelDbStore.open(disk.path().resolve("db"), 1 << 20)) {
            Frontier f = new Frontier(store, "crawlfull1");
            f.offer(List.of(new Frontier.Candidate("http://a.org/0", 0)), maxPages, 0);
            disk.fill();
            // small writes may still fit in the log's last page: offer until one fails
            List<Frontier.Candidate> failed = null;
            int written = 1;
            for (int round = 1; round < 40 && failed == null; round++) {
                List<Frontier.Candidate> batch = candidates(round);
                try {
                    List<Frontier.Offer> r = f.offer(batch, maxPages, 0);
                    written += (int) r.stream().filter(o -> o == Frontier.Offer.ADDED).count();
                } catch (RuntimeException full) {
                    failed = batch;
                }
            }
            if (failed == null) fail("no frontier write failed on a full 4 MiB disk");
            assertEquals(written, f.admitted(), "a failed offer admits nothing");
            assertEquals(written, f.queued());
            disk.free();
            // the budget is exactly what was written plus the failed batch: the retry must fit in it
            List<Frontier.Offer> retried = f.offer(failed, written + failed.size(), 0);
            assertTrue(retried.stream().allMatch(o -> o == Frontier.Offer.ADDED), retried.toString());
            assertEquals(written + failed.size(), f.admitted());
            assertEquals(written + failed.size(), f.queued());
            assertEquals(written + failed.size(), f.next(-1, 1000).size());
        }
        try (LevelDbStore store = LevelDbStore.open(disk.path().resolve("db"), 1 << 20)) {
            Frontier f = new Frontier(store, "crawlfull1");
            assertEquals(f.admitted(), f.next(-1, 1000).size(), "every admitted URL is queued after a reopen");
        }
    }

    @Test
    void aFailedMarkDoneLeavesTheEntriesQueuedAndTheRetryCountsThemOnce() throws Exception {
        try (LevelDbStore store = LevelDbStore.open(disk.path().resolve("db"), 1 << 20)) {
            Frontier f = new Frontier(store, "crawlfull2");
            f.offer(candidates(0), 0, 0);
            List<Frontier.Entry> entries = f.next(-1, 1000);
            disk.fill();
            int done = 0;
            List<Frontier.Entry> failed = null;
            for (int i = 0; i < entries.size() && failed == null; i++) {
                try {
                    f.markDone(List.of(entries.get(i)));
                    done++;
                } catch (RuntimeException full) {
                    failed = List.of(entries.get(i));
                }
            }
            if (failed == null) fail("no frontier write failed on a full 4 MiB disk");
            assertEquals(entries.size() - done, f.queued(), "a failed markDone leaves its entries queued");
            disk.free();
            f.markDone(failed);
            assertEquals(entries.size() - done - 1, f.queued());
            assertEquals(entries.size() - done - 1, f.next(-1, 1000).size());
        }
    }

    /** Twenty URLs of their own, each with a long path so a few batches fill what the log has left. */
    private static List<Frontier.Candidate> candidates(int round) {
        List<Frontier.Candidate> out = new ArrayList<>();
        for (int i = 0; i < 20; i++) out.add(new Frontier.Candidate("http://a.org/" + round + "/" + i + "/" + "x".repeat(400), 1));
        return out;
    }
}
