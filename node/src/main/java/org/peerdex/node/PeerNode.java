package org.peerdex.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.Done;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.AddressFromURIString;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.cluster.typed.JoinSeedNodes;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.search.DhtCandidateSource;
import org.peerdex.node.crawl.CrawlBackend;
import org.peerdex.node.federation.FederationBackend;
import org.peerdex.node.http.ApiRoutes;
import org.peerdex.node.http.ImportService;
import org.peerdex.node.http.SearchBackend;
import org.peerdex.node.http.SearchRateLimit;
import org.peerdex.node.peer.AddressPrefix;
import org.peerdex.node.peer.PeerProtocolSettings;
import org.peerdex.node.settings.SettingsBackend;
import org.peerdex.node.trust.NetworkCa;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.kv.LevelDbStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running peer: its storage, its ActorSystem (a Pekko Cluster member) and its HTTP server. This is also the
 * embedding API: tests and labs call {@link #start(Config)} and {@link #close()}, and the composition root: it
 * builds the peer's services once ({@link NodeServices}) and hands them to the routes.
 */
public final class PeerNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PeerNode.class);
    private final NodeContext context;
    private final NodeServices services;
    private final ServerBinding binding;
    /** the open network's endpoint and membership, or null inside a trust domain (Pekko Cluster) */
    private final OpenNetwork open;

    private PeerNode(NodeContext context, NodeServices services, ServerBinding binding, OpenNetwork open) {
        this.context = context;
        this.services = services;
        this.binding = binding;
        this.open = open;
    }

    /** Starts a peer from a full config (reference.conf of every module underneath). */
    public static PeerNode start(Config config) {
        config = SettingsBackend.overlay(config); // memory bounds saved in the console
        if (OpenNetwork.selected(config)) return startOpen(config);
        NodeConfig nc;
        Config clusterConfig;
        try {
            nc = NodeConfig.from(config);
            ModePolicy.checkNetwork(nc);
            clusterConfig = pekkoConfig(nc);
        } catch (RuntimeException e) {
            throw new StartupException("bad configuration: " + e.getMessage(), e);
        }
        PeerStorage storage = openStorage(nc);
        PeerId peerId = storage.setting("peer.id").map(PeerId::parse).orElseGet(() -> {
            PeerId fresh = PeerId.random(new SecureRandom());
            storage.putSetting("peer.id", fresh.value());
            return fresh;
        });
        ActorSystem<SpawnProtocol.Command> system = null;
        // port 0: the port of the last run first, so the cluster takes this start for a new incarnation of the member
        Optional<Integer> reuse = ClusterIncarnation.portToReuse(nc, storage);
        if (reuse.isPresent()) {
            try {
                system = ActorSystem.create(SpawnProtocol.create(), nc.systemName(),
                        ClusterIncarnation.bindTo(reuse.get()).withFallback(clusterConfig).withFallback(config));
            } catch (RuntimeException e) {
                log.info("the cluster port of the last run ({}) is taken ({}); binding a free one", reuse.get(),
                        rootMessage(e));
            }
        }
        try {
            if (system == null) {
                system = ActorSystem.create(SpawnProtocol.create(), nc.systemName(), clusterConfig.withFallback(config));
            }
        } catch (RuntimeException e) {
            storage.close();
            throw new StartupException("cannot start the cluster endpoint on " + nc.clusterHost() + ":"
                    + nc.clusterPort() + ": " + rootMessage(e), e);
        }
        closeStorageOnShutdown(system, storage, nc);
        Cluster cluster = Cluster.get(system);
        ClusterIncarnation.remember(storage, (Integer) cluster.selfMember().address().port().getOrElse(() -> 0));
        if (nc.seeds().isEmpty()) {
            cluster.manager().tell(Join.create(cluster.selfMember().address()));
        }
        NodeContext context = new NodeContext(nc, peerId,
                storage, nc.placement(), system,
                Instant.now());
        NodeServices services = startServices(context, config);
        ServerBinding binding = bindHttp(context, services, nc, system);
        startNetwork(context, services, config, cluster, binding.localAddress().getPort());
        // join only once the peer is fully up: a refused join shuts the ActorSystem down (and closes the index),
        // which must not happen while this method is still reading the index
        if (!nc.seeds().isEmpty()) {
            List<Address> seeds = nc.seeds().stream()
                    .map(s -> AddressFromURIString.parse("pekko://" + nc.systemName() + "@" + hostPort(s)))
                    .collect(Collectors.toList());
            cluster.manager().tell(new JoinSeedNodes(seeds));
        }
        log.info("peer {} of network '{}' ({} mode) serving http://{}:{}/ cluster {}:{}, data {}", peerId,
                nc.network(), nc.mode().key(), nc.httpHost(), binding.localAddress().getPort(), nc.clusterHost(),
                cluster.selfMember().address().port().getOrElse(() -> 0), nc.dataDir().toAbsolutePath());
        return new PeerNode(context, services, binding, null);
    }

    /**
     * A peer of the open network: a local ActorSystem (no Pekko Cluster, no Artery port), its identity from the
     * Ed25519 key in the data directory, and the peer protocol on its own port (docs/security.md).
     */
    private static PeerNode startOpen(Config config) {
        NodeConfig nc;
        PeerProtocolSettings ps;
        try {
            nc = NodeConfig.from(config);
            ModePolicy.checkNetwork(nc);
            ps = PeerProtocolSettings.from(config);
        } catch (RuntimeException e) {
            throw new StartupException("bad configuration: " + e.getMessage(), e);
        }
        PeerKeys keys;
        try {
            keys = PeerKeys.loadOrCreate(nc.dataDir().resolve("peer.key"), ps.workBits());
        } catch (IOException e) {
            throw new StartupException("cannot read or create the peer key in " + nc.dataDir() + ": " + e.getMessage(), e);
        }
        PeerStorage storage = openStorage(nc);
        PeerId peerId = keys.id();
        Optional<String> stored = storage.setting("peer.id");
        if (stored.isPresent() && !stored.get().equals(peerId.value())) {
            log.info("peer id {} replaced by {}, derived from the peer key (open network)", stored.get(), peerId);
        }
        if (stored.isEmpty() || !stored.get().equals(peerId.value())) storage.putSetting("peer.id", peerId.value());
        ActorSystem<SpawnProtocol.Command> system;
        try {
            system = ActorSystem.create(SpawnProtocol.create(), nc.systemName(),
                    OpenNetwork.pekkoConfig().withFallback(config));
        } catch (RuntimeException e) {
            storage.close();
            throw new StartupException("cannot start the actor system: " + rootMessage(e), e);
        }
        closeStorageOnShutdown(system, storage, nc);
        NodeContext context = new NodeContext(nc, peerId,
                storage, nc.placement(), system,
                Instant.now());
        NodeServices services = startServices(context, config);
        ServerBinding binding = bindHttp(context, services, nc, system);
        OpenNetwork open = null;
        if (nc.mode() != NodeConfig.Mode.PORTAL) {
            try {
                open = OpenNetwork.start(context, services, config, ps, keys, binding.localAddress().getPort());
            } catch (RuntimeException e) {
                system.terminate();
                awaitTermination(system);
                throw new StartupException("cannot serve the peer protocol on " + ps.host() + ":" + ps.port() + ": "
                        + rootMessage(e), e);
            }
        }
        log.info("peer {} of network '{}' ({} mode, open network) serving http://{}:{}/ peer protocol {}, data {}",
                peerId, nc.network(), nc.mode().key(), nc.httpHost(), binding.localAddress().getPort(),
                open == null ? "off" : open.address(), nc.dataDir().toAbsolutePath());
        return new PeerNode(context, services, binding, open);
    }

    private static PeerStorage openStorage(NodeConfig nc) {
        try {
            return new PeerStorage(LevelDbStore.open(nc.dataDir().resolve("index"), nc.cacheBytes()),
                    new Partitions(nc.partitionExponent()), nc.writeBufferBytes(), nc.syncWrites());
        } catch (LevelDbStore.StoreInUseException e) {
            throw new StartupException("the data directory " + nc.dataDir() + " is in use by another peer", e);
        } catch (RuntimeException e) {
            throw new StartupException("cannot open the index in " + nc.dataDir() + ": " + e.getMessage(), e);
        }
    }

    private static void closeStorageOnShutdown(ActorSystem<?> system, PeerStorage storage, NodeConfig nc) {
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(),
                "close-storage", () -> {
                    storage.close();
                    log.info("index closed in {}: {} documents, {} postings", nc.dataDir().toAbsolutePath(),
                            storage.stats().documents(), storage.stats().postings());
                    return CompletableFuture.completedFuture(Done.getInstance());
                });
    }

    /**
     * The peer's services, each built once: settings, the crawl side (its manager spawned, unfinished crawls
     * resumed), search on the crawler's HTTP stack, the federated sources, the search rate limits, and the import
     * service on first use. The network side is filled in when the network starts ({@link #plugIn}).
     */
    private static NodeServices startServices(NodeContext context, Config config) {
        NodeConfig nc = context.config();
        try {
            SettingsBackend settings = new SettingsBackend(nc.dataDir(), nc.raw());
            NetworkBackend network = new NetworkBackend();
            CrawlBackend crawl = new CrawlBackend(context, config, network);
            SearchBackend search = new SearchBackend(context, crawl.http(), settings);
            crawl.start(search::setLinkRank);
            FederationBackend federation = new FederationBackend(context, search.remoteSources(), search.blocking());
            SearchRateLimit rateLimit = SearchRateLimit.from(context.system().settings().config());
            return new NodeServices(settings, network, crawl, search, federation, rateLimit,
                    new ImportService(context, network, crawl));
        } catch (RuntimeException e) {
            // e.g. a malformed peerdex.federation.sources: the ActorSystem goes, and with it the LevelDB lock
            context.system().terminate();
            awaitTermination(context.system());
            throw new StartupException("cannot start the peer's services: " + rootMessage(e), e);
        }
    }

    /** Binds the user API and console, with the web boundary told the bound port; unbound on shutdown. */
    private static ServerBinding bindHttp(NodeContext context, NodeServices services, NodeConfig nc,
                                          ActorSystem<?> system) {
        ServerBinding binding;
        ApiRoutes routes;
        try {
            routes = new ApiRoutes(context, services);
            binding = Http.get(system).newServerAt(nc.httpHost(), nc.httpPort())
                    .bind(routes.route()).toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            system.terminate();
            awaitTermination(system);
            throw new StartupException("cannot serve HTTP on " + nc.httpHost() + ":" + nc.httpPort() + ": "
                    + rootMessage(e), e);
        }
        routes.boundary().boundTo(binding.localAddress().getPort());
        routes.boundary().adminNeedsCredentials().ifPresent(why -> {
            if (nc.adminPasswordHash().isEmpty()) {
                log.warn("admin endpoints are closed (403): {}, and no admin password is set (--admin-password); "
                        + "see docs/operations.md, \"Behind a reverse proxy\"", why);
            }
        });
        log.info("HTTP answers to the names {}", routes.boundary().hosts().describe());
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseServiceUnbind(), "http-unbind",
                () -> binding.unbind().thenApply(d -> Done.getInstance()));
        return binding;
    }

    /** Spawns the DHT actors (not in portal mode) and plugs them into search and status. */
    private static void startNetwork(NodeContext context, NodeServices services, Config config, Cluster cluster,
                                     int httpPort) {
        NodeConfig nc = context.config();
        if (nc.mode() == NodeConfig.Mode.PORTAL) return;
        DhtPeer dht = DhtPeer.spawn(DhtPeer.via(context.system()), context.peerId(), context.storage(),
                context.placement(), DhtSettings.from(config), cluster.selfMember().address().toString(),
                nc.httpHost() + ":" + httpPort);
        plugIn(context, services, dht);
    }

    /** Makes a peer's DHT actors (over either transport) the network side of status, peers and search. */
    static void plugIn(NodeContext context, NodeServices services, DhtPeer dht) {
        services.network().register(dht);
        SearchBackend search = services.search();
        search.remoteSources().add(new DhtCandidateSource(context.system(), dht, search::profile));
        search.setPeersKnown(dht.view()::hasOtherPeers);
    }

    static Config pekkoConfig(NodeConfig nc) {
        return tlsConfig(nc).withFallback(clusterConfig(nc));
    }

    /**
     * Artery over mutual TLS when {@code peerdex.cluster.tls-dir} names a peer directory of the network's CA;
     * a cluster reachable beyond loopback without it is refused: Pekko Cluster trusts every member it lets in.
     */
    private static Config tlsConfig(NodeConfig nc) {
        var c = nc.raw().getConfig("peerdex.cluster");
        String dir = c.hasPath("tls-dir") ? c.getString("tls-dir") : "";
        if (dir.isEmpty()) {
            boolean loopback = nc.clusterHost().equals("localhost")
                    || AddressPrefix.literal(nc.clusterHost()).map(InetAddress::isLoopbackAddress).orElse(false);
            boolean tlsByHand = nc.raw().hasPath("pekko.remote.artery.transport")
                    && nc.raw().getString("pekko.remote.artery.transport").equals("tls-tcp");
            if (!loopback && !tlsByHand) {
                throw new IllegalArgumentException("a cluster on " + nc.clusterHost() + " (beyond loopback) needs mutual TLS: "
                        + "'peerdex network init CA-DIR', 'peerdex network admit CA-DIR NAME', then --cluster-tls DIR "
                        + "(docs/security.md); strangers belong on the peer protocol (--peer)");
            }
            return ConfigFactory.empty();
        }
        try {
            return NetworkCa.arteryTls(Path.of(dir));
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static Config clusterConfig(NodeConfig nc) {
        nc.seeds().forEach(PeerNode::hostPort); // checked here; joined at the end of start()
        return ConfigFactory.parseString(String.join("\n",
                "pekko.actor.provider = cluster",
                "pekko.remote.artery.canonical.hostname = \"" + nc.clusterHost() + "\"",
                "pekko.remote.artery.canonical.port = " + nc.clusterPort(),
                "pekko.cluster.seed-nodes = []",
                "pekko.cluster.downing-provider-class = \"org.apache.pekko.cluster.sbr.SplitBrainResolverProvider\"",
                "pekko.cluster.split-brain-resolver.active-strategy = keep-majority",
                "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on",
                "pekko.loggers = [\"org.apache.pekko.event.slf4j.Slf4jLogger\"]",
                "pekko.logging-filter = \"org.apache.pekko.event.slf4j.Slf4jLoggingFilter\"",
                "pekko.loglevel = INFO",
                "pekko.http.server.remote-address-attribute = on",
                "pekko.coordinated-shutdown.exit-jvm = off"));
    }

    private static String hostPort(String s) {
        String t = s.trim();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) throw new IllegalArgumentException("seed must be HOST:PORT: " + s);
        Integer.parseInt(t.substring(colon + 1));
        return t;
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    private static void awaitTermination(ActorSystem<?> system) {
        try {
            system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // best effort on a failed start
        }
    }

    public NodeContext context() {
        return context;
    }

    /** The peer's services (search, crawl, network, settings, federation, imports, rate limits). */
    public NodeServices services() {
        return services;
    }

    public PeerId peerId() {
        return context.peerId();
    }

    public int httpPort() {
        return binding.localAddress().getPort();
    }

    public InetSocketAddress httpAddress() {
        return binding.localAddress();
    }

    /** The Artery address inside a trust domain; throws in the open network, which has none. */
    public Address clusterAddress() {
        if (open != null) throw new IllegalStateException("an open-network peer has no cluster address");
        return Cluster.get(context.system()).selfMember().address();
    }

    /** The open network's endpoint and membership, if this peer is in the open network. */
    public Optional<OpenNetwork> openNetwork() {
        return Optional.ofNullable(open);
    }

    public String baseUrl() {
        return "http://" + context.config().httpHost() + ":" + httpPort();
    }

    /** Runs the coordinated shutdown: HTTP unbound, actors stopped, LevelDB flushed and closed. */
    public CompletionStage<Done> stop() {
        return CoordinatedShutdown.get(context.system()).runAll(CoordinatedShutdown.unknownReason())
                .thenCompose(d -> context.system().getWhenTerminated());
    }

    public CompletionStage<Done> whenTerminated() {
        return context.system().getWhenTerminated();
    }

    @Override
    public void close() {
        try {
            stop().toCompletableFuture().get(Duration.ofSeconds(60).toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("peer did not stop cleanly", e);
        }
    }
}
