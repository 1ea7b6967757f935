package org.peerdex.actors.dht;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.peerdex.actors.dht.replication.Replicator;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.actors.dht.search.RemoteSearch;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.kv.LevelDbStore;
import org.peerdex.storage.rwi.Posting;

/** Real peers for tests: one cluster ActorSystem, LevelDB directory and DhtPeer each, on 127.0.0.1. */
public final class TestNetwork implements AutoCloseable {
    /** the node's defaults: 16 partitions, R = 3, 16 positions per peer */
    public static final Placement PLACEMENT = new Placement(new Partitions(4), 3, Placement.DEFAULT_POSITIONS_PER_PEER);
    private final Path root;
    public final List<Peer> peers = new ArrayList<>();
    private final Random random = new Random(42);

    /** One running peer. */
    public record Peer(String name, ActorSystem<SpawnProtocol.Command> system, PeerStorage storage, DhtPeer dht) {
        public PeerId id() {
            return dht.self();
        }
    }

    public TestNetwork() throws IOException {
        root = Files.createTempDirectory("peerdex-dht-test");
    }

    public static Config config(boolean accept) {
        return ConfigFactory.parseString(String.join("\n",
                "pekko.actor.provider = cluster",
                "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"",
                "pekko.remote.artery.canonical.port = 0",
                "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on",
                "pekko.cluster.downing-provider-class = \"org.apache.pekko.cluster.sbr.SplitBrainResolverProvider\"",
                "pekko.cluster.split-brain-resolver.stable-after = 3s",
                "pekko.cluster.failure-detector.heartbeat-interval = 300ms",
                "pekko.cluster.failure-detector.acceptable-heartbeat-pause = 1500ms",
                "pekko.cluster.gossip-interval = 200ms",
                "pekko.cluster.distributed-data.gossip-interval = 200ms",
                "pekko.cluster.typed.receptionist.distributed-data.gossip-interval = 200ms",
                "pekko.loglevel = WARNING",
                "pekko.coordinated-shutdown.exit-jvm = off",
                // terminate() then looks like a crash to the others: no graceful leave
                "pekko.coordinated-shutdown.run-by-actor-system-terminate = off",
                "peerdex.dht.accept-remote-index = " + accept,
                "peerdex.dht.rebalance-delay = 300ms",
                // small, so that hand-offs in these tests take several rounds
                "peerdex.dht.max-handoff-postings = 150",
                "peerdex.dht.lookup-timeout = 400ms",
                "peerdex.dht.ack-timeout = 2s",
                "peerdex.dht.retry-min-backoff = 100ms",
                "peerdex.dht.retry-max-backoff = 1s"))
                .withFallback(ConfigFactory.load());
    }

    /** Starts a peer and joins it to the first one (the first joins itself). */
    public Peer start(String name, boolean accept) {
        return start(name, accept, PeerId.random(random), ConfigFactory.empty());
    }

    /**
     * Starts a peer with this id over the data directory {@code name} (a restart when it exists), with extra
     * config over the test defaults, and joins it to the first running peer.
     */
    public Peer start(String name, boolean accept, PeerId id, Config extra) {
        Config cfg = extra.withFallback(config(accept));
        ActorSystem<SpawnProtocol.Command> system = ActorSystem.create(SpawnProtocol.create(), "peerdex-test", cfg);
        Cluster cluster = Cluster.get(system);
        cluster.manager().tell(Join.create(peers.isEmpty() ? cluster.selfMember().address()
                : Cluster.get(peers.get(0).system()).selfMember().address()));
        PeerStorage storage = new PeerStorage(LevelDbStore.open(root.resolve(name), 4L << 20), PLACEMENT.partitions(),
                1L << 20, false);
        DhtPeer dht = DhtPeer.spawn(DhtPeer.via(system), id, storage, PLACEMENT, DhtSettings.from(cfg),
                cluster.selfMember().address().toString(), "");
        Peer p = new Peer(name, system, storage, dht);
        peers.add(p);
        return p;
    }

