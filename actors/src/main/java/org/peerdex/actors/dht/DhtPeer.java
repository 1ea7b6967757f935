package org.peerdex.actors.dht;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.peerdex.actors.dht.replication.ReplicationHook;
import org.peerdex.actors.dht.replication.Replicator;
import org.peerdex.actors.dht.ring.LatestView;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerInfo;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * The DHT side of one peer: its PeerDirectory, ShardOwner and Replicator, wired together, plus what a query or
 * a status page needs from them. {@link #spawn} starts them with any {@link Spawner} (a node's SpawnProtocol
 * guardian, or a simulation's parent actor context), so the transport stays pluggable.
 */
public record DhtPeer(PeerId self, Placement placement, DhtSettings settings, DhtStats stats, PeerStorage storage,
                      ActorRef<PeerDirectory.Command> directory, ActorRef<ShardOwner.Command> shardOwner,
                      ActorRef<Replicator.Command> replicator, LatestView view) {

    /** Starts actors somewhere: a guardian, an actor context, a test kit. */
    @FunctionalInterface
    public interface Spawner {
        <T> ActorRef<T> spawn(Behavior<T> behavior, String name);
    }

    /** A spawner over a SpawnProtocol guardian (waits up to 10 s for each actor). */
    public static Spawner via(ActorSystem<SpawnProtocol.Command> system) {
        return new Spawner() {
            @Override
            public <T> ActorRef<T> spawn(Behavior<T> behavior, String name) {
                CompletionStage<ActorRef<T>> r = AskPattern.ask(system,
                        replyTo -> new SpawnProtocol.Spawn<>(behavior, name, Props.empty(), replyTo),
                        Duration.ofSeconds(10), system.scheduler());
                return r.toCompletableFuture().join();
            }
        };
    }

    /**
     * The name of a peer's shard owner. A request asked of it carries a reply-to named after it ("/temp/" + this name
     * + a counter), so the name is part of every request's bytes: it is short, and the same for every peer (one DHT
     * peer per actor system; the simulator spawns each virtual peer's actors under a host actor of its own), so the
     * simulator counts the bytes a real peer sends. An earlier name, "shard-owner-" + the peer's id, cost 19 bytes
     * more a request.
     */
    public static final String OWNER_NAME = "owner";

    /** The name of a peer's directory (in every ref to it that a peer record carries). */
    public static final String DIRECTORY_NAME = "directory";

    /** The name of a peer's replicator. */
    public static final String REPLICATOR_NAME = "replicator";

    /** The name of a peer's view subscriber. */
    public static final String VIEW_NAME = "view";

    /**
     * Spawns the three actors and introduces them to each other.
     *
     * @param address     this peer's cluster address (shown in /api/peers)
     * @param httpAddress host:port of its HTTP API or ""
     */
    public static DhtPeer spawn(Spawner spawner, PeerId self, PeerStorage storage, Placement placement,
                                DhtSettings settings, String address, String httpAddress) {
        DhtStats stats = new DhtStats();
        ActorRef<ShardOwner.Command> owner = spawner.spawn(
                ShardOwner.create(self, storage, placement, settings, stats), OWNER_NAME);
        ActorRef<PeerDirectory.Command> directory = spawner.spawn(PeerDirectory.create(
                ref -> new PeerInfo(self, address, settings.acceptRemoteIndex(), httpAddress, owner, ref),
                storage.store(), placement.positionsPerPeer()), DIRECTORY_NAME);
        ActorRef<Replicator.Command> replicator = spawner.spawn(
                Replicator.create(self, storage, placement, settings, stats), REPLICATOR_NAME);
        owner.tell(new ShardOwner.Attach(directory));
        replicator.tell(new Replicator.Attach(directory));
        LatestView view = new LatestView();
        directory.tell(new PeerDirectory.SubscribeView(spawner.spawn(view.subscriber(), VIEW_NAME)));
        return new DhtPeer(self, placement, settings, stats, storage, directory, owner, replicator, view);
    }

    /**
     * For writers that do not hand over their postings: a rebalance offers everything this peer crawled to its
     * holders (range digests, then the differing ranges).
     */
    public void indexedLocally() {
        replicator.tell(Replicator.RebalanceNow.INSTANCE);
    }

    /** The indexer's hook: new postings to the Replicator, and its back-pressure. */
    public ReplicationHook replicationHook() {
        return new ReplicationHook() {
            @Override
            public void indexed(List<Posting> postings,
                                List<UrlMetadata> metadata) {
                replicate(postings, metadata);
            }

            @Override
            public String holdBack() {
                return stats.backlog();
            }
        };
    }

    /** Call after a durable flush of these postings and metadata. */
    public void replicate(List<Posting> postings,
                          List<UrlMetadata> metadata) {
        stats.replicationsPlanning.incrementAndGet(); // counted down once its batches are in the outbox
        replicator.tell(new Replicator.Replicate(postings, metadata));
    }
}
