package org.peerdex.node.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.crawl.TestSite;
import org.peerdex.node.Main;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;

/**
 * kill -9 of a whole peer while it crawls, again and again: a child JVM runs the real node and crawls a generated
 * site served on 127.0.0.1; when the crawl reports a seeded random number of pages indexed the child gets SIGKILL,
 * the store is opened and scanned whole (every posting and record decodes, the counters agree, no page it reported
 * indexed is missing), and a new child starts on the same directory, where the crawl resumes from its LevelDB
 * frontier. After the last kill the crawl finishes: every page of the site is in the index exactly once and
 * searchable. 3 kills in CI; {@code -Dpeerdex.kill9crawl.rounds=20 -Dpeerdex.kill9crawl.pages=1500} for the longer run.
 */
@Tag("reliability")
class KillNineCrawlTest {
    static final int ROUNDS = Integer.getInteger("peerdex.kill9crawl.rounds", 3);
    static final int PAGES = Integer.getInteger("peerdex.kill9crawl.pages", 300);
    static final long SEED = Long.getLong("peerdex.kill9crawl.seed", 7L);

    @TempDir
    Path dir;

    @Test
    void aCrawlKilledNineTimesOverResumesAndIndexesEveryPageOnceWithNoIndexedPageLost() throws Exception {
        Path data = dir.resolve("data");
        Random random = new Random(SEED);
        String id = null;
        long lostTotal = 0;
        try (TestSite site = FaultPeers.site(PAGES, 200)) {
            for (int round = 0; round <= ROUNDS; round++) {
                boolean last = round == ROUNDS;
                Path log = dir.resolve("peer-" + round + ".log");
                Process child = child(data, log);
                long reported;
                JsonNode p;
                try {
                    String base = "http://127.0.0.1:" + FaultPeers.awaitPort(log, child);
                    if (id == null) {
                        FaultPeers.Reply r = FaultPeers.post(base + "/api/crawl", "{\"url\": \"" + site.url("/g0")
                                + "\", \"depth\": 1000, \"minDelayMs\": 20, \"maxPages\": " + PAGES + "}");
                        assertEquals(200, r.status(), r.json().toString());
                        id = r.json().get("id").asText();
                    }
                    if (last) {
                        p = FaultPeers.awaitCrawl(base, id, Duration.ofSeconds(300),
                                q -> !q.path("state").asText().equals("running"));
                        assertEquals("finished", p.path("state").asText(), p.toString());
                        reported = p.path("indexed").asLong();
                    } else {
                        // the kill moments spread over the crawl: each round a random part of a share of the pages on
                        // from the count the resumed crawl reports (after a kill it lags the store: see the docs)
                        long share = Math.max(2, PAGES / (2L * (ROUNDS + 1)));
                        String crawl = id;
                        long from = FaultPeers.awaitCrawl(base, crawl, Duration.ofSeconds(60), q -> true)
                                .path("indexed").asLong();
                        long killAt = from + 1 + random.nextInt((int) share);
                        p = FaultPeers.awaitCrawl(base, crawl, Duration.ofSeconds(300), q -> q.path("indexed").asLong()
                                >= killAt || !q.path("state").asText().equals("running"));
                        assertEquals("running", p.path("state").asText(), "killed mid-crawl: " + p);
                        reported = p.path("indexed").asLong();
                        FaultPeers.kill(child);
                    }
                } finally {
                    if (child.isAlive()) FaultPeers.kill(child);
                }
                long t0 = System.nanoTime();
                Set<String> stored = new HashSet<>();
                long docs;
                try (PeerStorage s = PeerStorage.openLevelDb(data, new Partitions(4))) {
                    long[] postings = {0};
                    s.rwi().scanAll(x -> postings[0]++);
                    s.metadata().scanAll(m -> stored.add(m.url()));
                    docs = s.metadata().count();
                    assertEquals(s.stats().postings(), postings[0], "posting counter agrees with a full scan");
                    assertEquals(s.stats().documents(), stored.size(), "document counter agrees with a full scan");
                }
                // the crawl's counters are persisted once a second: what it reported is at most what is stored
                long lost = Math.max(0, reported - stored.size());
                lostTotal += lost;
                System.out.printf("kill -9 crawl round %d%s: reported %d indexed, %d pages in the store (%d documents),"
                        + " %d page requests so far, store scanned in %d ms%n", round, last ? " (final, no kill)" : "",
                        reported, stored.size(), docs, site.pageRequests().size(), (System.nanoTime() - t0) / 1_000_000);
                assertEquals(0, lost, "pages reported indexed but missing after kill -9");
                if (last) {
                    assertEquals(PAGES, stored.size(), "every page of the site indexed");
                    // recounted from the frontier on each resume: the counter does not lag the store after kill -9
                    assertEquals(PAGES, reported, "the finished crawl's indexed counter");
                    for (int n = 0; n < PAGES; n++) assertTrue(stored.contains(site.url("/g" + n)), "page " + n);
                }
            }
            int refetched = 0;
            for (int n = 0; n < PAGES; n++) {
                int c = site.count("/g" + n);
                if (c == 0) fail("page " + n + " never fetched");
                refetched += c - 1;
            }
            // searchable: a peer on the final directory finds pages by their own words
            Path log = dir.resolve("peer-search.log");
            Process child = child(data, log);
            try {
                String base = "http://127.0.0.1:" + FaultPeers.awaitPort(log, child);
                int missing = 0;
                for (int n = 0; n < PAGES; n += Math.max(1, PAGES / 100)) {
                    if (FaultPeers.hits(base, FaultPeers.pageWord(n)) != 1) missing++;
                }
                assertEquals(0, missing, "sampled pages not found by their words");
            } finally {
                child.destroy();
                if (!child.waitFor(30, TimeUnit.SECONDS)) FaultPeers.kill(child);
            }
            System.out.printf("kill -9 crawl: %d kills, %d pages, %d page requests (%d pages fetched again after a"
                    + " kill), %d reported-indexed pages lost, every page indexed once%n", ROUNDS, PAGES,
                    site.pageRequests().size(), refetched, lostTotal);
        }
    }

    private static Process child(Path data, Path log) throws Exception {
        return FaultPeers.startChild("384m", log, Main.class.getName(), "--data", data.toString(), "--http",
                "127.0.0.1:0", "--cluster", "127.0.0.1:0");
    }
}