    /** Waits until every peer's directory sees every live peer and the same ring. */
    public void awaitConverged(Duration timeout) {
        await(timeout, "ring convergence", () -> {
            List<PeerId> expected = peers.stream().filter(p -> p.dht().settings().acceptRemoteIndex())
                    .map(Peer::id).sorted().toList();
            for (Peer p : peers) {
                if (Cluster.get(p.system()).selfMember().status() != MemberStatus.up()) return false;
                PeerView v = view(p);
                if (v == null || v.peers().size() != peers.size()) return false;
                if (!v.ring().members().stream().sorted().toList().equals(expected)) return false;
            }
            return true;
        }, () -> {
            StringBuilder b = new StringBuilder();
            for (Peer p : peers) {
                PeerView v = view(p);
                b.append("\n ").append(p.name()).append(' ').append(Cluster.get(p.system()).selfMember().status())
                        .append(" peers=").append(v == null ? "?" : v.peers().keySet()).append(" ring=")
                        .append(v == null ? "?" : v.ring());
            }
            return b.toString();
        });
    }

    public static PeerView view(Peer p) {
        try {
            return org.apache.pekko.actor.typed.javadsl.AskPattern.<PeerDirectory.Command, PeerView>ask(
                    p.dht().directory(), PeerDirectory.GetView::new, Duration.ofSeconds(2), p.system().scheduler())
                    .toCompletableFuture().get(3, TimeUnit.SECONDS);
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * Whether every one of {@code postings} is stored at each of its R holders in {@code from}'s view of the ring
     * (replication has placed them).
     */
    public boolean placed(Peer from, Iterable<Posting> postings) {
        Ring ring = view(from).ring();
        for (Posting p : postings) {
            for (PeerId h : PLACEMENT.holders(p.word(), p.url(), ring)) {
                Peer peer = peers.stream().filter(x -> x.id().equals(h)).findFirst().orElseThrow();
                if (peer.storage().rwi().get(p.word(), p.url()).isEmpty()) return false;
            }
        }
        return true;
    }

    public static Replicator.Progress progress(Peer p) {
        try {
            return org.apache.pekko.actor.typed.javadsl.AskPattern.<Replicator.Command, Replicator.Progress>ask(
                    p.dht().replicator(), Replicator.GetProgress::new, Duration.ofSeconds(2), p.system().scheduler())
                    .toCompletableFuture().get(3, TimeUnit.SECONDS);
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * Runs one {@link RemoteSearch} from {@code from} over {@code view} and the rings before it, hands each event to
     * {@code seen} as it comes (each must come within {@code wait}), and returns the search's end.
     */
    public static RemoteSearch.Finished search(Peer from, RemoteSearch.Request request, PeerView view,
                                               List<Ring> previous, DhtSettings settings, Duration wait,
                                               Consumer<RemoteSearch.Event> seen) {
        TestProbe<RemoteSearch.Event> probe = TestProbe.create(from.system());
        DhtPeer.via(from.system()).spawn(RemoteSearch.create(request, view, previous, PLACEMENT, settings, null,
                probe.getRef()), "search-" + System.nanoTime());
        while (true) {
            RemoteSearch.Event e = probe.receiveMessage(wait);
            seen.accept(e);
            if (e instanceof RemoteSearch.Finished f) return f;
        }
    }

    /** The URLs of a search's first {@code n} candidates, best first. */
    public static List<org.peerdex.protocol.hash.UrlHash> first(RemoteSearch.Finished f, int n) {
        return f.candidates().stream().limit(n).map(RemoteSearch.RemoteCandidate::url).toList();
    }

    /** A search from {@code from} over its current view, each event within 10 s. */
    public static RemoteSearch.Finished search(Peer from, RemoteSearch.Request request, DhtSettings settings) {
        return search(from, request, view(from), List.of(), settings, Duration.ofSeconds(10), e -> { });
    }

    public static void await(Duration timeout, String what, BooleanSupplier condition) {
        await(timeout, what, condition, () -> "");
    }

    public static void await(Duration timeout, String what, BooleanSupplier condition,
                      java.util.function.Supplier<String> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) return;
            try {
                TimeUnit.MILLISECONDS.sleep(100); // polling interval of a deadline-bounded wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("timed out waiting for " + what + state.get());
    }

    /** Deletes a stopped peer's data directory (a disk lost with the peer). */
    public void wipe(String name) throws IOException {
        deleteTree(root.resolve(name));
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    /** Stops a peer hard: its ActorSystem terminates without leaving the cluster (as a crash would look). */
    public void kill(Peer p) {
        p.system().terminate();
        try {
            p.system().getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("peer did not stop", e);
        }
        p.storage().close();
        peers.remove(p);
    }

    @Override
    public void close() throws IOException {
        for (Peer p : new ArrayList<>(peers)) {
            p.system().terminate();
        }
        for (Peer p : new ArrayList<>(peers)) {
            try {
                p.system().getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // best effort
            }
            p.storage().close();
        }
        deleteTree(root);
    }
}
