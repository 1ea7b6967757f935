package org.peerdex.actors.dht.replication;

import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.DhtStats;
import org.peerdex.actors.dht.TestNetwork;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerInfo;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.actors.dht.shard.ShardOwner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.Dispatchers;
import org.peerdex.actors.crawl.CrawlManager;
import org.peerdex.actors.crawl.CrawlProfile;
import org.peerdex.actors.crawl.CrawlProgress;
import org.peerdex.actors.crawl.CrawlServices;
import org.peerdex.actors.crawl.CrawlerSettings;
import org.peerdex.actors.crawl.TestSite;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * A crawl on a real LevelDB while both replication targets are unreachable (their shard owners take batches and
 * never answer): the Replicator keeps at most outbox-heap-bytes of its outbox in heap while the durable outbox grows
 * past it, the crawl pauses once the outbox holds more than outbox-pause-postings, and everything drains, the
 * crawl resumes and finishes once the targets come back and acknowledge.
 */
class OutboxBackpressureTest {
    private static final long HEAP_LIMIT = 32 * 1024;
    private static final long PAUSE_AT = 4000;
    private static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
            "pekko.actor.provider = local",
            "peerdex.crawler.allow-loopback = on",
            "peerdex.indexer.flush-interval = 20ms",
            "peerdex.indexer.pause-retry-interval = 100ms",
            "peerdex.dht.use-receptionist = off",
            "peerdex.dht.ack-timeout = 300ms",
            "peerdex.dht.retry-min-backoff = 50ms",
            "peerdex.dht.retry-max-backoff = 300ms",
            "peerdex.dht.max-attempts = 1000000",
            "peerdex.dht.max-postings-per-message = 100",
            "peerdex.dht.outbox-heap-bytes = " + HEAP_LIMIT,
            "peerdex.dht.outbox-pause-postings = " + PAUSE_AT)).withFallback(ConfigFactory.load()).resolve();
    private static final ActorTestKit KIT = ActorTestKit.create("outbox-backpressure-test", CONFIG);
    private static final int PAGES = 300;

    @TempDir
    Path dir;

    @AfterAll
    static void shutdown() {
        KIT.shutdownTestKit();
    }

    /** A target's shard owner: silent while down; once up, acknowledges every batch (counted once per id). */
    private static Behavior<ShardOwner.Command> target(PeerId id, AtomicBoolean up, Set<Long> acked,
                                                       AtomicLong ackedPostings) {
        return Behaviors.receive(ShardOwner.Command.class)
                .onMessage(ShardOwner.StorePostings.class, m -> {
                    if (up.get()) {
                        if (acked.add(m.batchId())) ackedPostings.addAndGet(m.postings().count());
                        m.replyTo().tell(new ShardOwner.StoreReply(m.batchId(), id, ShardOwner.Outcome.STORED,
                                m.postings().count(), "", 0));
                    }
                    return Behaviors.same();
                })
                .onAnyMessage(m -> Behaviors.same())
                .build();
    }

    @Test
    void outboxStaysBoundedInHeapAndPausesIndexingUntilTheTargetsAcknowledge() throws Exception {
        PeerStorage storage = PeerStorage.openLevelDb(dir, TestNetwork.PLACEMENT.partitions());
        try (TestSite site = new TestSite()) {
            StringBuilder index = new StringBuilder("<html><head><title>index</title></head><body>");
            for (int i = 0; i < PAGES; i++) {
                index.append("<a href=\"/p").append(i).append("\">page ").append(i).append("</a> ");
                StringBuilder body = new StringBuilder();
                for (int w = 0; w < 40; w++) body.append(" word").append(i).append('x').append(w);
                site.page("/p" + i, "<html><head><title>page " + i + "</title></head><body>" + body + "</body></html>");
            }
            site.page("/", index.append("</body></html>").toString());

            PeerId self = PeerId.parse("AAAAAAAAAAAA");
            PeerId b = PeerId.parse("VVVVVVVVVVVV");
            PeerId c = PeerId.parse("kkkkkkkkkkkk");
            AtomicBoolean up = new AtomicBoolean(false);
            Set<Long> ackedB = ConcurrentHashMap.newKeySet();
            AtomicLong postingsB = new AtomicLong();
            AtomicLong postingsC = new AtomicLong();
            ActorRef<ShardOwner.Command> ownerB = KIT.spawn(target(b, up, ackedB, postingsB), "owner-b");
            ActorRef<ShardOwner.Command> ownerC = KIT.spawn(target(c, up, ConcurrentHashMap.newKeySet(), postingsC),
                    "owner-c");
            TestProbe<PeerDirectory.Command> directories = KIT.createTestProbe();
            ActorRef<ShardOwner.Command> ownerSelf = KIT.spawn(Behaviors.<ShardOwner.Command>ignore(), "owner-self");
            Map<PeerId, PeerInfo> peers = Map.of(
                    self, new PeerInfo(self, "self", true, "", ownerSelf, directories.getRef()),
                    b, new PeerInfo(b, "b", true, "", ownerB, directories.getRef()),
                    c, new PeerInfo(c, "c", true, "", ownerC, directories.getRef()));
            PeerView view = new PeerView(self, Ring.of(List.of(self, b, c)), peers, 1);
            // the directory: every subscriber gets the one view of three peers
            ActorRef<PeerDirectory.Command> directory = KIT.spawn(Behaviors.receive(PeerDirectory.Command.class)
                    .onMessage(PeerDirectory.SubscribeView.class, m -> {
                        m.subscriber().tell(view);
                        return Behaviors.same();
                    })
                    .onAnyMessage(m -> Behaviors.same())
                    .build(), "directory");

            DhtStats stats = new DhtStats();
            ActorRef<Replicator.Command> replicator = KIT.spawn(Replicator.create(self, storage,
                    TestNetwork.PLACEMENT, DhtSettings.from(CONFIG), stats), "replicator");
            replicator.tell(new Replicator.Attach(directory));
            AtomicLong replicated = new AtomicLong();
            ReplicationHook hook = new ReplicationHook() {
                @Override
                public void indexed(List<Posting> postings, List<UrlMetadata> metadata) {
                    replicated.addAndGet(postings.size());
                    replicator.tell(new Replicator.Replicate(postings, metadata));
                }

                @Override
                public String holdBack() {
                    return stats.backlog();
                }
            };
            CrawlServices services = CrawlServices.create(KIT.system(), CrawlerSettings.from(CONFIG, false), storage,
                    hook, null);
            ActorRef<CrawlManager.Command> manager = KIT.spawn(CrawlManager.create(services), "crawls",
                    org.apache.pekko.actor.typed.Props.empty().withDispatcherFromConfig(Dispatchers.INDEX));
            TestProbe<CrawlManager.Started> started = KIT.createTestProbe();
            manager.tell(new CrawlManager.Start(CrawlProfile.of(site.url("/")).withMinDelayMs(0).withDepth(1),
                    started.getRef()));
            String id = started.receiveMessage().id();

            // targets down: the crawl pauses on the replication backlog; meanwhile the heap part stays bounded
            long[] maxHeapBytes = {0};
            CrawlProgress paused = await(Duration.ofSeconds(60), "the crawl paused by the replication backlog", () -> {
                Replicator.Progress p = progress(replicator);
                if (p != null) maxHeapBytes[0] = Math.max(maxHeapBytes[0], p.heapBytes());
                CrawlProgress cp = progress(manager, id);
                // documents indexed just before the pause may still be on their way into the outbox (planning):
                // "paused" is read once they are in it
                return cp.paused() && cp.error().contains("replication backlog") && p != null && p.planning() == 0
                        ? cp : null;
            });
            Replicator.Progress atPause = progress(replicator);
            int onDisk = new Outbox(storage.store()).loadAll().size();
            // paused means paused: nothing more is indexed nor queued for replication for a while
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (System.nanoTime() < until) {
                Replicator.Progress p = progress(replicator);
                maxHeapBytes[0] = Math.max(maxHeapBytes[0], p.heapBytes());
                assertEquals(atPause.outboxPostings(), p.outboxPostings(), "the outbox does not grow while paused");
                assertEquals(paused.indexed(), progress(manager, id).indexed(), "nothing is indexed while paused");
            }
            System.out.printf("outbox back-pressure: paused after %d of %d pages; durable outbox %d batches on disk "
                            + "(%d counted, %d postings, pause at %d); heap %d batches, %d bytes (max seen %d, "
                            + "bound %d)%n", paused.indexed(), PAGES + 1, onDisk, atPause.outboxEntries(),
                    atPause.outboxPostings(), PAUSE_AT, atPause.heapEntries(), atPause.heapBytes(),
                    maxHeapBytes[0], HEAP_LIMIT);
            assertTrue(atPause.backlogged(), "the replicator reports the backlog");
            assertTrue(atPause.outboxPostings() > PAUSE_AT, "paused at the limit: " + atPause);
            assertTrue(maxHeapBytes[0] <= HEAP_LIMIT, "heap part bounded: " + maxHeapBytes[0] + " bytes");
            assertTrue(onDisk > atPause.heapEntries(), "the durable outbox holds more than the heap: " + onDisk
                    + " on disk, " + atPause.heapEntries() + " in heap");
            assertEquals(onDisk, atPause.outboxEntries(), "the count of the durable outbox is the one on disk");
            assertTrue(paused.indexed() < PAGES, "paused before the end: " + paused);

            // targets back: the outbox drains through the window, indexing resumes, the crawl finishes
            up.set(true);
            CrawlProgress end = await(Duration.ofSeconds(90), "the crawl finished", () -> {
                Replicator.Progress p = progress(replicator);
                if (p != null) maxHeapBytes[0] = Math.max(maxHeapBytes[0], p.heapBytes());
                CrawlProgress cp = progress(manager, id);
                return cp.state().equals("finished") ? cp : null;
            });
            Replicator.Progress drained = await(Duration.ofSeconds(60), "an empty outbox", () -> {
                Replicator.Progress p = progress(replicator);
                return p != null && p.idle() && p.heapEntries() == 0 ? p : null;
            });
            System.out.printf("outbox back-pressure: after the targets came back: %d pages indexed, %d postings "
                            + "acknowledged by each target of %d replicated; outbox %s; max heap seen %d bytes%n",
                    end.indexed(), postingsB.get(), replicated.get(), drained, maxHeapBytes[0]);
            assertEquals(PAGES + 1, end.indexed(), end.toString());
            assertEquals(0, new Outbox(storage.store()).loadAll().size(), "nothing left on disk");
            assertEquals(replicated.get(), postingsB.get(), "every posting reached target B");
            assertEquals(replicated.get(), postingsC.get(), "every posting reached target C");
            assertTrue(maxHeapBytes[0] <= HEAP_LIMIT, "heap part bounded while draining: " + maxHeapBytes[0]);
            KIT.stop(manager);
            KIT.stop(replicator);
        } finally {
            storage.close();
        }
    }

    private static Replicator.Progress progress(ActorRef<Replicator.Command> replicator) {
        TestProbe<Replicator.Progress> probe = KIT.createTestProbe();
        replicator.tell(new Replicator.GetProgress(probe.getRef()));
        return probe.receiveMessage(Duration.ofSeconds(5));
    }

    private static CrawlProgress progress(ActorRef<CrawlManager.Command> manager, String id) {
        TestProbe<Optional<CrawlProgress>> probe = KIT.createTestProbe();
        manager.tell(new CrawlManager.Get(id, probe.getRef()));
        return probe.receiveMessage(Duration.ofSeconds(5)).orElseThrow();
    }

    private static <T> T await(Duration timeout, String what, java.util.function.Supplier<T> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            T t = condition.get();
            if (t != null) return t;
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // poll interval
        }
        throw new AssertionError("timed out waiting for " + what);
    }
}
