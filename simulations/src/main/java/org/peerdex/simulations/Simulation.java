package org.peerdex.simulations;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.peerdex.actors.dht.DhtEnvironment;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerInfo;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.actors.dht.search.DhtCandidateSource;
import org.peerdex.actors.dht.replication.Batching;
import org.peerdex.actors.dht.search.RemoteSearch;
import org.peerdex.actors.dht.shard.HeldArcs;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.actors.search.QueryCoordinator;
import org.peerdex.actors.search.SearchRequest;
import org.peerdex.actors.search.SearchResult;
import org.peerdex.actors.search.query.Query;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.simulations.churn.ChurnEvent;
import org.peerdex.simulations.churn.ChurnModel;
import org.peerdex.simulations.hostile.AdmissionRules;
import org.peerdex.simulations.hostile.HostileOperator;
import org.peerdex.simulations.hostile.Population;
import org.peerdex.simulations.membership.Keyring;
import org.peerdex.simulations.membership.OpenMembershipNet;
import org.peerdex.simulations.net.LinkSettings;
import org.peerdex.simulations.net.NetworkModel;
import org.peerdex.simulations.net.Traffic;
import org.peerdex.simulations.net.VirtualNetwork;
import org.peerdex.simulations.peer.PeerHost;
import org.peerdex.simulations.peer.PeerSearch;
import org.peerdex.simulations.report.HeapWatch;
import org.peerdex.simulations.report.Percentiles;
import org.peerdex.simulations.sim.SimDurations;
import org.peerdex.simulations.sim.SimRuntime;
import org.peerdex.simulations.workload.Corpus;
import org.peerdex.simulations.workload.Oracle;
import org.peerdex.simulations.workload.QueryWorkload;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.HashBytes;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;
import org.peerdex.storage.rwi.ReverseWordIndex;
import org.slf4j.LoggerFactory;

/**
 * One simulation run: N virtual peers of the real DHT actors in one ActorSystem driven in simulated time
 * ({@link SimRuntime}), every cross-peer message through the {@link VirtualNetwork}. Phases: bootstrap (every
 * peer introduced to every other over the network), indexing (each document by one random peer, replicated by
 * its Replicator), settling, the main phase (queries, churn, partitions) and a repair tail without churn.
 * Measures replica counts and load by reading every live peer's storage, recall@10 against the {@link Oracle}.
 */
public final class Simulation implements AutoCloseable {
    /** Receives progress: phase name, fraction done of the whole run (0..1), a short status. */
    public interface Progress {
        void update(String phase, double fraction, String status);

        Progress NONE = (p, f, s) -> {};
    }

    /**
     * One finished query: latency to the coordinator's Done (the final ranked page), first result to its first
     * ResultFound (-1 if none), recall of the ranked top-10 against the oracle's; messages and bytes as the DHT
     * source counted them; complete when every source and every peer asked answered; {@code recallTrueN} against
     * the oracle ranked with the central index's own N instead of the querying peer's estimate; {@code fakeResults}:
     * results on the page that are no document of the corpus, or one without every query word.
     */
    public record QueryResult(int index, int words, long startMicros, long latencyMicros, long firstResultMicros,
                              double recall, long messages, long bytes, boolean complete, int results,
                              double recallTrueN, int fakeResults) {}

    /** One point of the time series. */
    public record Sample(long atMicros, String phase, int upPeers, int ringMin, int ringMax, int[] histogram,
                         long zero, long noHolderCopy, double recall, int queries, double latencyP50Millis, double bytesPerQuery,
                         long storeMessages, long storeBytes, long digestMessages, long digestBytes,
                         long searchMessages, long membershipMessages, long repairedPostings, long handedOff,
                         long churnEvents) {}

    private record SpawnHost(Behavior<PeerHost.Command> behavior, String name,
                             Consumer<ActorRef<PeerHost.Command>> spawned) {}

    /** above this many documents the oracle's central index is a LevelDB on disk (see {@link Oracle#onDisk}) */
    static final int ORACLE_IN_MEMORY_DOCS = 300_000;

