package org.peerdex.actors.crawl;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.peerdex.actors.Dispatchers;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.peerdex.storage.frontier.Frontier;

/**
 * The crawls of a node: starts a {@link Crawler} per job, answers progress, stops jobs, and on start resumes
 * every crawl whose stored state is still running (after a crash or kill -9) from its LevelDB frontier. Spawns
 * the node's {@link Indexer}. A crawler that dies without ending its crawl marks it failed. Runs on the index
 * dispatcher (it reads and writes crawl records), as do its crawlers and the indexer; fetches run on the fetch
 * dispatcher.
 */
public final class CrawlManager extends AbstractBehavior<CrawlManager.Command> {
    /** What the manager understands. */
    public sealed interface Command {}

    /**
     * Starts a crawl. {@code seeds} are start URLs besides the profile's (an import's listed pages, at most the
     * profile's maxPages of them), admitted to the new crawl's frontier before it runs, with their depth and date.
     */
    public record Start(CrawlProfile profile, List<Frontier.Candidate> seeds, ActorRef<Started> replyTo)
            implements Command {
        public Start {
            seeds = seeds == null ? List.of() : List.copyOf(seeds);
        }

        public Start(CrawlProfile profile, ActorRef<Started> replyTo) {
            this(profile, List.of(), replyTo);
        }
    }

    /** The new crawl's id; or, if it could not be recorded (a full disk), a null id and the reason. */
    public record Started(String id, String error) {
        public Started(String id) {
            this(id, null);
        }
    }

    public record Get(String id, ActorRef<Optional<CrawlProgress>> replyTo) implements Command {}

    public record ListCrawls(ActorRef<List<CrawlProgress>> replyTo) implements Command {}

    public record StopCrawl(String id, ActorRef<Optional<CrawlProgress>> replyTo) implements Command {}

    /** From a crawler: its current progress (pushed after index batches, at most every 100 ms, and twice a second). */
    public record ProgressUpdate(CrawlProgress progress) implements Command {}

    /** From a crawler: it finished or was stopped; its record is stored. */
    public record CrawlEnded(CrawlProgress progress) implements Command {}

    private record CrawlerTerminated(String id) implements Command {}

    /**
     * Node shutdown: crawlers stop without ending their crawls (they stay running in the store and resume on the
     * next start), the indexer writes what it holds, then {@code replyTo} hears Done and the manager stops.
     */
    public record Shutdown(ActorRef<org.apache.pekko.Done> replyTo) implements Command {}

    private record IndexerFlushed(ActorRef<org.apache.pekko.Done> replyTo) implements Command {}

    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
    private final ActorContext<Command> ctx;
    private final CrawlServices services;
    private final ActorRef<Indexer.Command> indexer;
    private final Map<String, ActorRef<Crawler.Command>> running = new HashMap<>();
    private final Map<String, CrawlProgress> latest = new LinkedHashMap<>();
    private final SecureRandom random = new SecureRandom();

    public static Behavior<Command> create(CrawlServices services) {
        return Behaviors.setup(ctx -> new CrawlManager(ctx, services));
    }

    /** Where the crawl actors run: the index dispatcher (frontier and index I/O; fetches go to the fetch pool). */
    public static DispatcherSelector dispatcher() {
        return Dispatchers.selector(Dispatchers.INDEX);
    }

    private CrawlManager(ActorContext<Command> ctx, CrawlServices services) {
        super(ctx);
        this.ctx = ctx;
        this.services = services;
        this.indexer = ctx.spawn(Indexer.create(services.storage(), services.replication(), services.settings()),
                "indexer", dispatcher());
        for (CrawlRecord r : services.crawls().all()) {
            latest.put(r.id(), CrawlProgress.of(r));
            if (r.state().equals(CrawlRecord.RUNNING)) spawn(r);
        }
    }

