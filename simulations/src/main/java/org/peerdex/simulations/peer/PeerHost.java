package org.peerdex.simulations.peer;

import java.util.List;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.DhtStats;
import org.peerdex.actors.dht.LocalOnly;
import org.peerdex.actors.dht.replication.Replicator;
import org.peerdex.actors.dht.ring.LatestView;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerInfo;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.actors.dht.search.DhtCandidateSource;
import org.peerdex.actors.dht.search.RemoteSearch;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.actors.search.QueryCoordinator;
import org.peerdex.actors.search.SearchContext;
import org.peerdex.actors.search.SearchRequest;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.storage.PeerStorage;

/**
 * One virtual peer: the parent of its real DHT actors (ShardOwner, PeerDirectory, Replicator, a LatestView
 * subscriber), wired as {@link DhtPeer#spawn} wires them, except that the peer table is not persisted (the
 * directory's 5-second persistence of N peers would cost N^2 writes per tick across the simulation). Starts a
 * real {@link QueryCoordinator} per query over the peer's own index and the DHT ({@link DhtCandidateSource}),
 * with the search context a node's SearchBackend builds ({@link PeerSearch}); a bare {@link RemoteSearch}
 * lookup is there too. Stopping the host stops the peer (a crash); its storage survives.
 */
public final class PeerHost {
    private PeerHost() {}

    public sealed interface Command {}

    /** Runs one global lookup from this peer; {@code done} gets its end (on the simulation's driver thread). */
    public record Search(RemoteSearch.Request request, Consumer<RemoteSearch.Finished> done) implements Command, LocalOnly {}

    /**
     * Runs one query as a node's SearchService does (QueryCoordinator, Ranking, local index and DHT sources);
     * {@code events} gets every event up to Done (on the simulation's driver thread).
     */
    public record Query(SearchRequest request, Consumer<QueryCoordinator.Event> events) implements Command, LocalOnly {}

    /** How the network names this peer's own actors to the others. */
    public interface Wire {
        <T> ActorRef<T> handle(ActorRef<T> own);
    }

    /** Makes the peer's shard owner: the real one, or a hostile peer's stand-in. */
    @FunctionalInterface
    public interface OwnerFactory {
        Behavior<ShardOwner.Command> create(PeerId self, PeerStorage storage, Placement placement,
                                            DhtSettings settings, DhtStats stats);

        OwnerFactory REAL = ShardOwner::create;
    }

    /** Spawns more actors of the peer under its host (they stop with it): the open membership, in one bootstrap. */
    @FunctionalInterface
    public interface Children {
        void spawn(ActorContext<Command> ctx, DhtPeer peer);

        Children NONE = (ctx, peer) -> {};
    }

    /** The peer stops (crash or leave). */
    public enum Stop implements Command, LocalOnly { INSTANCE }

    /**
     * @param wire how the other peers reach this peer's actors: its info (in every view) names them by the
     *             handles of {@code VirtualNetwork}, the same for every peer, so the views share one info object
     */
    public static Behavior<Command> create(PeerId self, String name, PeerStorage storage, Placement placement,
                                           DhtSettings settings, Wire wire, Consumer<DhtPeer> started) {
        return create(self, name, storage, placement, settings, wire, OwnerFactory.REAL, started);
    }

    /** A peer whose shard owner {@code owners} makes (a hostile peer's, in a scenario with hostile peers). */
    public static Behavior<Command> create(PeerId self, String name, PeerStorage storage, Placement placement,
                                           DhtSettings settings, Wire wire, OwnerFactory owners,
                                           Consumer<DhtPeer> started) {
        return create(self, name, storage, placement, settings, wire, owners, Children.NONE, started);
    }

    /** A peer with more actors of its own ({@code children}, spawned once its DHT actors run). */
    public static Behavior<Command> create(PeerId self, String name, PeerStorage storage, Placement placement,
                                           DhtSettings settings, Wire wire, OwnerFactory owners, Children children,
                                           Consumer<DhtPeer> started) {
        return Behaviors.setup(ctx -> {
            DhtStats stats = new DhtStats();
            // named as a real peer's (DhtPeer.OWNER_NAME: an ask's reply-to is named after the actor asked)
            ActorRef<ShardOwner.Command> owner = ctx.spawn(owners.create(self, storage, placement, settings, stats),
                    DhtPeer.OWNER_NAME);
            ActorRef<PeerDirectory.Command> directory = ctx.spawn(PeerDirectory.create(
                    ref -> new PeerInfo(self, name, settings.acceptRemoteIndex(), "", wire.handle(owner), wire.handle(ref)),
                    null, placement.positionsPerPeer()), DhtPeer.DIRECTORY_NAME);
            ActorRef<Replicator.Command> replicator = ctx.spawn(
                    Replicator.create(self, storage, placement, settings, stats), DhtPeer.REPLICATOR_NAME);
            owner.tell(new ShardOwner.Attach(directory));
            replicator.tell(new Replicator.Attach(directory));
            LatestView view = new LatestView();
            directory.tell(new PeerDirectory.SubscribeView(ctx.spawn(view.subscriber(), DhtPeer.VIEW_NAME)));
            DhtPeer peer = new DhtPeer(self, placement, settings, stats, storage, directory, owner, replicator, view);
            started.accept(peer);
            children.spawn(ctx, peer);
            SearchContext search = PeerSearch.context(ctx.getSystem(), storage,
                    List.of(new DhtCandidateSource(ctx.getSystem(), peer)));
            return Behaviors.receive(Command.class)
                    .onMessage(Search.class, m -> {
                        PeerView v = view.get();
                        ActorRef<RemoteSearch.Event> collector = ctx.spawnAnonymous(collector(m.done()));
                        ctx.spawnAnonymous(RemoteSearch.create(m.request(), v, placement, settings, null, collector));
                        return Behaviors.same();
                    })
                    .onMessage(Query.class, m -> {
                        ActorRef<QueryCoordinator.Event> subscriber = ctx.spawnAnonymous(subscriber(m.events()));
                        ctx.spawnAnonymous(QueryCoordinator.create(m.request(), search, subscriber));
                        return Behaviors.same();
                    })
                    .onMessage(Stop.class, m -> Behaviors.stopped())
                    .build();
        });
    }

    private static Behavior<QueryCoordinator.Event> subscriber(Consumer<QueryCoordinator.Event> events) {
        return Behaviors.receiveMessage(e -> {
            events.accept(e);
            return e instanceof QueryCoordinator.Done ? Behaviors.stopped() : Behaviors.same();
        });
    }

    private static Behavior<RemoteSearch.Event> collector(Consumer<RemoteSearch.Finished> done) {
        return Behaviors.receiveMessage(e -> {
            if (e instanceof RemoteSearch.Finished f) {
                done.accept(f);
                return Behaviors.stopped();
            }
            return Behaviors.same();
        });
    }
}
