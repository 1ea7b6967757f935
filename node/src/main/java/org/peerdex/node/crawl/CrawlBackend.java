package org.peerdex.node.crawl;

import com.typesafe.config.Config;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.peerdex.actors.Dispatchers;
import org.peerdex.actors.crawl.AddressGuard;
import org.peerdex.actors.crawl.CrawlManager;
import org.peerdex.actors.crawl.CrawlProfile;
import org.peerdex.actors.crawl.CrawlProgress;
import org.peerdex.actors.crawl.CrawlServices;
import org.peerdex.actors.crawl.CrawlerSettings;
import org.peerdex.actors.crawl.GuardedHttp;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.replication.ReplicationHook;
import org.peerdex.actors.search.ranking.HostPageRank;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.node.NetworkBackend;
import org.peerdex.node.NodeConfig;
import org.peerdex.node.NodeContext;
import org.peerdex.storage.links.LinkGraph;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The crawl side of a running peer, one per peer (built by PeerNode): the {@link CrawlManager} (which resumes unfinished
 * crawls on start), the address check made before a crawl is accepted, the node-wide fetch rate for
 * {@code /api/status}, and the host PageRank recomputed from the crawl's link graph whenever a crawl ends.
 */
public final class CrawlBackend {
    private static final Logger log = LoggerFactory.getLogger(CrawlBackend.class);
    private static final Duration ASK = Duration.ofSeconds(10);
    private final NodeContext ctx;
    private final CrawlServices services;
    private final AddressGuard guard;
    private final GuardedHttp http;
    private volatile ActorRef<CrawlManager.Command> manager;
    /** where the host PageRank goes (search's link rank); set by {@link #start} */
    private volatile Consumer<LinkRank> linkRanks = r -> { };

    /**
     * The crawler's HTTP stack and services, no actor yet: search is built on {@link #http()} before
     * {@link #start} spawns the crawl manager. {@code network} is where indexed postings are replicated once the
     * DHT is up.
     */
    public CrawlBackend(NodeContext ctx, Config config, NetworkBackend network) {
        this(ctx, CrawlerSettings.from(config, ctx.config().mode() == NodeConfig.Mode.INTRANET), network);
    }

    private CrawlBackend(NodeContext ctx, CrawlerSettings settings, NetworkBackend network) {
        this.ctx = ctx;
        // the node's one HTTP stack for the crawler's policy: crawls and snippet verification share it
        this.http = new GuardedHttp(new AddressGuard(settings));
        this.guard = http.guard();
        java.util.concurrent.Executor blocking = Dispatchers.index(ctx.system());
        this.services = CrawlServices.create(ctx.system(), settings, ctx.storage(), new ReplicationHook() {
            @Override
            public void indexed(List<Posting> postings, List<UrlMetadata> metadata) {
                DhtPeer dht = network.dht();
                if (dht != null) dht.replicate(postings, metadata);
            }

            @Override
            public String holdBack() {
                DhtPeer dht = network.dht(); // null until the network started, and in portal mode
                return dht == null ? null : dht.stats().backlog();
            }
        }, p -> blocking.execute(this::updateLinkRank), http).withDocuments(documents(ctx));
    }

    /** PDF, office documents, EPUB and RTF for crawls that accept them, within the importers' document bounds. */
    private static org.peerdex.actors.importer.CrawlDocuments documents(NodeContext ctx) {
        var s = org.peerdex.actors.importer.ImportSettings.from(ctx.config().raw());
        return new org.peerdex.actors.importer.CrawlDocuments(new org.peerdex.actors.importer.DocumentExtractor(
                s.documentMaxBytes(), s.documentTimeout(), s.documentMaxPages()));
    }

    /**
     * Spawns the crawl manager (resuming unfinished crawls) and ranks the hosts of the link graph, now and after each
     * crawl, into {@code linkRanks}. Called once by PeerNode.start.
     */
    public CrawlBackend start(Consumer<LinkRank> linkRanks) {
        this.linkRanks = linkRanks;
        try {
            manager = AskPattern.<SpawnProtocol.Command, ActorRef<CrawlManager.Command>>ask(ctx.system(),
                    replyTo -> new SpawnProtocol.Spawn<>(CrawlManager.create(services), "crawls",
                            Props.empty().withDispatcherFromConfig(Dispatchers.INDEX), replyTo),
                    ASK, ctx.system().scheduler()).toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the crawl manager", e);
        }
        // before LevelDB is closed: stop the crawlers (they resume on the next start) and write the indexer's buffer
        org.apache.pekko.actor.CoordinatedShutdown.get(ctx.system()).addTask(
                org.apache.pekko.actor.CoordinatedShutdown.PhaseServiceStop(), "stop-crawls", () ->
                        AskPattern.<CrawlManager.Command, org.apache.pekko.Done>ask(manager, CrawlManager.Shutdown::new,
                                Duration.ofSeconds(20), ctx.system().scheduler()));
        org.apache.pekko.actor.CoordinatedShutdown.get(ctx.system()).addTask(
                org.apache.pekko.actor.CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "close-http", () -> {
                    http.close();
                    return java.util.concurrent.CompletableFuture.completedFuture(org.apache.pekko.Done.getInstance());
                });
        Dispatchers.index(ctx.system()).execute(this::updateLinkRank);
        return this;
    }