    private void spawn(CrawlRecord r) {
        ActorRef<Crawler.Command> c = ctx.spawn(Crawler.create(r, services, indexer, ctx.getSelf()), "crawl-" + r.id(),
                dispatcher());
        ctx.watchWith(c, new CrawlerTerminated(r.id()));
        running.put(r.id(), c);
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Start.class, this::onStart)
                .onMessage(Get.class, this::onGet)
                .onMessage(ListCrawls.class, m -> {
                    m.replyTo().tell(new ArrayList<>(latest.values()));
                    return this;
                })
                .onMessage(StopCrawl.class, this::onStop)
                .onMessage(ProgressUpdate.class, m -> {
                    if (running.containsKey(m.progress().id())) latest.put(m.progress().id(), m.progress());
                    return this;
                })
                .onMessage(CrawlEnded.class, this::onEnded)
                .onMessage(CrawlerTerminated.class, this::onTerminated)
                .onMessage(Shutdown.class, this::onShutdown)
                .onMessage(IndexerFlushed.class, m -> {
                    m.replyTo().tell(org.apache.pekko.Done.getInstance());
                    return Behaviors.stopped();
                })
                .build();
    }

    private Behavior<Command> onShutdown(Shutdown m) {
        for (ActorRef<Crawler.Command> c : running.values()) {
            ctx.unwatch(c);
            ctx.stop(c);
        }
        running.clear();
        ActorRef<org.apache.pekko.Done> flushed = ctx.messageAdapter(org.apache.pekko.Done.class,
                d -> new IndexerFlushed(m.replyTo()));
        indexer.tell(new Indexer.FlushNow(flushed));
        return this;
    }

    private Behavior<Command> onStart(Start m) {
        String id;
        do {
            StringBuilder b = new StringBuilder(Frontier.ID_LENGTH);
            for (int i = 0; i < Frontier.ID_LENGTH; i++) b.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            id = b.toString();
        } while (latest.containsKey(id));
        CrawlRecord r = CrawlRecord.started(id, m.profile(), System.currentTimeMillis());
        try {
            services.crawls().put(r);
            if (!m.seeds().isEmpty()) {
                // in the frontier before the crawler starts: a kill -9 from here on resumes with every seed queued
                List<Frontier.Candidate> all = new ArrayList<>();
                var blacklist = services.storage().blacklist();
                for (Frontier.Candidate c : m.seeds()) {
                    if (blacklist.blocks(org.peerdex.storage.blacklist.BlacklistRule.Scope.CRAWLER, c.url())) {
                        ctx.getLog().info("crawl {}: start URL {} is blacklisted for the crawler", id, c.url());
                    } else {
                        all.add(c);
                    }
                }
                // after the seeds: a start URL that is a seed too keeps the seed's date
                for (String u : m.profile().urls()) all.add(new Frontier.Candidate(u, 0));
                try {
                    new Frontier(services.storage().store(), id).offer(all, m.profile().maxPages(),
                            m.profile().maxPagesPerHost());
                } catch (RuntimeException e) {
                    // not started after all: the stored record must not resume without its seeds
                    try {
                        services.crawls().put(r.withState(CrawlRecord.FAILED, System.currentTimeMillis(),
                                "its start URLs could not be written: " + org.peerdex.storage.kv.WriteFailure.describe(e)));
                    } catch (RuntimeException alsoFailed) {
                        ctx.getLog().warn("crawl {}: neither its start URLs nor its failure are written", id);
                    }
                    throw e;
                }
            }
        } catch (RuntimeException e) {
            m.replyTo().tell(new Started(null, org.peerdex.storage.kv.WriteFailure.describe(e)));
            return this;
        }
        latest.put(id, CrawlProgress.of(r));
        spawn(r);
        m.replyTo().tell(new Started(id));
        return this;
    }

    private Behavior<Command> onGet(Get m) {
        // answered from the snapshots crawlers push (at most ~100 ms old): no race with a crawler that just ended
        m.replyTo().tell(Optional.ofNullable(latest.get(m.id())));
        return this;
    }

    private Behavior<Command> onStop(StopCrawl m) {
        ActorRef<Crawler.Command> c = running.get(m.id());
        if (c != null) c.tell(new Crawler.Stop(m.replyTo()));
        else m.replyTo().tell(Optional.ofNullable(latest.get(m.id())));
        return this;
    }

    private Behavior<Command> onEnded(CrawlEnded m) {
        running.remove(m.progress().id());
        latest.put(m.progress().id(), m.progress());
        try {
            services.onEnded().accept(m.progress());
        } catch (RuntimeException e) {
            ctx.getLog().warn("crawl-ended listener failed: {}", e.toString());
        }
        return this;
    }

    private Behavior<Command> onTerminated(CrawlerTerminated m) {
        if (running.remove(m.id()) == null) return this;
        // the crawler died without ending its crawl (an exception): the job failed
        services.crawls().get(m.id()).filter(r -> r.state().equals(CrawlRecord.RUNNING)).ifPresent(r -> {
            CrawlRecord failed = r.withState(CrawlRecord.FAILED, System.currentTimeMillis(),
                    "the crawler stopped unexpectedly (see the log)");
            try {
                services.crawls().put(failed);
            } catch (RuntimeException e) {
                ctx.getLog().warn("crawl {}: its failure is not recorded: {}", m.id(), e.toString());
            }
            latest.put(m.id(), CrawlProgress.of(failed));
            ctx.getLog().warn("crawl {} failed", m.id());
        });
        return this;
    }
}
