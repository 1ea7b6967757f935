package org.peerdex.node.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.crawl.TestSite;
import org.peerdex.node.PeerNode;
import org.peerdex.storage.testing.SmallDisk;
import org.slf4j.LoggerFactory;

/**
 * Disk full while crawling: the data directory is an 8 MiB tmpfs the test mounts (root only; skipped otherwise), a
 * crawl of a generated site fills it; the crawl pauses with a clear error in {@code GET /api/crawl/{id}} and the
 * log, fetches nothing new meanwhile, loses no page it had indexed, and once the filesystem grows it continues by
 * itself and finishes with every page of the site indexed (also after a restart).
 */
@Tag("reliability")
class DiskFullCrawlTest {
    static final int PAGES = Integer.getInteger("peerdex.diskfull.pages", 200);

    @Test
    void aFullDiskPausesTheCrawlWithAClearErrorAndTheCrawlContinuesWhenSpaceReturns() throws Exception {
        SmallDisk disk = SmallDisk.mount(8);
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        root.addAppender(logged);
        Path data = disk.path().resolve("data");
        try (TestSite site = FaultPeers.site(PAGES, 1000)) {
            String id;
            try (PeerNode node = PeerNode.start(FaultPeers.config(data, Map.of()))) {
                String base = node.baseUrl();
                FaultPeers.Reply started = FaultPeers.post(base + "/api/crawl", "{\"url\": \"" + site.url("/g0")
                        + "\", \"depth\": 1000, \"minDelayMs\": 0, \"maxPages\": " + PAGES + "}");
                assertEquals(200, started.status(), started.json().toString());
                id = started.json().get("id").asText();

                JsonNode paused = FaultPeers.awaitCrawl(base, id, Duration.ofSeconds(120),
                        p -> p.path("paused").asBoolean() || !p.path("state").asText().equals("running"));
                assertEquals("running", paused.path("state").asText(), "a full disk pauses, it does not end the crawl: "
                        + paused);
                assertTrue(paused.path("error").asText().contains("disk is full"), paused.toString());
                long indexedAtPause = paused.path("indexed").asLong();
                assertTrue(indexedAtPause > 0 && indexedAtPause < PAGES, "filled mid-crawl: " + paused);
                Set<String> inStore = new HashSet<>();
                node.context().storage().metadata().scanAll(m -> inStore.add(m.url()));
                assertTrue(inStore.size() >= indexedAtPause, inStore.size() + " stored < " + indexedAtPause + " indexed");

                // paused: the requests in flight end, then nothing new is fetched; searches still answer
                int requestsAtPause = site.pageRequests().size();
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
                while (System.nanoTime() < until) {
                    JsonNode p = FaultPeers.get(base + "/api/crawl/" + id).json();
                    assertTrue(p.path("paused").asBoolean(), "still paused while the disk is full: " + p);
                    java.util.concurrent.locks.LockSupport.parkNanos(50_000_000); // poll interval
                }
                int requestsWhilePaused = site.pageRequests().size() - requestsAtPause;
                assertTrue(requestsWhilePaused <= 8, requestsWhilePaused + " pages fetched while paused");
                assertEquals(1, FaultPeers.hits(base, FaultPeers.pageWord(0)), "search answers while the disk is full");
                assertTrue(logged.list.stream().anyMatch(e -> e.getFormattedMessage().contains("paused")
                        && e.getFormattedMessage().contains("disk is full")), "the log says the crawl paused and why");

                // space returns: the crawl continues by itself and finishes
                disk.grow(256);
                JsonNode done = FaultPeers.awaitCrawl(base, id, Duration.ofSeconds(240),
                        p -> !p.path("state").asText().equals("running"));
                assertEquals("finished", done.path("state").asText(), done.toString());
                assertFalse(done.path("paused").asBoolean(), done.toString());
                assertEquals(PAGES, node.context().storage().metadata().count(), "every page indexed: " + done);
                assertEquals(PAGES, done.path("indexed").asLong(), "every page counted once: " + done);
                System.out.printf("disk full while crawling: paused after %d of %d pages indexed (%d in the store),"
                        + " %d requests while paused; after the remount: %s%n", indexedAtPause, PAGES, inStore.size(),
                        requestsWhilePaused, done);
            }
            try (PeerNode again = PeerNode.start(FaultPeers.config(data, Map.of()))) {
                int lost = 0;
                for (int n = 0; n < PAGES; n++) if (FaultPeers.hits(again.baseUrl(), FaultPeers.pageWord(n)) != 1) lost++;
                System.out.printf("disk full while crawling: after restart %d of %d pages searchable%n", PAGES - lost, PAGES);
                assertEquals(0, lost, "pages lost");
                int refetched = 0;
                for (int n = 0; n < PAGES; n++) {
                    assertTrue(site.count("/g" + n) >= 1);
                    if (site.count("/g" + n) > 1) refetched++;
                }
                System.out.printf("disk full while crawling: %d pages fetched more than once%n", refetched);
            }
        } finally {
            root.detachAppender(logged);
            disk.close();
        }
    }

    /**
     * A crawl started while the disk is already full either is refused with 507 and a clear error (its record
     * could not be written) or starts paused (the record was written, its start URLs were not); either way it
     * runs to the end once space returns, and the peer is not left with a crawl that neither runs nor ends.
     */
    @Test
    void aCrawlStartedOnAFullDiskIsRefusedOrWaitsPausedAndRunsWhenSpaceReturns() throws Exception {
        int pages = 20;
        try (SmallDisk disk = SmallDisk.mount(8);
             TestSite site = FaultPeers.site(pages, 200);
             PeerNode node = PeerNode.start(FaultPeers.config(disk.path().resolve("data"), Map.of()))) {
            String base = node.baseUrl();
            disk.fill();
            String start = "{\"url\": \"" + site.url("/g0") + "\", \"depth\": 1000, \"minDelayMs\": 0, \"maxPages\": "
                    + pages + "}";
            FaultPeers.Reply started = FaultPeers.post(base + "/api/crawl", start);
            String path;
            if (started.status() == 507) {
                path = "refused";
                assertTrue(started.json().path("error").asText().contains("disk is full"), started.json().toString());
                disk.free();
                started = FaultPeers.post(base + "/api/crawl", start);
                assertEquals(200, started.status(), started.json().toString());
            } else {
                assertEquals(200, started.status(), started.json().toString());
                String id = started.json().get("id").asText();
                path = FaultPeers.get(base + "/api/crawl/" + id).json().path("paused").asBoolean()
                        ? "paused at once" : "started, paused on a later write";
                JsonNode p = FaultPeers.awaitCrawl(base, id, Duration.ofSeconds(60),
                        x -> x.path("paused").asBoolean() || !x.path("state").asText().equals("running"));
                assertEquals("running", p.path("state").asText(), "a full disk pauses the crawl: " + p);
                assertTrue(p.path("error").asText().contains("disk is full"), p.toString());
                disk.free();
            }
            String id = started.json().get("id").asText();
            JsonNode done = FaultPeers.awaitCrawl(base, id, Duration.ofSeconds(120),
                    p -> !p.path("state").asText().equals("running"));
            assertEquals("finished", done.path("state").asText(), done.toString());
            assertEquals(pages, done.path("indexed").asLong(), done.toString());
            System.out.printf("crawl started on a full disk: %s, then %s after space returned%n", path, done.path("state"));
        }
    }

}
