package org.peerdex.storage.frontier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.storage.kv.LevelDbStore;

class FrontierTest {
    @TempDir
    Path dir;

    @Test
    void queuedUrlsSurviveReopenAndDoneOnesAreNotOfferedAgain() {
        try (LevelDbStore store = LevelDbStore.open(dir, 1 << 20)) {
            Frontier f = new Frontier(store, "crawl00001");
            assertEquals(List.of(Frontier.Offer.ADDED, Frontier.Offer.ADDED, Frontier.Offer.SEEN),
                    f.offer(List.of(new Frontier.Candidate("http://a.org/1", 0),
                            new Frontier.Candidate("http://a.org/2", 1), new Frontier.Candidate("http://a.org/1", 1)),
                            0, 0));
            List<Frontier.Entry> first = f.next(-1, 10);
            assertEquals(2, first.size());
            f.markDone(List.of(first.get(0)));
            assertTrue(f.isDone("http://a.org/1"));
        }
        try (LevelDbStore store = LevelDbStore.open(dir, 1 << 20)) {
            Frontier f = new Frontier(store, "crawl00001");
            assertEquals(1, f.queued());
            assertEquals(2, f.admitted());
            List<Frontier.Entry> left = f.next(-1, 10);
            assertEquals(1, left.size());
            assertEquals("http://a.org/2", left.get(0).url());
            assertEquals(1, left.get(0).depth());
            assertEquals(List.of(Frontier.Offer.SEEN), f.offer(List.of(new Frontier.Candidate("http://a.org/1", 2)), 0, 0));
            assertEquals(List.of(Frontier.Offer.ADDED), f.offer(List.of(new Frontier.Candidate("http://a.org/3", 2)), 0, 0));
            assertEquals(2, f.next(-1, 10).size());
            assertTrue(f.next(left.get(0).seq(), 10).stream().allMatch(e -> e.url().endsWith("/3")));
            Frontier other = new Frontier(store, "crawl00002");
            assertEquals(0, other.queued());
            assertFalse(other.isSeen("http://a.org/1"));
        }
    }

    @Test
    void admissionStopsAtMaxPagesAndMaxPagesPerHost() {
        try (LevelDbStore store = LevelDbStore.open(dir, 1 << 20)) {
            Frontier f = new Frontier(store, "crawl00003");
            List<Frontier.Offer> r = f.offer(List.of(new Frontier.Candidate("http://a.org/1", 0),
                    new Frontier.Candidate("http://a.org/2", 0), new Frontier.Candidate("http://b.org/1", 0),
                    new Frontier.Candidate("http://c.org/1", 0), new Frontier.Candidate("http://d.org/1", 0)), 3, 1);
            assertEquals(List.of(Frontier.Offer.ADDED, Frontier.Offer.HOST_FULL, Frontier.Offer.ADDED,
                    Frontier.Offer.ADDED, Frontier.Offer.CRAWL_FULL), r);
            assertTrue(f.claim("http://e.org/redirected"));
            assertFalse(f.claim("http://e.org/redirected"));
            assertFalse(f.claim("http://a.org/1"));
        }
    }
}
