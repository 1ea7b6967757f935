package org.peerdex.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A peer that comes back after the cluster downed it. In a network partition the split-brain resolver
 * (keep-majority) downs the smaller side, and a downed Pekko member can never rejoin with the same ActorSystem:
 * so when a {@link PeerNode} terminates because it was downed ({@code peerdex.cluster.rejoin-after-down}), it is
 * started again after {@code peerdex.cluster.rejoin-delay} on the same data directory and the same addresses,
 * with every member it knew as a seed (never itself: it must not found a cluster of its own). It keeps trying
 * to join until the partition heals; meanwhile it serves and indexes alone, and repair brings its documents to
 * their holders afterwards. Any other stop (SIGTERM, {@link #close()}) ends it.
 */
public final class RejoiningPeer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RejoiningPeer.class);
    private final Config config;
    private final boolean rejoin;
    private final Duration delay;
    private final CompletableFuture<Done> stopped = new CompletableFuture<>();
    private final AtomicInteger restarts = new AtomicInteger();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "peerdex-rejoin");
        t.setDaemon(true);
        return t;
    });
    private volatile PeerNode current;
    private volatile boolean closed;

    private RejoiningPeer(Config config) {
        this.config = config;
        Config c = config.getConfig("peerdex.cluster");
        this.rejoin = !c.hasPath("rejoin-after-down") || c.getBoolean("rejoin-after-down");
        this.delay = c.hasPath("rejoin-delay") ? c.getDuration("rejoin-delay") : Duration.ofSeconds(5);
    }

    /** Starts the peer (throws {@link StartupException} as {@link PeerNode#start} does). */
    public static RejoiningPeer start(Config config) {
        RejoiningPeer p = new RejoiningPeer(config);
        p.watch(PeerNode.start(config));
        return p;
    }

    /** The running incarnation (a new one after each rejoin). */
    public PeerNode node() {
        return current;
    }

    /** How often the peer was downed and started again. */
    public int restarts() {
        return restarts.get();
    }

    /** Completes when the peer stopped for good (not when it was downed and comes back). */
    public CompletionStage<Done> whenStopped() {
        return stopped;
    }

    private void watch(PeerNode node) {
        current = node;
        ActorSystem<?> system = node.context().system();
        Set<String> members = new LinkedHashSet<>();
        // every member seen up while it ran: the seeds to come back to (a downed peer's own state is empty)
        // only a cluster member can be downed; an open-network peer has no cluster to watch
        if (node.openNetwork().isEmpty()) {
            system.systemActorOf(memberWatcher(members), "rejoin-member-watcher", Props.empty());
        }
        node.whenTerminated().thenRun(() -> {
            var reason = CoordinatedShutdown.get(system).getShutdownReason();
            boolean downed = reason.isPresent() && reason.get().equals(CoordinatedShutdown.clusterDowningReason());
            if (closed || !rejoin || !downed) {
                stopped.complete(Done.getInstance());
                timer.shutdown();
                return;
            }
            List<String> seeds;
            synchronized (members) {
                seeds = new ArrayList<>(members);
            }
            log.warn("peer {} was downed by the cluster (a partition or an unreachable spell); starting it again "
                    + "in {} ms with seeds {}", node.peerId(), delay.toMillis(), seeds);
            schedule(node.clusterAddress(), node.httpPort(), seeds, delay);
        });
    }

    private static Behavior<ClusterEvent.MemberEvent> memberWatcher(Set<String> members) {
        return Behaviors.setup(ctx -> {
            Cluster cluster = Cluster.get(ctx.getSystem());
            cluster.subscriptions().tell(Subscribe.create(ctx.getSelf(), ClusterEvent.MemberEvent.class));
            Address self = cluster.selfMember().address();
            return Behaviors.receiveMessage(event -> {
                // weakly up counts: while an unreachable member blocks convergence, joiners never become Up
                if (!(event instanceof ClusterEvent.MemberUp) && !(event instanceof ClusterEvent.MemberWeaklyUp)) {
                    return Behaviors.same();
                }
                Address a = event.member().address();
                if (!a.equals(self) && a.host().isDefined() && a.port().isDefined()) {
                    synchronized (members) {
                        members.add(a.host().get() + ":" + a.port().get());
                    }
                }
                return Behaviors.same();
            });
        });
    }

    private void schedule(Address cluster, int httpPort, List<String> remembered, Duration after) {
        timer.schedule(() -> restart(cluster, httpPort, remembered), after.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void restart(Address cluster, int httpPort, List<String> remembered) {
        if (closed) {
            stopped.complete(Done.getInstance());
            return;
        }
        String self = cluster.host().get() + ":" + cluster.port().get();
        Set<String> seeds = new LinkedHashSet<>(remembered);
        seeds.addAll(config.getStringList("peerdex.cluster.seeds"));
        seeds.remove(self);
        Config again = config
                .withValue("peerdex.cluster.port", ConfigValueFactory.fromAnyRef((int) cluster.port().get()))
                .withValue("peerdex.http.port", ConfigValueFactory.fromAnyRef(httpPort))
                .withValue("peerdex.cluster.seeds", ConfigValueFactory.fromIterable(List.copyOf(seeds)));
        try {
            PeerNode node = PeerNode.start(again);
            restarts.incrementAndGet();
            watch(node);
            log.info("peer {} started again, joining through {}", node.peerId(), seeds);
        } catch (StartupException e) {
            log.warn("could not start the peer again ({}); retrying in {} ms", e.getMessage(), delay.toMillis());
            schedule(cluster, httpPort, remembered, delay);
        }
    }

    /** Stops the peer for good. */
    @Override
    public void close() {
        closed = true;
        PeerNode node = current;
        if (node != null) node.close();
        timer.shutdownNow();
        stopped.complete(Done.getInstance());
    }
}