    private final Scenario sc;
    private final SimRuntime rt;
    private final ActorSystem<SpawnHost> system;
    private final VirtualNetwork net;
    private final Placement placement;
    private final DhtSettings settings;
    private final PeerId[] ids;
    private final PeerStorage[] storages;
    private final DhtPeer[] peers;
    private final List<ActorRef<PeerHost.Command>> hosts;
    private final int[] starts;
    /**
     * Each peer's info at its last start (the membership bootstrap hands them out); for the membership service's
     * rounds ({@code bootstrap = membership}, no partition) whether the last round listed it, and when the service
     * notices a stopped peer gone (MAX while up).
     */
    private final PeerInfo[] infos;
    private final boolean[] member;
    private final long[] noticedAt;
    /** the rounds already scheduled (simulated micros) */
    private final TreeSet<Long> rounds = new TreeSet<>();
    private final Corpus corpus;
    private final Oracle oracle;
    /**
     * The oracle's own thread: it builds the oracle while the peers index (in document order, as one thread would)
     * and ranks each query's true top while the network answers it. Nothing the run measures depends on when it
     * runs: every read of the oracle waits for the build ({@link #oracleBuilt}), a write for every task before it.
     */
    private final java.util.concurrent.ExecutorService oracleThread = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "oracle");
        t.setDaemon(true);
        return t;
    });
    /** the last task given to {@link #oracleThread} (tasks run in order: when it is done, all are) */
    private CompletableFuture<?> oracleLast = CompletableFuture.completedFuture(null);
    /** the oracle's build, done when every document is in it */
    private CompletableFuture<?> oracleBuild = CompletableFuture.completedFuture(null);
    private final int[] crawlerOf;
    /** who the peers are: ids, prefixes, hostile or not, admitted or not (index = ring order) */
    private final Population population;
    /** every peer's own open membership (null unless bootstrap = open-membership) */
    private final OpenMembershipNet open;
    /** the operator of the hostile peers (null without any) */
    private final HostileOperator operator;
    /** honest admitted peers: they crawl and they ask the queries */
    private final int[] honest;
    private final SplittableRandom random;
    private final List<QueryResult> results = new ArrayList<>();
    private final List<Sample> series = new ArrayList<>();
    private final Map<String, Long> churnCounts = new LinkedHashMap<>();
    private Progress progress = Progress.NONE;
    private long mainStart;
    private long wallStart;
    private long peakHeap;
    /** the most heap in use at once (before a collection), from the run's start */
    private final HeapWatch heapWatch = new HeapWatch();
    private long heapAfterGc = -1;
    private double bootstrapWall;
    private double settledWall;
    private int lastSampleQueries;
    private Map<String, Object> summary;

    public Simulation(Scenario scenario) {
        this.sc = scenario;
        this.random = new SplittableRandom(scenario.seed());
        this.rt = SimRuntime.create(scenario.seed());
        Config config = ConfigFactory.parseString(
                "peerdex.sim.run-id = \"" + rt.id() + "\"\n"
                + "pekko.actor.provider = local\n"
                + "pekko.scheduler.implementation = \"org.peerdex.simulations.sim.SimScheduler\"\n"
                + "pekko.actor.default-dispatcher { executor = \"org.peerdex.simulations.sim.SimExecutorConfigurator\"\n"
                + "  throughput = 100 }\n"
                // the internal dispatcher too: it runs the system guardian, which starts every systemActorOf child
                // (the DHT candidate source's lookups); on a real thread those started at wall-clock times
                + "pekko.actor.internal-dispatcher { executor = \"org.peerdex.simulations.sim.SimExecutorConfigurator\" }\n"
                // every blocking-work dispatcher of the peer (org.peerdex.actors.Dispatchers) runs in simulated time
                + simDispatcher("fetch") + simDispatcher("import") + simDispatcher("index") + simDispatcher("search")
                + "peerdex.dht.use-receptionist = off\n"
                + "pekko.loglevel = WARNING\n"
                + "pekko.loggers-dispatcher = \"pekko.actor.internal-dispatcher\"\n"
                + "pekko.log-dead-letters = off\n"
                + "pekko.log-dead-letters-during-shutdown = off\n"
                + "pekko.actor.serialize-messages = off\n"
                + "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n"
                + "pekko.jvm-shutdown-hooks = off\n")
                .withFallback(scenario.dht().atPath("peerdex.dht"))
                // the open membership is the open network: its searchers check what holders say as the node's do
                // (independent metadata, confirmation by a second holder), unless the scenario says otherwise
                .withFallback(ConfigFactory.parseString("peerdex.dht.open-network = "
                        + scenario.bootstrap().equals("open-membership")))
                .withFallback(ConfigFactory.load());
        quietLogs();
        this.system = createDriven(rt, config);
        DhtEnvironment.get(system).simulate(rt::millis, random.nextLong());
        this.settings = DhtSettings.from(system.settings().config());
        this.placement = new Placement(new Partitions(scenario.partitionExponent()), scenario.redundancy(),
                scenario.positionsPerPeer());
        this.oracle = scenario.docs() > ORACLE_IN_MEMORY_DOCS ? Oracle.onDisk(placement.partitions())
                : new Oracle(placement.partitions());
        LinkSettings link = new LinkSettings(scenario.rttMillis(), scenario.rttSigma(), scenario.jitter(),
                scenario.loss(), scenario.bandwidth());
        this.net = new VirtualNetwork(system, rt, new NetworkModel(scenario.peers(), link, random.split()));
        int n = scenario.peers();
        SplittableRandom idRandom = random.split();
        // a stream of its own: a scenario without hostile peers draws what it always drew
        SplittableRandom hostileRandom = new SplittableRandom(scenario.seed() ^ 0x5EED_4057_11E5L);
        List<WordHash> frequent = new ArrayList<>();
        for (int r = 0; r < scenario.hostile().targetWords(); r++) frequent.add(WordHash.of(Corpus.word(r)));
        if (scenario.openMembership()) {
            // ids are the ids of key pairs; every peer starts and each applies the admission bounds itself
            Keyring keyring = new Keyring();
            AdmissionRules none = new AdmissionRules("off", scenario.admission().maxPerPrefix(),
                    scenario.admission().maxPerArc(), scenario.admission().arcBits());
            this.population = Population.build(n, scenario.hostile(), none, placement, idRandom, hostileRandom,
                    frequent, keyring);
            this.open = new OpenMembershipNet(keyring, population, scenario.admission(), net, rt, this::peer,
                    settings.acceptRemoteIndex(), scenario.seed(), placement.positionsPerPeer(), placement.tag());
        } else {
            this.population = Population.build(n, scenario.hostile(), scenario.admission(), placement, idRandom,
                    hostileRandom, frequent);
            this.open = null;
        }
        this.ids = new PeerId[n];
        for (int i = 0; i < n; i++) ids[i] = population.id(i);
        this.operator = scenario.hostile().count(n) > 0
                ? new HostileOperator(placement, scenario.hostile().fakesPerKey()) : null;
        this.honest = IntStream.range(0, n)
                .filter(i -> !population.hostile(i) && population.admitted(i)).toArray();
        if (honest.length == 0) throw new IllegalArgumentException("no honest peer was admitted");
        this.storages = new PeerStorage[n];
        for (int i = 0; i < n; i++) storages[i] = PeerStorage.inMemory(placement.partitions());
        this.peers = new DhtPeer[n];
        this.hosts = new ArrayList<>();
        for (int i = 0; i < n; i++) hosts.add(null);
        this.starts = new int[n];
        this.infos = new PeerInfo[n];
        this.member = new boolean[n];
        this.noticedAt = new long[n];
        this.corpus = new Corpus(new Corpus.Settings(scenario.docs(), scenario.vocabulary(), scenario.zipf(),
                scenario.docLengthMedian(), scenario.docLengthSigma()), random.nextLong());
        this.crawlerOf = new int[scenario.docs()];
    }

    /**
     * Creates the system on a helper thread while this thread drives the simulation's queue: startup waits for
     * the loggers, which run on the (simulated) internal dispatcher. Afterwards only the driver runs actors.
     */
    private static ActorSystem<SpawnHost> createDriven(SimRuntime rt, Config config) {
        CompletableFuture<ActorSystem<SpawnHost>> created = CompletableFuture
                .supplyAsync(() -> ActorSystem.create(Behaviors.<SpawnHost>receive((ctx, m) -> {
                    m.spawned().accept(ctx.spawn(m.behavior(), m.name()));
                    return Behaviors.same();
                }), "sim", config));
        while (!created.isDone()) {
            rt.drain();
            Thread.onSpinWait();
        }
        rt.drain();
        ActorSystem<SpawnHost> system = created.join();
        rt.started();
        return system;
    }

    /** The config of one of the peer's dispatchers, driven by the simulation's event queue. */
    private static String simDispatcher(String kind) {
        return "peerdex." + kind + "-dispatcher { type = Dispatcher\n"
                + "  executor = \"org.peerdex.simulations.sim.SimExecutorConfigurator\" }\n";
    }

    private static void quietLogs() {
        try {
            ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("org.peerdex"))
                    .setLevel(ch.qos.logback.classic.Level.WARN);
            ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("org.apache.pekko"))
                    .setLevel(ch.qos.logback.classic.Level.WARN);
        } catch (ClassCastException e) {
            // another slf4j binding: leave its levels alone
        }
    }

    public Simulation progress(Progress p) {
        this.progress = p;
        return this;
    }

    public SimRuntime runtime() {
        return rt;
    }

    public ActorSystem<?> system() {
        return system;
    }

    public VirtualNetwork network() {
        return net;
    }

    public Oracle oracle() {
        return oracleIdle();
    }

    /** The oracle with every document in it (reads only: its thread may be ranking a query beside). */
    private Oracle oracleBuilt() {
        oracleBuild.join(); // at once when built; rethrows what failed the build
        return oracle;
    }

    /** The oracle with no task of its thread running or waiting: for a write, or a caller that may write. */
    private Oracle oracleIdle() {
        oracleLast.join();
        return oracle;
    }

    /** Runs {@code work} on the oracle's thread after every task given before. */
    private <T> CompletableFuture<T> onOracleThread(java.util.function.Supplier<T> work) {
        CompletableFuture<T> f = CompletableFuture.supplyAsync(work, oracleThread);
        oracleLast = f;
        return f;
    }

    public List<QueryResult> results() {
        return results;
    }

    public List<Sample> series() {
        return series;
    }

    public PeerId peerId(int i) {
        return ids[i];
    }

    public PeerStorage storage(int i) {
        return storages[i];
    }

    public DhtPeer peer(int i) {
        return peers[i];
    }

    public Placement placement() {
        return placement;
    }

    public int size() {
        return sc.peers();
    }

    public Scenario scenario() {
        return sc;
    }

    // ---- peers

    /** Starts (or restarts) peer i over its storage, without introductions. */
    public void start(int i) {
        if (net.isUp(i)) return;
        net.up(i);
        starts[i]++;
        PeerHost.Wire wire = new PeerHost.Wire() {
            @Override
            public <T> ActorRef<T> handle(ActorRef<T> own) {
                return net.handle(i, own);
            }
        };
        PeerHost.Children children = open == null ? PeerHost.Children.NONE : open.children(i, starts[i]);
        system.tell(new SpawnHost(PeerHost.create(ids[i], "peer-" + i, storages[i], placement, settings, wire,
                owners(i), children, p -> peers[i] = p), VirtualNetwork.hostName(i, starts[i]), ref -> hosts.set(i, ref)));
        rt.drain();
        infos[i] = peers[i].view().get().peers().get(ids[i]);
        noticedAt[i] = Long.MAX_VALUE;
    }

    /**
     * How often the membership service of {@code bootstrap = membership} publishes a changed membership: Pekko
     * Cluster gossips once a second, and its members see a change within a few rounds.
     */
    public static final long MEMBERSHIP_ROUND_MICROS = 1_000_000;

    /**
     * Whether churn reaches the directories through the membership service's rounds ({@code bootstrap =
     * membership} without a partition in the scenario; a partition's sides need views of their own, which the
     * Forgets and Hellos give).
     */
    private boolean membershipRounds() {
        return open == null && sc.bootstrap().equals("membership") && sc.partitionAtMicros() < 0;
    }

    /** Schedules the service's first round at least {@code delayMicros} from now (rounds fall on a 1 s grid). */
    private void roundAfter(long delayMicros) {
        long at = (rt.nowMicros() + delayMicros + MEMBERSHIP_ROUND_MICROS - 1) / MEMBERSHIP_ROUND_MICROS
                * MEMBERSHIP_ROUND_MICROS;
        if (rounds.add(at)) rt.schedule(at - rt.nowMicros(), () -> membershipRound(at));
    }

    /**
     * A round of the membership service: the live peers, and the stopped ones it has not noticed yet, go to every
     * live member as one shared map, with the peers that left since the last round.
     */
    private void membershipRound(long at) {
        rounds.remove(at);
        List<PeerInfo> members = new ArrayList<>();
        List<PeerInfo> left = new ArrayList<>();
        boolean changed = false;
        for (int i = 0; i < sc.peers(); i++) {
            boolean was = member[i];
            boolean is = infos[i] != null && (net.isUp(i) || (was && noticedAt[i] > at));
            if (is) members.add(infos[i]);
            else if (was) left.add(infos[i]);
            changed |= is != was;
            member[i] = is;
        }
        PeerDirectory.Membership round = PeerDirectory.Membership.of(members, left);
        for (int i = 0; i < sc.peers(); i++) {
            if (!net.isUp(i) || !member[i]) continue;
            peers[i].directory().tell(round);
            if (i % 50 == 0) rt.drain();
        }
        if (changed) count("membership-round");
    }

    /** The shard owner peer i runs: the real one, or its hostile behaviour's. */
    private PeerHost.OwnerFactory owners(int i) {
        return switch (population.behaviour(i)) {
            case HONEST -> PeerHost.OwnerFactory.REAL;
            case FAKE -> operator::faking;
            case DROP -> (self, storage, pl, st, stats) -> operator.dropping(self);
        };
    }

    /** Who the peers are (ids, prefixes, hostile or not, admitted or not). */
    public Population population() {
        return population;
    }

    /** Every peer's own open membership, or null unless the scenario's bootstrap is open-membership. */
    public OpenMembershipNet openMembership() {
        return open;
    }

    /** Peer i greets peer j over the network (a Hello; j answers). */
    public void introduce(int i, int j) {
        if (i == j || !net.isUp(i) || !net.isUp(j)) return;
        peers[i].directory().tell(new PeerDirectory.Introduce(net.handle(i, j, peers[j].directory())));
    }

    /** Peer i stops at once; the others forget it after {@code noticeMicros} (their failure detectors). */
    public void stop(int i, long noticeMicros) {
        if (!net.isUp(i)) return;
        hosts.get(i).tell(PeerHost.Stop.INSTANCE);
        net.down(i);
        peers[i] = null;
        if (open != null) { // the others' own probes notice
            rt.drain();
            return;
        }
        if (membershipRounds()) {
            noticedAt[i] = rt.nowMicros() + noticeMicros;
            roundAfter(noticeMicros);
            rt.drain();
            return;
        }
        int start = starts[i];
        PeerId gone = ids[i];
        rt.schedule(noticeMicros, () -> {
            if (net.isUp(i) && starts[i] != start) return; // it came back before anyone noticed
            for (int j = 0; j < sc.peers(); j++) {
                if (net.isUp(j)) peers[j].directory().tell(new PeerDirectory.Forget(gone));
            }
        });
        rt.drain();
    }

    public boolean isUp(int i) {
        return net.isUp(i);
    }

    public int upCount() {
        int n = 0;
        for (int i = 0; i < sc.peers(); i++) if (net.isUp(i)) n++;
        return n;
    }

    /** Whether every live peer's view holds exactly the live peers it can reach. */
    public boolean viewsComplete() {
        int up = upCount();
        for (int i = 0; i < sc.peers(); i++) {
            if (!net.isUp(i)) continue;
            PeerView v = peers[i].view().get();
            if (v == null) return false;
            int reachable = up; // O(N) per check while whole: the check runs every 100 ms of bootstrap
            if (net.model().isPartitioned()) {
                reachable = 0;
                for (int j = 0; j < sc.peers(); j++) if (net.isUp(j) && net.model().canReach(i, j)) reachable++;
            }
            if (v.ring().size() != reachable) return false;
        }
        return true;
    }

    /** Whether every live peer's outbox is empty and no hand-off is pending. */
    public boolean replicationIdle() {
        for (int i = 0; i < sc.peers(); i++) {
            if (!net.isUp(i)) continue;
            var s = peers[i].stats();
            if (s.replicationsPlanning.get() > 0 || s.outboxEntries.get() > 0 || s.handoffPending.get() > 0) return false;
        }
        return true;
    }

    // ---- phases

    /**
     * Starts every admitted peer and introduces each to every other; runs until all views are complete. A peer
     * the membership service refused never starts (no directory would list it).
     */
    public void bootstrap() {
        for (int i = 0; i < sc.peers(); i++) if (population.admitted(i)) start(i);
        if (open != null) {
            settleMembership();
            return;
        }
        if (sc.bootstrap().equals("membership")) {
            List<PeerInfo> all = new ArrayList<>();
            for (int i = 0; i < sc.peers(); i++) if (net.isUp(i)) all.add(infos[i]);
            PeerDirectory.Learn learn = new PeerDirectory.Learn(List.copyOf(all));
            if (membershipRounds()) for (int i = 0; i < sc.peers(); i++) member[i] = net.isUp(i);
            for (int i = 0; i < sc.peers(); i++) {
                if (!net.isUp(i)) continue;
                peers[i].directory().tell(learn);
                if (i % 50 == 0) rt.drain();
            }
        } else {
            for (int i = 0; i < sc.peers(); i++) {
                for (int j = i + 1; j < sc.peers(); j++) introduce(i, j);
                if (i % 50 == 0) rt.drain();
            }
        }
        rt.runUntil(this::viewsComplete, 100_000, 120_000_000);
    }

    /**
     * With the open membership: runs probe round after probe round until the admitted peers over all memberships
     * stayed the same for three rounds and every live peer admitted someone (or settle-max passed).
     */
    private void settleMembership() {
        long round = OpenMembershipNet.PROBE_INTERVAL.toNanos() / 1000;
        long end = rt.nowMicros() + Math.max(sc.settleMaxMicros(), 60 * round);
        long last = -1;
        int stable = 0;
        while (rt.nowMicros() < end && stable < 3) {
            rt.runUntil(rt.nowMicros() + round);
            long total = open.admittedTotal(net::isUp);
            boolean everyone = true;
            for (int i = 0; i < sc.peers(); i++) {
                if (net.isUp(i) && open.membership(i).admitted().isEmpty()) everyone = false;
            }
            stable = total == last && everyone ? stable + 1 : 0;
            last = total;
        }
    }

    /**
     * Builds the oracle and indexes every document at its crawler, in batches spread over the index window (or,
     * with {@code indexing = settled}, writes every store as a settled replication leaves it: {@link #indexSettled}).
     */
    public void index() {
        if (sc.settledIndexing()) {
            indexSettled();
            return;
        }
        int n = sc.peers();
        List<List<Integer>> byPeer = new ArrayList<>();
        for (int i = 0; i < n; i++) byPeer.add(new ArrayList<>());
        SplittableRandom r = random.split();
        oracleIdle();
        // the documents enter the oracle on its own thread while the peers index them here (a corpus phase of
        // 40 s in the README's run); the first read of the oracle waits for the last of them
        int corpusSize = sc.docs();
        oracleBuild = onOracleThread(() -> {
            for (int d = 0; d < corpusSize; d++) {
                oracle.add(corpus.document(d));
            }
            oracle.seal();
            return null;
        });
        for (int d = 0; d < sc.docs(); d++) {
            int crawler = honest[r.nextInt(honest.length)];
            crawlerOf[d] = crawler;
            byPeer.get(crawler).add(d);
        }
        int batch = 25;
        long window = Math.max(1, sc.indexWindowMicros());
        for (int i = 0; i < n; i++) {
            List<Integer> docs = byPeer.get(i);
            int batches = (docs.size() + batch - 1) / batch;
            for (int b = 0; b < batches; b++) {
                int peer = i;
                List<Integer> part = docs.subList(b * batch, Math.min(docs.size(), (b + 1) * batch));
                long at = (long) ((b + r.nextDouble()) * window / Math.max(1, batches));
                rt.schedule(at, () -> indexBatch(peer, part));
            }
        }
        long end = rt.nowMicros() + window;
        while (rt.nowMicros() < end) {
            rt.runUntil(Math.min(end, rt.nowMicros() + window / 20));
            progress.update("indexing", 0.05 + 0.15 * (1 - (end - rt.nowMicros()) / (double) window),
                    "t=" + SimDurations.format(rt.nowMicros() / 1_000_000 * 1_000_000));
        }
    }

    /** documents a settled write handles at once (their postings in memory together) */
    private static final int SETTLED_CHUNK = 20_000;

    /**
     * Indexing without the index window: each document is drawn a crawler as {@link #index} draws it and is written
     * to that crawler's local index, and every posting and metadata record goes straight into the stores of the
     * holders the placement names over the ring of the peers up now, through the holders' own write
     * ({@link ShardOwner#storeReceived}), marked with the crawler as holder as the Replicator marks what it sends.
     * That is what a replication that has settled leaves, without a message. With
     * {@code settled-query-words} only the postings of words the workload's queries ask are written (at the crawler,
     * the holders and the oracle alike), every metadata record still: a query reads those keys alone, so each costs
     * what it would over the whole corpus. The queries are drawn here, with the draws {@link #scheduleMain} would
     * make, so a run has the same crawlers and queries whichever way it indexes.
     */
    private void indexSettled() {
        SplittableRandom r = random.split();
        oracleIdle();
        for (int d = 0; d < sc.docs(); d++) {
            oracle.register(corpus.document(d));
            crawlerOf[d] = honest[r.nextInt(honest.length)];
            if (d % 10_000 == 0) progress.update("corpus", 0.05 * d / sc.docs(), d + " documents");
        }
        drawMain();
        Set<WordHash> asked = null;
        if (sc.indexing().equals(Scenario.SETTLED_QUERY_WORDS)) {
            asked = new HashSet<>();
            for (QueryWorkload.Query q : workload) for (int w : q.words()) asked.add(oracle.word(w));
            keptWords = new boolean[oracle.wordCount()];
            for (WordHash w : asked) keptWords[oracle.wordId(w)] = true;
        }
        // the peers' first rebalance (a full repair of everything each holds, debounced after its first view) runs
        // on empty stores, as it does before a replicated indexing's first batches; over written stores it would
        // offer digests of everything to every holder
        long window = Math.max(1, sc.indexWindowMicros());
        long before = Math.min(window / 2, settings.rebalanceDelay().toNanos() / 1000 * 2);
        rt.runUntil(rt.nowMicros() + before);
        Ring ring = liveRing();
        Map<PeerId, Integer> indexOf = new HashMap<>();
        for (int i = 0; i < sc.peers(); i++) indexOf.put(ids[i], i);
        for (int start = 0; start < sc.docs(); start += SETTLED_CHUNK) {
            int end = Math.min(sc.docs(), start + SETTLED_CHUNK);
            Map<Integer, List<Posting>> postingsOf = new TreeMap<>();
            Map<Integer, List<UrlMetadata>> metadataOf = new TreeMap<>();
            for (int d = start; d < end; d++) {
                IndexedDocument doc = corpus.document(d);
                if (asked != null) {
                    Set<WordHash> keep = asked;
                    doc = new IndexedDocument(doc.metadata(), doc.text(),
                            doc.postings().stream().filter(p -> keep.contains(p.word())).toList(), doc.images());
                }
                oracle.addToCentral(doc);
                int crawler = crawlerOf[d];
                storages[crawler].writer().add(doc);
                postingsOf.computeIfAbsent(crawler, k -> new ArrayList<>()).addAll(doc.postings());
                metadataOf.computeIfAbsent(crawler, k -> new ArrayList<>()).add(doc.metadata());
            }
            // every holder's share of this chunk, from all its crawlers, in one write
            Map<Integer, Batching.Targeted> shares = new TreeMap<>();
            for (var e : postingsOf.entrySet()) {
                int crawler = e.getKey();
                storages[crawler].writer().flush();
                Batching.byTarget(ids[crawler], e.getValue(), metadataOf.get(crawler), placement, ring).forEach((t, share) -> {
                    Batching.Targeted to = shares.computeIfAbsent(indexOf.get(t), k -> new Batching.Targeted());
                    to.postings.addAll(share.postings);
                    to.metadata.addAll(share.metadata);
                });
            }
            // the Replicator's batches name their crawler as holder of every record: no sender is needed
            shares.forEach((holder, share) -> ShardOwner.storeReceived(storages[holder], null, share.postings, share.metadata));
            progress.update("indexing", 0.05 + 0.15 * end / sc.docs(), end + " documents written to their holders");
        }
        oracle.seal();
        // the index window still passes (the peers idle through it), so the queries start when they would after a
        // replicated indexing: a searcher asks a ring's former holders too while a change is recent
        rt.runUntil(rt.nowMicros() + window - before);
    }

    /** Indexes documents at peer {@code peer} now (they enter the oracle too) and hands them to its Replicator. */
    public void indexDocuments(int peer, List<IndexedDocument> docs) {
        if (!net.isUp(peer)) throw new IllegalStateException("peer " + peer + " is down");
        List<Posting> postings = new ArrayList<>();
        List<UrlMetadata> metadata = new ArrayList<>();
        oracleIdle();
        for (IndexedDocument doc : docs) {
            oracle.add(doc);
            storages[peer].writer().add(doc);
            postings.addAll(doc.postings());
            metadata.add(doc.metadata());
        }
        storages[peer].writer().flush();
        peers[peer].replicate(postings, metadata);
        rt.drain();
    }

    /** Raw lookup results (best first) of a search from {@code from}, waiting in simulated time. */
    public RemoteSearch.Finished lookup(int from, List<WordHash> words, int limit) {
        RemoteSearch.Finished[] out = new RemoteSearch.Finished[1];
        hosts.get(from).tell(new PeerHost.Search(new RemoteSearch.Request(words, limit), f -> out[0] = f));
        rt.runUntil(() -> out[0] != null, 100_000, settings.searchTimeout().toNanos() / 1000 * 3);
        if (out[0] == null) throw new IllegalStateException("the lookup did not finish");
        return out[0];
    }

    private void indexBatch(int peer, List<Integer> docs) {
        if (!net.isUp(peer)) return;
        List<Posting> postings = new ArrayList<>();
        List<UrlMetadata> metadata = new ArrayList<>();
        for (int d : docs) {
            IndexedDocument doc = corpus.document(d);
            storages[peer].writer().add(doc);
            postings.addAll(doc.postings());
            metadata.add(doc.metadata());
        }
        storages[peer].writer().flush();
        peers[peer].replicate(postings, metadata);
    }

    /** Runs until replication is idle (or settle-max); returns the simulated time it took. */
    public long settle() {
        long t = rt.nowMicros();
        rt.runUntil(this::replicationIdle, 1_000_000, sc.settleMaxMicros());
        // a rebalance may still be debounced: let it run and settle again
        rt.runUntil(rt.nowMicros() + settings.rebalanceDelay().toNanos() / 1000 * 2);
        rt.runUntil(this::replicationIdle, 1_000_000, sc.settleMaxMicros());
        return rt.nowMicros() - t;
    }

    /** The whole run; returns summary.json's content. */
    public Map<String, Object> run() {
        wallStart = System.nanoTime();
        progress.update("bootstrap", 0, sc.peers() + " peers");
        bootstrap();
        long bootstrapped = rt.nowMicros();
        bootstrapWall = (System.nanoTime() - wallStart) / 1e9;
        index();
        progress.update("settling", 0.2, "replication");
        long settleTime = settle();
        sample("indexed");
        settledWall = (System.nanoTime() - wallStart) / 1e9;
        if (sc.measureHeapAfterGc()) heapAfterGc = heapAfterGc();
        mainStart = rt.nowMicros();
        scheduleMain();
        long d = Math.max(1, sc.durationMicros());
        for (int s = 1; s <= sc.samples(); s++) {
            long until = mainStart + d * s / sc.samples();
            // a line each simulated minute between samples: at 10,000 peers under churn a sample is minutes apart
            while (rt.nowMicros() < until) {
                rt.runUntil(Math.min(until, (rt.nowMicros() / PROGRESS_MICROS + 1) * PROGRESS_MICROS));
                if (rt.nowMicros() < until) progress.update("main", 0.2 + 0.65 * (rt.nowMicros() - mainStart) / d, status());
            }
            sample("main");
            progress.update("main", 0.2 + 0.65 * s / sc.samples(), status());
        }
        int tail = Math.max(1, sc.samples() / 4);
        long tailStart = rt.nowMicros();
        for (int s = 1; s <= tail; s++) {
            rt.runUntil(tailStart + sc.repairTailMicros() * s / tail);
            sample("repair");
            progress.update("repair", 0.85 + 0.15 * s / tail, status());
        }
        summary = summarize(bootstrapped, settleTime);
        return summary;
    }

    /** How often the main phase reports progress between samples, in simulated time. */
    private static final long PROGRESS_MICROS = 60_000_000;

    private String status() {
        return "t=" + SimDurations.format(rt.nowMicros() / 60_000_000 * 60_000_000) + " up=" + upCount()
                + " queries=" + results.size();
    }

    /** the main phase's churn stream (null without churn) and queries, drawn by {@link #drawMain} */
    private SplittableRandom churnRandom;
    private List<QueryWorkload.Query> workload;
    /** with settled-query-words: the oracle's words whose postings were written (the others are counted nowhere) */
    private boolean[] keptWords;

    /** The main phase's draws, in the order they always came: the churn stream, the queries, their origins. */
    private void drawMain() {
        if (workload != null) return;
        churnRandom = sc.hasChurn() ? random.split() : null;
        QueryWorkload w = new QueryWorkload(QueryWorkload.parseMix(sc.queryMix()));
        workload = w.generate(oracleBuilt(), sc.queries(), random.nextLong());
        originRandom = random.split();
    }

    private SplittableRandom originRandom;

    private void scheduleMain() {
        long d = Math.max(1, sc.durationMicros());
        drawMain();
        // churn
        if (sc.hasChurn()) {
            int n = sc.peers();
            int[] perm = new int[n];
            for (int i = 0; i < n; i++) perm[i] = i;
            SplittableRandom r = churnRandom;
            for (int i = n - 1; i > 0; i--) {
                int j = r.nextInt(i + 1);
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            ChurnModel model = new ChurnModel(sc.sessionSpec(), sc.downSpec(), sc.crashFraction());
            int stable = (int) Math.round(sc.stablePeers() * n);
            for (ChurnEvent e : model.schedule(n, stable, mainStart, mainStart + d, r.nextLong())) {
                int peer = perm[e.peer()];
                rt.schedule(e.atMicros() - rt.nowMicros(), () -> churn(peer, e.kind()));
            }
        }
        // partition and heal
        if (sc.partitionAtMicros() >= 0) rt.schedule(sc.partitionAtMicros(), this::partition);
        if (sc.healAtMicros() >= 0) rt.schedule(sc.healAtMicros(), this::heal);
        // queries
        List<QueryWorkload.Query> qs = workload;
        SplittableRandom origin = originRandom;
        for (QueryWorkload.Query q : qs) {
            long at = (long) ((q.index() + 0.5) * d / Math.max(1, qs.size()));
            rt.schedule(at, () -> query(q, origin));
        }
    }

    private void churn(int peer, ChurnEvent.Kind kind) {
        if (!population.admitted(peer)) return;
        switch (kind) {
            case CRASH -> {
                if (!net.isUp(peer)) return;
                count("crash");
                stop(peer, sc.detectMicros());
            }
            case LEAVE -> {
                if (!net.isUp(peer)) return;
                count("leave");
                stop(peer, (long) (sc.rttMillis() * 1000));
            }
            case JOIN -> {
                if (net.isUp(peer)) return;
                count("join");
                start(peer);
                if (membershipRounds()) roundAfter(0);
                else if (open == null) for (int j = 0; j < sc.peers(); j++) introduce(peer, j);
            }
        }
    }

    private void count(String what) {
        churnCounts.merge(what, 1L, Long::sum);
    }

    /** Splits the ring into partition-groups arcs; peers notice (forget the other side) after detect. */
    public void partition() {
        net.model().partition(sc.partitionGroups());
        count("partition");
        if (open != null) return; // each peer's own probes notice
        rt.schedule(sc.detectMicros(), () -> {
            for (int j = 0; j < sc.peers(); j++) {
                if (!net.isUp(j)) continue;
                for (int k = 0; k < sc.peers(); k++) {
                    if (k != j && !net.model().canReach(j, k)) peers[j].directory().tell(new PeerDirectory.Forget(ids[k]));
                }
            }
        });
    }

    /** Heals the partition; after detect, peers on different sides greet each other again. */
    public void heal() {
        net.model().heal();
        count("heal");
        if (open != null) return; // only the peers' own hellos bring the sides together again
        rt.schedule(sc.detectMicros(), () -> {
            for (int j = 0; j < sc.peers(); j++) {
                for (int k = j + 1; k < sc.peers(); k++) {
                    if (net.isUp(j) && net.isUp(k)) {
                        PeerView v = peers[j].view().get();
                        if (v == null || !v.peers().containsKey(ids[k])) introduce(j, k);
                    }
                }
            }
        });
    }

    /** A query asked at a random live honest peer (hostile peers' own searches are not measured). */
    private void query(QueryWorkload.Query q, SplittableRandom origin) {
        int up = 0;
        for (int i : honest) if (net.isUp(i)) up++;
        if (up == 0) return;
        int pick = origin.nextInt(up);
        int from = -1;
        for (int i : honest) {
            if (net.isUp(i) && pick-- == 0) {
                from = i;
                break;
            }
        }
        search(from, q.index(), q.words(), r -> results.add(r));
    }

    /** Runs one query (oracle word ids) from peer {@code from}; {@code done} gets the result with its recall@10. */
    public void search(int from, int index, List<Integer> words, Consumer<QueryResult> done) {
        Oracle o = oracleBuilt();
        Query q = QueryParser.parse(o.text(words));
        long documents = estimatedDocuments(from);
        // the true tops are ranked on the oracle's thread while the network answers (the oracle is sealed: they
        // only read it); the answer waits for them
        CompletableFuture<List<List<UrlHash>>> truths = onOracleThread(() -> List.of(o.top(q, 10, documents), o.top(q, 10)));
        query(from, q, fin -> {
            QueryCoordinator.Done d = fin.done();
            QueryCoordinator.Network n = d.network();
            List<List<UrlHash>> t = truths.join();
            done.accept(new QueryResult(index, words.size(), fin.startMicros() - mainStart, fin.latencyMicros(),
                    fin.firstResultMicros(), recall(d, t.get(0)), n.messages(), n.bytes(),
                    n.peersAnswered() >= n.peersAsked(), d.results().size(), recall(d, t.get(1)), fakeResults(d, words)));
        });
    }

    /** Results on the page that are no document of the corpus, or a document without every query word. */
    private int fakeResults(QueryCoordinator.Done d, List<Integer> words) {
        int fake = 0;
        for (SearchResult r : d.results()) {
            int doc = oracleBuilt().docId(UrlHash.parse(r.urlHash()));
            if (doc < 0) {
                fake++;
                continue;
            }
            int[] has = oracleBuilt().wordsOf(doc);
            for (int w : words) {
                if (Arrays.binarySearch(has, w) < 0) {
                    fake++;
                    break;
                }
            }
        }
        return fake;
    }

    private static double recall(QueryCoordinator.Done d, List<UrlHash> truth) {
        return truth.isEmpty() ? 1.0 : d.results().stream()
                .filter(r -> truth.contains(UrlHash.parse(r.urlHash()))).count() / (double) truth.size();
    }

    /** BM25's N as peer {@code from}'s query will see it: its DHT source's estimate, or its own count alone. */
    public long estimatedDocuments(int from) {
        long local = storages[from].stats().documents();
        PeerView view = peers[from].view().get();
        if (view == null || view.others().isEmpty()) return local;
        return DhtCandidateSource.estimateDocuments(local, view.self(), view.ring(), placement);
    }

    /** A query's end as seen from its peer: the coordinator's Done, and simulated times of the first and last result. */
    public record Answer(QueryCoordinator.Done done, long startMicros, long firstResultMicros, long latencyMicros) {}

    /**
     * Runs one query at peer {@code from} as a node does: a QueryCoordinator over the peer's index and the DHT,
     * ranked by the default profile, the first page of 10 (resource=global).
     */
    public void query(int from, Query q, Consumer<Answer> done) {
        if (!net.isUp(from)) throw new IllegalStateException("peer " + from + " is down");
        SearchRequest request = new SearchRequest(q, 10, 0, "global", "false", Set.of(), false, "text");
        long start = rt.nowMicros();
        long[] first = {-1};
        hosts.get(from).tell(new PeerHost.Query(request, e -> {
            if (e instanceof QueryCoordinator.ResultFound && first[0] < 0) first[0] = rt.nowMicros() - start;
            if (e instanceof QueryCoordinator.Done d) done.accept(new Answer(d, start, first[0], rt.nowMicros() - start));
        }));
    }

    /** Runs one query at peer {@code from} and waits (in simulated time) for its final ranked page. */
    public Answer queryAndWait(int from, Query q) {
        Answer[] out = new Answer[1];
        query(from, q, a -> out[0] = a);
        rt.runUntil(() -> out[0] != null, 100_000, PeerSearch.SOURCE_TIMEOUT.toNanos() / 1000 * 3);
        if (out[0] == null) throw new IllegalStateException("the query did not finish");
        return out[0];
    }

    /** Lets {@code micros} of simulated time pass. */
    public void runFor(long micros) {
        rt.runUntil(rt.nowMicros() + micros);
    }

    /** Runs one query from peer {@code from} and waits (in simulated time) for its final ranked page. */
    public QueryResult searchAndWait(int from, List<Integer> words) {
        QueryResult[] out = new QueryResult[1];
        search(from, -1, words, r -> out[0] = r);
        rt.runUntil(() -> out[0] != null, 100_000, PeerSearch.SOURCE_TIMEOUT.toNanos() / 1000 * 3);
        if (out[0] == null) throw new IllegalStateException("the lookup did not finish");
        return out[0];
    }

    /** The live-copies histogram now. */
    public int[] histogram() {
        return histogram(copies(null));
    }

    /** The histogram of copies on correct holders now (see {@link #copies(long[], int[])}). */
    public int[] holderHistogram() {
        int[] onHolders = new int[oracleBuilt().totalPostings()];
        copies(null, onHolders);
        return histogram(onHolders);
    }

    // ---- measuring

    /** Live copies of every posting of the corpus (index = oracle posting id), and each peer's load. */
    public int[] copies(long[] loadOut) {
        return copies(loadOut, null);
    }

    /**
     * As {@link #copies(long[])}; with {@code onHoldersOut}, also each posting's copies on a correct holder: an honest
     * peer that is up and that the placement over the ring of the peers up and admitted now names for the posting's
     * position. A posting with none is lost to searches (they ask the holders) even while a crawler or a former
     * holder still has a copy, which the live count takes for safe.
     */
    public int[] copies(long[] loadOut, int[] onHoldersOut) {
        long started = System.nanoTime();
        try {
            return countCopies(loadOut, onHoldersOut);
        } finally {
            countingNanos += System.nanoTime() - started;
        }
    }

    /** Wall time the copies' counts took (the measuring's own cost: every stored posting is read at each sample). */
    private long countingNanos;

    private int[] countCopies(long[] loadOut, int[] onHoldersOut) {
        Ring live = onHoldersOut == null ? null : liveRing();
        // the stores are only read here (no event runs during a count), so the peers are counted on several threads,
        // each into arrays of its own that are summed after: the same counts, in a fraction of the time (a count at
        // every sample was a fifth of a 500-peer churn run's main phase)
        int workers = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        // a byte a posting for each worker's counts (saturating at 255 copies, far above any replica count), where
        // ints took 490 MB over a million documents' 31 M postings in two workers, at the edge of the heap
        byte[][] counts = new byte[workers][];
        byte[][] held = new byte[workers][];
        // made here, on this thread: the first builds the oracle's table, which the workers then only read
        Oracle.KeyLookup[] lookups = new Oracle.KeyLookup[workers];
        for (int w = 0; w < workers; w++) lookups[w] = oracleBuilt().keyLookup();
        int postings = oracleBuilt().totalPostings();
        java.util.stream.IntStream.range(0, workers).parallel().forEach(w -> {
            byte[] c = new byte[postings];
            byte[] h = onHoldersOut == null ? null : new byte[postings];
            Oracle.KeyLookup lookup = lookups[w];
            HeldSlices slices = new HeldSlices();
            for (int i = w; i < sc.peers(); i += workers) {
                if (!net.isUp(i)) continue;
                long load = count(i, live, lookup, slices, c, h);
                if (loadOut != null) loadOut[i] = load;
            }
            counts[w] = c;
            held[w] = h;
        });
        int[] c = new int[postings];
        addByPostingId(counts, c);
        if (onHoldersOut != null) addByPostingId(held, onHoldersOut);
        return c;
    }

    /**
     * Adds the workers' counts, which are indexed by the oracle's by-word table position (the order a store's keys
     * come in, so a scan meets its counters in order, where posting ids, document by document, were a random access
     * a copy), to {@code into}, indexed by posting id.
     */
    private void addByPostingId(byte[][] perWorker, int[] into) {
        Oracle o = oracleBuilt();
        for (int j = 0; j < into.length; j++) {
            int sum = 0;
            for (byte[] counted : perWorker) sum += Byte.toUnsignedInt(counted[j]);
            into[o.postingIdAt(j)] += sum;
        }
    }

    /**
     * Counts peer {@code i}'s stored postings into {@code c} (and, with a live ring, {@code onHolders}, judged by the
     * peer's arcs put into {@code slices}), both indexed by the oracle's by-word table position: its load.
     */
    private long count(int i, Ring live, Oracle.KeyLookup lookup, HeldSlices slices, byte[] c, byte[] onHolders) {
        long[] load = {0};
        HeldSlices arcs = live == null || population.hostile(i) ? null
                : slices.reset(HeldArcs.uncached(ids[i], placement, live));
        ReverseWordIndex rwi = storages[i].rwi();
        Partitions partitions = rwi.partitions();
        // a scan meets a word's keys in a row, its partitions mixed (they follow the URL's hash): whether each of
        // the word's (word, partition) positions is held is worked out once, at the first of its keys
        byte[] lastWord = new byte[HashBytes.PACKED];
        boolean[] anyWord = {false};
        byte[] heldIn = new byte[partitions.count()]; // 0 not known yet, 1 held, 2 not held
        rwi.scanEntries((key, value) -> {
            if ((PostingCodec.flags(value) & Posting.CACHED) != 0) return;
            int at = lookup.position(key);
            if (at >= 0) {
                if (c[at] != SATURATED) c[at]++;
                if (arcs != null) {
                    int w = ReverseWordIndex.WORD_OFFSET;
                    if (!anyWord[0] || !Arrays.equals(key, w, w + HashBytes.PACKED, lastWord, 0, HashBytes.PACKED)) {
                        System.arraycopy(key, w, lastWord, 0, HashBytes.PACKED);
                        anyWord[0] = true;
                        Arrays.fill(heldIn, (byte) 0);
                    }
                    int partition = partitions.partitionOfPosition(HashBytes.position(key, ReverseWordIndex.URL_OFFSET));
                    if (heldIn[partition] == 0) heldIn[partition] = arcs.contains(rwi.position(key)) ? (byte) 1 : (byte) 2;
                    if (heldIn[partition] == 1 && onHolders[at] != SATURATED) onHolders[at]++;
                }
            }
            load[0]++;
        });
        return load[0];
    }

    /** A worker's count of copies that no longer grows (255 as an unsigned byte). */
    private static final byte SATURATED = (byte) 0xff;

    /** Postings by live copies: [0], [1], ..., [R+1 or more] (with settled-query-words, of the postings written). */
    public int[] histogram(int[] copies) {
        int[] h = new int[sc.redundancy() + 2];
        boolean[] kept = keptPostings();
        for (int id = 0; id < copies.length; id++) {
            if (kept == null || kept[id]) h[Math.min(copies[id], h.length - 1)]++;
        }
        return h;
    }

    private boolean[] keptPostings;

    /** Per oracle posting id, whether it was written (null: all were). */
    private boolean[] keptPostings() {
        if (keptWords == null) return null;
        if (keptPostings == null) {
            Oracle o = oracleBuilt();
            boolean[] kept = new boolean[o.totalPostings()];
            int id = 0;
            for (int d = 0; d < o.documents(); d++) {
                for (int w : o.wordsOf(d)) kept[id++] = keptWords[w];
            }
            keptPostings = kept;
        }
        return keptPostings;
    }

    /** The postings the run wrote: every posting of the corpus, or (settled-query-words) those of the asked words. */
    private long writtenPostings() {
        boolean[] kept = keptPostings();
        if (kept == null) return oracleBuilt().totalPostings();
        long n = 0;
        for (boolean k : kept) if (k) n++;
        return n;
    }

    /** A histogram by its buckets' names for summary.json: "0", "1", ..., the last "R+1+" (R+1 or more). */
    private static Map<String, Integer> labelled(int[] histogram) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int i = 0; i < histogram.length; i++) {
            out.put(i == histogram.length - 1 ? i + "+" : String.valueOf(i), histogram[i]);
        }
        return out;
    }

    /** The ring of the peers that are up and admitted now: where the network's placement puts every position. */
    private Ring liveRing() {
        List<PeerId> up = new ArrayList<>();
        for (int i = 0; i < sc.peers(); i++) if (net.isUp(i) && population.admitted(i)) up.add(ids[i]);
        return Ring.of(up, placement.positionsPerPeer());
    }

    private void sample(String phase) {
        int[] onHolders = new int[oracleBuilt().totalPostings()];
        int[] h = histogram(copies(null, onHolders));
        long noHolderCopy = histogram(onHolders)[0];
        int ringMin = Integer.MAX_VALUE;
        int ringMax = 0;
        for (int i = 0; i < sc.peers(); i++) {
            if (!net.isUp(i) || peers[i].view().get() == null) continue;
            int s = peers[i].view().get().ring().size();
            ringMin = Math.min(ringMin, s);
            ringMax = Math.max(ringMax, s);
        }
        List<QueryResult> recent = results.subList(lastSampleQueries, results.size());
        lastSampleQueries = results.size();
        double recall = recent.stream().mapToDouble(QueryResult::recall).average().orElse(Double.NaN);
        double p50 = Percentiles.of(recent.stream().mapToLong(QueryResult::latencyMicros).toArray(), 50) / 1000.0;
        double bpq = recent.stream().mapToLong(QueryResult::bytes).average().orElse(Double.NaN);
        Traffic t = net.traffic();
        long repaired = 0;
        long handed = 0;
        for (int i = 0; i < sc.peers(); i++) {
            if (peers[i] == null) continue;
            repaired += peers[i].stats().repairedPostings.get();
            handed += peers[i].stats().handedOffPostings.get();
        }
        long churn = churnCounts.getOrDefault("crash", 0L) + churnCounts.getOrDefault("leave", 0L)
                + churnCounts.getOrDefault("join", 0L);
        series.add(new Sample(rt.nowMicros(), phase, upCount(), ringMin == Integer.MAX_VALUE ? 0 : ringMin, ringMax, h,
                h[0], noHolderCopy, recall, recent.size(), p50, bpq, t.get("store").messages, t.get("store").bytes,
                t.get("digest").messages, t.get("digest").bytes, t.get("search").messages,
                t.get("membership").messages, repaired, handed, churn));
        peakHeap = Math.max(peakHeap, heapWatch.peak());
    }

    /** Heap in use after a full collection (what the live peers hold, garbage gone). */
    static long heapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Gini coefficient of non-negative values (0 = equal, 1 = one holds all). */
    public static double gini(long[] xs) {
        if (xs.length == 0) return 0;
        long[] s = xs.clone();
        Arrays.sort(s);
        double sum = 0;
        double weighted = 0;
        for (int i = 0; i < s.length; i++) {
            sum += s[i];
            weighted += (i + 1) * (double) s[i];
        }
        if (sum == 0) return 0;
        return 2 * weighted / (s.length * sum) - (s.length + 1.0) / s.length;
    }

    /** Per-peer rows for peers.csv and the ring plot: index, id, position, up, postings held, hostile, admitted. */
    public record PeerRow(int index, String id, long position, boolean up, long postings, boolean hostile,
                          boolean admitted) {}

    private final List<PeerRow> peerRows = new ArrayList<>();

    public List<PeerRow> peerRows() {
        return peerRows;
    }

    private Map<String, Object> summarize(long bootstrapped, long settleTime) {
        long[] load = new long[sc.peers()];
        int[] onHolders = new int[oracleBuilt().totalPostings()];
        int[] copies = copies(load, onHolders);
        int[] h = histogram(copies);
        int[] held = histogram(onHolders);
        List<Long> liveLoads = new ArrayList<>();
        peerRows.clear();
        for (int i = 0; i < sc.peers(); i++) {
            peerRows.add(new PeerRow(i, ids[i].value(), ids[i].position(), net.isUp(i), load[i],
                    population.hostile(i), population.admitted(i)));
            if (net.isUp(i)) liveLoads.add(load[i]);
        }
        long[] live = liveLoads.stream().mapToLong(Long::longValue).toArray();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario", sc.echo());
        Map<String, Object> postings = new LinkedHashMap<>();
        postings.put("total", writtenPostings());
        postings.put("documents", oracleBuilt().documents());
        postings.put("liveCopiesHistogram", labelled(h));
        postings.put("zeroLiveCopies", h[0]);
        Sample indexed = series.get(0);
        postings.put("zeroLiveCopiesAfterIndexing", indexed.zero());
        postings.put("zeroLiveCopiesWorstDuringRun", series.stream().mapToLong(Sample::zero).max().orElse(0));
        postings.put("copiesOnHoldersHistogram", labelled(held));
        postings.put("noCopyOnAHolder", held[0]);
        postings.put("noCopyOnAHolderAfterIndexing", indexed.noHolderCopy());
        postings.put("noCopyOnAHolderWorstDuringRun", series.stream().mapToLong(Sample::noHolderCopy).max().orElse(0));
        m.put("postings", postings);
        Map<String, Object> lm = new LinkedHashMap<>();
        lm.put("livePeers", live.length);
        lm.put("mean", Arrays.stream(live).average().orElse(0));
        lm.put("max", Arrays.stream(live).max().orElse(0));
        lm.put("min", Arrays.stream(live).min().orElse(0));
        lm.put("gini", gini(live));
        m.put("loadPerPeer", lm);
        Map<String, Object> q = new LinkedHashMap<>();
        q.put("issued", sc.queries());
        q.put("finished", results.size());
        q.put("recallAt10", results.stream().mapToDouble(QueryResult::recall).average().orElse(Double.NaN));
        q.put("recallAt10TrueN", results.stream().mapToDouble(QueryResult::recallTrueN).average().orElse(Double.NaN));
        q.put("perfectRecallShare", results.stream().filter(r -> r.recall() >= 0.999).count() / (double) Math.max(1, results.size()));
        Map<String, Double> byWords = new LinkedHashMap<>();
        for (int w = 1; w <= 4; w++) {
            int ww = w;
            byWords.put(w + (w == 4 ? "+" : ""), results.stream().filter(r -> ww == 4 ? r.words() >= 4 : r.words() == ww)
                    .mapToDouble(QueryResult::recall).average().orElse(Double.NaN));
        }
        q.put("recallAt10ByWords", byWords);
        long[] lat = results.stream().mapToLong(QueryResult::latencyMicros).toArray();
        q.put("latencyMillisP50", Percentiles.of(lat, 50) / 1000.0);
        q.put("latencyMillisP95", Percentiles.of(lat, 95) / 1000.0);
        q.put("latencyMillisP99", Percentiles.of(lat, 99) / 1000.0);
        long[] first = results.stream().mapToLong(QueryResult::firstResultMicros).filter(x -> x >= 0).toArray();
        q.put("firstResultMillisP50", Percentiles.of(first, 50) / 1000.0);
        q.put("firstResultMillisP95", Percentiles.of(first, 95) / 1000.0);
        q.put("emptyShare", results.stream().filter(r -> r.results() == 0).count() / (double) Math.max(1, results.size()));
        q.put("messagesPerQuery", results.stream().mapToLong(QueryResult::messages).average().orElse(0));
        q.put("bytesPerQuery", results.stream().mapToLong(QueryResult::bytes).average().orElse(0));
        q.put("incompleteShare", results.stream().filter(r -> !r.complete()).count() / (double) Math.max(1, results.size()));
        m.put("queries", q);
        m.put("hostile", hostileFigures());
        Map<String, Object> traffic = new LinkedHashMap<>();
        net.traffic().all().forEach((cat, c) -> {
            // in a fixed order (a Map.of iterates in an order drawn per JVM: summary.json must replay byte for byte)
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("messages", c.messages);
            one.put("bytes", c.bytes);
            one.put("dropped", c.dropped);
            traffic.put(cat, one);
        });
        traffic.put("totalMessages", net.traffic().totalMessages());
        traffic.put("totalBytes", net.traffic().totalBytes());
        traffic.put("searchMessagesPerQuery", net.traffic().get("search").messages / (double) Math.max(1, results.size()));
        traffic.put("searchBytesPerQuery", net.traffic().get("search").bytes / (double) Math.max(1, results.size()));
        traffic.put("searchByKind", searchByKind());
        m.put("traffic", traffic);
        long replicated = 0;
        long repaired = 0;
        long handed = 0;
        long deleted = 0;
        long rounds = 0;
        long retries = 0;
        long refused = 0;
        long busy = 0;
        long heldNotSent = 0;
        for (int i = 0; i < sc.peers(); i++) {
            if (peers[i] == null) continue;
            var s = peers[i].stats();
            replicated += s.replicatedPostings.get();
            repaired += s.repairedPostings.get();
            heldNotSent += s.repairHeldSkipped.get();
            handed += s.handedOffPostings.get();
            deleted += s.deletedAfterHandoff.get();
            rounds += s.repairRounds.get();
            retries += s.retries.get();
            refused += s.refusedMessages.get();
            busy += s.busyReplies.get();
        }
        Map<String, Object> repair = new LinkedHashMap<>();
        repair.put("note", "counters of the peers live at the end (a restarted peer's counters start at 0)");
        repair.put("replicatedPostings", replicated);
        repair.put("repairedPostings", repaired);
        repair.put("heldNotSent", heldNotSent);
        repair.put("handedOffPostings", handed);
        repair.put("deletedAfterHandoff", deleted);
        repair.put("rebalanceRounds", rounds);
        repair.put("retries", retries);
        repair.put("refusedBatches", refused);
        repair.put("busyReplies", busy);
        repair.put("digestMessages", net.traffic().get("digest").messages);
        repair.put("digestBytes", net.traffic().get("digest").bytes);
        long storeBytesIndexed = indexed.storeBytes();
        repair.put("storeBytesUntilIndexed", storeBytesIndexed);
        repair.put("storeBytesAfterIndexed", net.traffic().get("store").bytes - storeBytesIndexed);
        m.put("replication", repair);
        Map<String, Object> churn = new LinkedHashMap<>(churnCounts);
        churn.put("livePeersAtEnd", upCount());
        m.put("churn", churn);
        Map<String, Object> time = new LinkedHashMap<>();
        time.put("bootstrapSimSeconds", bootstrapped / 1e6);
        time.put("settleSimSeconds", settleTime / 1e6);
        time.put("simulatedSeconds", rt.nowMicros() / 1e6);
        time.put("wallSeconds", (System.nanoTime() - wallStart) / 1e9);
        time.put("wallSecondsToBootstrapped", bootstrapWall);
        time.put("wallSecondsToSettled", settledWall);
        time.put("wallSecondsCounting", countingNanos / 1e9);
        time.put("events", rt.events().executed());
        time.put("tasks", rt.tasksRun());
        time.put("foreignTasks", rt.foreignTasks());
        time.put("deliveredMessages", net.delivered());
        time.put("networkFailures", net.failures());
        m.put("time", time);
        peakHeap = Math.max(peakHeap, heapWatch.peak());
        Map<String, Object> mem = new LinkedHashMap<>();
        mem.put("peakHeapBytes", peakHeap);
        mem.put("peakHeapMiB", peakHeap / (1024.0 * 1024));
        mem.put("heapPerPeerKiB", peakHeap / 1024.0 / sc.peers());
        mem.put("networkHandles", net.handleCount());
        if (heapAfterGc >= 0) {
            mem.put("heapAfterGcBytes", heapAfterGc);
            mem.put("heapAfterGcMiB", heapAfterGc / (1024.0 * 1024));
        }
        m.put("memory", mem);
        return m;
    }

    /**
     * Who got in and what it did: the population's figures (admitted, refused, ring share, targets captured), the
     * operator's counters, and the share of fake results on the pages served (a result that is no document of the
     * corpus, or a document without every query word, per the oracle).
     */
    /**
     * The searches' messages and bytes by kind of exchange (count, filter, top, complete, full, metadata, confirm and
     * their replies), as the querying peers tallied them, in name order so that the file replays byte for byte.
     */
    private Map<String, Object> searchByKind() {
        Map<String, long[]> sum = new java.util.TreeMap<>();
        for (var p : peers) {
            if (p == null) continue;
            p.stats().searchTraffic.forEach((kind, t) -> sum.merge(kind, t.clone(),
                    (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]}));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        sum.forEach((kind, t) -> {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("messages", t[0]);
            one.put("bytes", t[1]);
            out.put(kind, one);
        });
        return out;
    }

    private Map<String, Object> hostileFigures() {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("share", sc.hostile().share());
        h.put("kind", sc.hostile().kind().toString());
        h.putAll(population.figures(placement));
        if (open != null) h.put("openMembership", open.figures(net::isUp));
        long served = results.stream().mapToLong(QueryResult::results).sum();
        long fake = results.stream().mapToLong(QueryResult::fakeResults).sum();
        h.put("resultsServed", served);
        h.put("fakeResultsServed", fake);
        h.put("fakeResultShare", served == 0 ? 0.0 : fake / (double) served);
        h.put("queriesWithFakeShare", results.stream().filter(r -> r.fakeResults() > 0).count()
                / (double) Math.max(1, results.size()));
        h.put("recallAt10", results.stream().mapToDouble(QueryResult::recall).average().orElse(Double.NaN));
        if (operator != null) h.put("operator", operator.figures());
        return h;
    }

    @Override
    public void close() {
        heapWatch.close();
        try {
            oracleLast.join();
        } catch (RuntimeException e) {
            // a failed task has been reported where it was waited for; the oracle closes all the same
        }
        oracleThread.shutdown();
        oracle.close();
        system.terminate();
        rt.runUntil(() -> system.getWhenTerminated().toCompletableFuture().isDone(), 1_000_000, 120_000_000);
        rt.unregister();
    }
}