    /** The node's outgoing HTTP stack under the crawler's address policy (crawls, snippet verification). */
    public GuardedHttp http() {
        return http;
    }

    /** The crawler's address policy (federation builds on it). */
    public AddressGuard guard() {
        return guard;
    }

    /** Pages fetched per minute by all crawls of this node (last minute). */
    public double pagesPerMinute() {
        return services.rates().perMinute(System.currentTimeMillis());
    }

    /** Pages fetched by all crawls of this node in each of the last 60 minutes, oldest first (the current one last). */
    public long[] pagesLastHour() {
        return services.rates().lastHour(System.currentTimeMillis());
    }

    /** Why the start URLs may not be crawled (a refused or unknown host), or empty. Blocking (DNS). */
    public Optional<String> refusal(CrawlProfile profile) {
        org.peerdex.node.ModePolicy mode = org.peerdex.node.ModePolicy.of(ctx.config());
        if (!mode.portalSites().isEmpty() && mode.mode() == NodeConfig.Mode.PORTAL && profile.range().equals("wide")) {
            return Optional.of("a portal crawls only its sites (peerdex.portal.sites): use range site or subpath");
        }
        for (String u : profile.urls()) {
            if (!mode.crawlAllowed(u)) {
                return Optional.of(u + " is not one of this portal's sites " + mode.portalSites());
            }
            var rule = ctx.storage().blacklist().match(org.peerdex.storage.blacklist.BlacklistRule.Scope.CRAWLER, u);
            if (rule.isPresent()) {
                return Optional.of(u + " is blacklisted for the crawler by " + rule.get().line());
            }
        }
        for (String u : profile.urls()) {
            String host = URI.create(u).getHost();
            try {
                guard.check(host);
            } catch (AddressGuard.RefusedAddressException e) {
                return Optional.of(e.getMessage());
            } catch (UnknownHostException e) {
                return Optional.of("unknown host " + host);
            }
        }
        return Optional.empty();
    }

    public CompletionStage<CrawlManager.Started> start(CrawlProfile profile) {
        return AskPattern.ask(manager, r -> new CrawlManager.Start(profile, r), ASK, ctx.system().scheduler());
    }

    /** Starts a crawl whose start URLs include {@code seeds} besides the profile's (the pages of an import). */
    public CompletionStage<CrawlManager.Started> start(CrawlProfile profile,
                                                       List<org.peerdex.storage.frontier.Frontier.Candidate> seeds) {
        return AskPattern.ask(manager, r -> new CrawlManager.Start(profile, seeds, r), ASK, ctx.system().scheduler());
    }

    public CompletionStage<Optional<CrawlProgress>> progress(String id) {
        return AskPattern.ask(manager, r -> new CrawlManager.Get(id, r), ASK, ctx.system().scheduler());
    }

    public CompletionStage<List<CrawlProgress>> list() {
        return AskPattern.ask(manager, CrawlManager.ListCrawls::new, ASK, ctx.system().scheduler());
    }

    public CompletionStage<Optional<CrawlProgress>> stop(String id) {
        return AskPattern.ask(manager, r -> new CrawlManager.StopCrawl(id, r), ASK, ctx.system().scheduler());
    }

    /** Host PageRank over the link graph, plugged into search (DESIGN §5: on by default). Blocking. */
    void updateLinkRank() {
        try {
            List<HostPageRank.Edge> edges = new ArrayList<>();
            new LinkGraph(ctx.storage().store()).scanHostLinks(l -> edges.add(new HostPageRank.Edge(l.sourceHost(),
                    l.targetHost())));
            if (edges.isEmpty()) return;
            HostPageRank rank = HostPageRank.compute(edges);
            linkRanks.accept(rank);
            log.info("host PageRank over {} host links, {} hosts", edges.size(), rank.hosts());
        } catch (RuntimeException e) {
            log.warn("host PageRank not updated: {}", e.toString());
        }
    }
}
