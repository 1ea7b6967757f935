package org.peerdex.actors.dht.ring;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.peerdex.actors.Dispatchers;
import org.peerdex.actors.dht.DhtEnvironment;
import org.peerdex.actors.dht.LocalOnly;
import org.peerdex.protocol.WireMessage;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.meta.Cbor;

/**
 * The ring as this peer sees it. Peers find each other's directories through the Receptionist and exchange a
 * {@link Hello} carrying their {@link PeerInfo} (id, role, shard owner); cluster reachability events take
 * unreachable members out of the ring at once (they come back when reachable again). Every change is published
 * to subscribers as a new {@link PeerView}, at most once per {@code peerdex.dht.view-publish-interval} (a burst of
 * joins, as at bootstrap, makes one new view instead of one per peer); the peer table is persisted in
 * {@code Keyspace.PEERS}.
 * Without a cluster (virtual peers in one system) directories are introduced to each other with {@link Introduce}.
 */
public final class PeerDirectory extends AbstractBehavior<PeerDirectory.Command> {
    public static final ServiceKey<Command> KEY = ServiceKey.create(Command.class, "peerdex-peer-directory");

    public sealed interface Command {}

    /** Wire: "here I am"; answered with a {@link HelloReply}. */
    public record Hello(PeerInfo info) implements Command, WireMessage {}

    /** Wire: the answer to a Hello. */
    public record HelloReply(PeerInfo info) implements Command, WireMessage {}

    /** Local: the current view. */
    public record GetView(ActorRef<PeerView> replyTo) implements Command, LocalOnly {}

    /** Local: the current view now and every new one after. */
    public record SubscribeView(ActorRef<PeerView> subscriber) implements Command, LocalOnly {}

    /** Local: the peer table (live and remembered peers). */
    public record GetPeerTable(ActorRef<List<PeerRecord>> replyTo) implements Command, LocalOnly {}

    /** Local, for virtual peers without a cluster: make this directory greet another one. */
    public record Introduce(ActorRef<Command> other) implements Command, LocalOnly {}

    /**
     * Local, for virtual peers: the membership service names these peers at once, as their Hellos would (a
     * simulation's bootstrap without N^2 greetings); one view is published for the whole batch.
     */
    public record Learn(List<PeerInfo> infos, Map<PeerId, PeerInfo> byId) implements Command, LocalOnly {
        /** One batch for every directory: its map by id is made once and shared (see {@link SharedViews}). */
        public Learn(List<PeerInfo> infos) {
            this(List.copyOf(infos), byId(infos));
        }

        private static Map<PeerId, PeerInfo> byId(List<PeerInfo> infos) {
            Map<PeerId, PeerInfo> m = new HashMap<>();
            for (PeerInfo i : infos) m.put(i.peerId(), i);
            return SharedViews.peers(m);
        }
    }

    /**
     * Local: this peer holds ranges or not. A peer that others cannot reach (behind NAT) becomes passive: it still
     * searches and sends its postings to their holders, but its own view no longer places ranges on it.
     */
    public record SetAcceptsIndex(boolean acceptsIndex) implements Command, LocalOnly {}

    /** Local, for virtual peers: a peer is gone (crashed or left). */
    public record Forget(PeerId peer) implements Command, LocalOnly {}

    /**
     * Local, for virtual peers: the membership service's whole membership after a round of changes, as a converged
     * cluster would present it; the table becomes {@code byId} (shared with every directory that got it) and the
     * peers in {@code left} are forgotten. One message per directory and round instead of a Forget or a Hello from
     * every peer for every change: at 100,000 virtual peers each change would otherwise be 100,000 messages and as
     * many copies of a 100,000-peer table.
     */
    public record Membership(Map<PeerId, PeerInfo> byId, List<PeerInfo> left) implements Command, LocalOnly {
        /** One round for every directory: its map is made once and shared (see {@link SharedViews}). */
        public static Membership of(List<PeerInfo> members, List<PeerInfo> left) {
            Map<PeerId, PeerInfo> m = new HashMap<>();
            for (PeerInfo i : members) m.put(i.peerId(), i);
            return new Membership(SharedViews.peers(m), List.copyOf(left));
        }
    }

    private record ListingChanged(Receptionist.Listing listing) implements Command, LocalOnly {}

    private record Reachability(ClusterEvent.ReachabilityEvent event) implements Command, LocalOnly {}

    private record MemberGone(ClusterEvent.MemberRemoved event) implements Command, LocalOnly {}

    private enum Tick implements Command, LocalOnly { INSTANCE }

    private enum PublishDue implements Command, LocalOnly { INSTANCE }

    private final ActorContext<Command> ctx;
    private final TimerScheduler<Command> timers;
    private final long publishInterval;
    private long lastPublish = Long.MIN_VALUE;
    private boolean publishPending;
    private PeerInfo self;
    private final KeyValueStore store;
    private final Executor io;
    private final DhtEnvironment env;
    /** the peer table: this directory's own, or a Learn batch's map shared with other directories until a change */
    private Map<PeerId, PeerInfo> peers = new HashMap<>();
    private boolean peersShared;
    private final Map<PeerId, Long> lastSeen = new HashMap<>();
    /** when the peers of an adopted Learn batch were seen (they have no entry of their own in lastSeen) */
    private long adoptedAt;
    private final Map<PeerId, PeerRecord> remembered = new LinkedHashMap<>();
    /** without a store: the departures of the last membership rounds, oldest first (lists shared by directories) */
    private final ArrayDeque<List<PeerInfo>> departedRounds = new ArrayDeque<>();
    private int departedCount;
    private final Set<Address> unreachable = new HashSet<>();
    private final Set<ActorRef<Command>> greeted = new HashSet<>();
    /** the directories the receptionist lists now (cluster peers); ones not answered yet are greeted again per tick */
    private Set<ActorRef<Command>> listed = Set.of();
    private final List<ActorRef<PeerView>> subscribers = new ArrayList<>();
    private PeerView view;
    private long version;
    private final int positionsPerPeer;

    /**
     * @param self  this peer's info (its directory field must be the ref this behavior will run as: use
     *              {@link #create(java.util.function.Function, KeyValueStore)} to build it from the self ref)
     * @param store where the peer table is persisted, or null for none
     */
    public static Behavior<Command> create(Function<ActorRef<Command>, PeerInfo> self,
                                           KeyValueStore store) {
        return create(self, store, 1);
    }

    /** @param positionsPerPeer points per peer on the rings of this directory's views (the placement's) */
    public static Behavior<Command> create(Function<ActorRef<Command>, PeerInfo> self,
                                           KeyValueStore store, int positionsPerPeer) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            timers.startTimerWithFixedDelay(Tick.INSTANCE,
                    ctx.getSystem().settings().config().getDuration("peerdex.dht.directory-tick"));
            return new PeerDirectory(ctx, timers, self.apply(ctx.getSelf()), store, positionsPerPeer);
        }));
    }

    private PeerDirectory(ActorContext<Command> ctx, TimerScheduler<Command> timers, PeerInfo self, KeyValueStore store,
                          int positionsPerPeer) {
        super(ctx);
        this.positionsPerPeer = positionsPerPeer;
        this.ctx = ctx;
        this.timers = timers;
        this.publishInterval = ctx.getSystem().settings().config().getDuration("peerdex.dht.view-publish-interval").toMillis();
        this.self = self;
        this.store = store;
        this.io = Dispatchers.index(ctx.getSystem());
        writablePeers().put(this.self.peerId(), this.self);
        this.env = DhtEnvironment.get(ctx.getSystem());
        lastSeen.put(this.self.peerId(), env.millis());
        if (store != null) loadTable();
        // virtual peers are introduced through the simulated network instead (the receptionist would bypass it)
        if (ctx.getSystem().settings().config().getBoolean("peerdex.dht.use-receptionist")) {
            ctx.getSystem().receptionist().tell(Receptionist.register(KEY, ctx.getSelf()));
            ctx.getSystem().receptionist().tell(Receptionist.subscribe(KEY,
                    ctx.messageAdapter(Receptionist.Listing.class, ListingChanged::new)));
        }
        if (isCluster()) {
            Cluster cluster = Cluster.get(ctx.getSystem());
            cluster.subscriptions().tell(Subscribe.create(
                    ctx.messageAdapter(ClusterEvent.ReachabilityEvent.class, Reachability::new),
                    ClusterEvent.ReachabilityEvent.class));
            cluster.subscriptions().tell(Subscribe.create(
                    ctx.messageAdapter(ClusterEvent.MemberRemoved.class, MemberGone::new), ClusterEvent.MemberRemoved.class));
        }
        publish();
    }

    private boolean isCluster() {
        return ctx.getSystem().settings().config().getString("pekko.actor.provider").equals("cluster");
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Hello.class, this::onHello)
                .onMessage(HelloReply.class, m -> {
                    if (learn(m.info())) greeted.add(m.info().directory());
                    return this;
                })
                .onMessage(Learn.class, m -> {
                    if (adopt(m)) return this;
                    int learnt = 0;
                    Long now = env.millis();
                    for (PeerInfo i : m.infos()) if (take(i, now)) learnt++;
                    if (learnt > 0) {
                        ctx.getLog().info("{} peers joined the view from the membership service", learnt);
                        publish();
                    }
                    return this;
                })
                .onMessage(GetView.class, m -> {
                    if (publishPending) publishNow();
                    m.replyTo().tell(view);
                    return this;
                })
                .onMessage(SubscribeView.class, m -> {
                    subscribers.add(m.subscriber());
                    m.subscriber().tell(view);
                    return this;
                })
                .onMessage(GetPeerTable.class, m -> {
                    if (publishPending) publishNow();
                    m.replyTo().tell(table());
                    return this;
                })
                .onMessage(Introduce.class, m -> {
                    greet(m.other());
                    return this;
                })
                .onMessage(SetAcceptsIndex.class, m -> {
                    if (self.acceptsIndex() == m.acceptsIndex()) return this;
                    self = new PeerInfo(self.peerId(), self.address(), m.acceptsIndex(), self.httpAddress(),
                            self.shardOwner(), self.directory());
                    writablePeers().put(self.peerId(), self);
                    ctx.getLog().info("this peer is now {}", self.role());
                    publish();
                    return this;
                })
                .onMessage(Forget.class, m -> {
                    PeerInfo gone = peers.containsKey(m.peer()) ? writablePeers().remove(m.peer()) : null;
                    if (gone != null) {
                        forgotten(gone);
                        publish();
                    }
                    return this;
                })
                .onMessage(Membership.class, m -> {
                    replace(m);
                    return this;
                })
                .onMessage(ListingChanged.class, this::onListing)
                .onMessage(Reachability.class, this::onReachability)
                .onMessage(MemberGone.class, m -> {
                    removeAt(m.event().member().address());
                    return this;
                })
                .onMessage(Tick.class, m -> onTick())
                .onMessage(PublishDue.class, m -> {
                    if (publishPending) publishNow();
                    return this;
                })
                .build();
    }

    private Behavior<Command> onHello(Hello m) {
        if (!learn(m.info())) return this;
        greeted.add(m.info().directory());
        m.info().directory().tell(new HelloReply(self));
        return this;
    }

    private void greet(ActorRef<Command> other) {
        if (other.equals(ctx.getSelf())) return;
        if (greeted.add(other)) other.tell(new Hello(self));
    }

    /** Takes a peer into the view (always true: who may speak to this directory is the transport's business). */
    private boolean learn(PeerInfo info) {
        if (take(info, env.millis())) {
            ctx.getLog().info("peer {} ({}) joined the view at {}", info.peerId(), info.role(), info.address());
            publish();
        }
        return true;
    }

    /** Takes a verified peer into the table (not yet the published view); true if that changed it. */
    private boolean take(PeerInfo info, Long now) {
        if (info.peerId().equals(self.peerId())) return false;
        PeerInfo before = peers.get(info.peerId());
        lastSeen.put(info.peerId(), now);
        if (info.equals(before)) return false;
        writablePeers().put(info.peerId(), info);
        persist(info);
        return true;
    }

    /**
     * Takes a whole Learn batch as the table, shared with the other directories that got it, when the batch holds
     * every peer known here (as at a simulation's bootstrap); false otherwise (the
     * batch is then learnt peer by peer). At N virtual peers this keeps one table instead of N tables of N.
     */
    private boolean adopt(Learn m) {
        if (!m.byId().containsKey(self.peerId()) || !m.byId().get(self.peerId()).equals(self)) return false;
        if (!coveredBy(peers, peersShared, m.byId())) return false;
        boolean changed = m.byId().size() != peers.size();
        adoptedAt = env.millis();
        shareTable(m.byId());
        if (changed) {
            ctx.getLog().info("{} peers joined the view from the membership service", m.byId().size() - 1);
            // virtual peers have no store: N directories walking N peers to persist nothing was N^2 at bootstrap
            if (store != null) for (PeerInfo i : peers.values()) if (!i.peerId().equals(self.peerId())) persist(i);
            publish();
        }
        return true;
    }

    /**
     * Takes the membership service's round: the shared map becomes the table when it names this peer as it is;
     * otherwise (this peer changed its role since, or is not in it yet) its peers are learnt one by one. Either
     * way the peers that left are forgotten.
     */
    private void replace(Membership m) {
        Map<PeerId, PeerInfo> before = peers;
        if (self.equals(m.byId().get(self.peerId()))) {
            shareTable(m.byId());
        } else {
            Long now = env.millis();
            for (PeerInfo i : m.byId().values()) take(i, now);
            for (PeerInfo i : m.left()) {
                if (i.peerId().equals(self.peerId())) continue;
                if (peers.containsKey(i.peerId()) && !m.byId().containsKey(i.peerId())) writablePeers().remove(i.peerId());
            }
        }
        List<PeerInfo> gone = departed(before, peers, m.left());
        if (store == null) {
            // a directory without a store keeps the round's list itself (shared by every directory) as the last
            // departures it lists offline: at 100,000 virtual peers under churn a round's departures are hundreds,
            // and every directory made a record of each one
            keepDeparted(gone);
            if (!greeted.isEmpty() || lastSeen.size() > 1) {
                for (PeerInfo was : gone) {
                    lastSeen.remove(was.peerId());
                    greeted.remove(was.directory());
                }
            }
        } else {
            for (PeerInfo was : gone) forgotten(was);
        }
        if (peers != before) publish();
    }

    /** Keeps a round's departures (without a store): the lists of the last rounds, MAX_REMEMBERED_VIRTUAL peers and more. */
    private void keepDeparted(List<PeerInfo> gone) {
        if (gone.isEmpty()) return;
        departedRounds.addLast(gone);
        departedCount += gone.size();
        while (departedCount - departedRounds.peekFirst().size() >= MAX_REMEMBERED_VIRTUAL) {
            departedCount -= departedRounds.removeFirst().size();
        }
    }

    /** The last answer of {@link #departed}, by the identity of its three arguments. */
    private record Departed(Map<PeerId, PeerInfo> before, Map<PeerId, PeerInfo> after, List<PeerInfo> left,
                            List<PeerInfo> gone) {}

    private static volatile Departed lastDeparted;

    /**
     * The peers of {@code left} that were in {@code before} and are not in {@code after}, as {@code before} knew
     * them. Every directory that shared one table takes the same round into the same shared table, so the answer is
     * found once for them all (tables are never changed in place: a change copies first).
     */
    private List<PeerInfo> departed(Map<PeerId, PeerInfo> before, Map<PeerId, PeerInfo> after, List<PeerInfo> left) {
        Departed last = lastDeparted;
        if (last != null && last.before() == before && last.after() == after && last.left() == left) return last.gone();
        List<PeerInfo> gone = new ArrayList<>();
        for (PeerInfo g : left) {
            PeerInfo was = before.get(g.peerId());
            if (was != null && !after.containsKey(g.peerId())) gone.add(was);
        }
        if (peersShared) lastDeparted = new Departed(before, after, left, List.copyOf(gone));
        return gone;
    }

    /** Takes a map shared with other directories as the table; only this peer keeps a time of its own. */
    private void shareTable(Map<PeerId, PeerInfo> table) {
        Long selfSeen = lastSeen.get(self.peerId());
        lastSeen.clear();
        lastSeen.put(self.peerId(), selfSeen);
        peers = table;
        peersShared = true;
    }

    /** A peer that left the table: remembered as offline, and greeted again should it come back. */
    private void forgotten(PeerInfo was) {
        remember(was);
        greeted.remove(was.directory());
    }

    /** The last shared table found covered by a batch, or not: every directory sharing that table asks the same. */
    private record Covered(Map<PeerId, PeerInfo> table, Map<PeerId, PeerInfo> batch, boolean covered) {}

    private static volatile Covered lastCovered;

    /**
     * True if every peer of {@code table} is in {@code batch} with an equal info. A shared table is never changed
     * (a change copies it first), and at a simulation's bootstrap the N directories that share one table all get
     * the same batch: the answer is taken once for the pair (by identity), not N times over N peers (10^10 checks
     * at 100,000 virtual peers).
     */
    private static boolean coveredBy(Map<PeerId, PeerInfo> table, boolean shared, Map<PeerId, PeerInfo> batch) {
        Covered last = lastCovered;
        if (shared && last != null && last.table() == table && last.batch() == batch) return last.covered();
        boolean covered = true;
        for (PeerInfo i : table.values()) {
            if (!i.equals(batch.get(i.peerId()))) {
                covered = false;
                break;
            }
        }
        if (shared) lastCovered = new Covered(table, batch, covered);
        return covered;
    }

    /** The table to change: a shared one is copied first. */
    private Map<PeerId, PeerInfo> writablePeers() {
        if (peersShared) {
            peers = new HashMap<>(peers);
            peersShared = false;
        }
        return peers;
    }

    private Behavior<Command> onListing(ListingChanged m) {
        Set<ActorRef<Command>> refs = m.listing().getServiceInstances(KEY);
        listed = refs;
        for (ActorRef<Command> r : refs) greet(r);
        // a directory that vanished from the listing: its peer left the cluster
        boolean changed = false;
        for (PeerInfo info : new ArrayList<>(peers.values())) {
            if (info.peerId().equals(self.peerId())) continue;
            if (isCluster() && !refs.contains(info.directory()) && isRemoteRef(info.directory())) {
                writablePeers().remove(info.peerId());
                remember(info);
                greeted.remove(info.directory());
                changed = true;
            }
        }
        greeted.retainAll(refs);
        if (changed) publish();
        return this;
    }

    private static boolean isRemoteRef(ActorRef<?> r) {
        return r.path().address().hasGlobalScope();
    }

    private Behavior<Command> onReachability(Reachability m) {
        if (m.event() instanceof ClusterEvent.UnreachableMember u) {
            if (unreachable.add(u.member().address())) publish();
        } else if (m.event() instanceof ClusterEvent.ReachableMember r) {
            if (unreachable.remove(r.member().address())) publish();
        }
        return this;
    }

    private void removeAt(Address address) {
        unreachable.remove(address);
        boolean changed = writablePeers().values().removeIf(i -> {
            boolean gone = !i.peerId().equals(self.peerId()) && i.directory().path().address().equals(address);
            if (gone) remember(i);
            return gone;
        });
        if (changed) publish();
    }

    private boolean live(PeerInfo i) {
        if (unreachable.isEmpty()) return true;
        return i.peerId().equals(self.peerId()) || !unreachable.contains(i.directory().path().address());
    }

    /** A change to publish: now if the last view went out long enough ago, else once at the end of the interval. */
    private void publish() {
        long now = env.millis();
        if (view == null || publishInterval <= 0 || now - lastPublish >= publishInterval) {
            publishNow();
        } else if (!publishPending) {
            publishPending = true;
            timers.startSingleTimer("publish", PublishDue.INSTANCE, Duration.ofMillis(lastPublish + publishInterval - now));
        }
    }

    private void publishNow() {
        publishPending = false;
        timers.cancel("publish");
        lastPublish = env.millis();
        Map<PeerId, PeerInfo> liveInfos = peers;
        if (!unreachable.isEmpty()) {
            liveInfos = new HashMap<>();
            for (PeerInfo i : peers.values()) if (live(i)) liveInfos.put(i.peerId(), i);
        }
        Ring ring = SharedViews.ringOf(liveInfos, positionsPerPeer);
        if (view != null && view.ring().equals(ring) && view.peers().equals(liveInfos)) return;
        view = new PeerView(self.peerId(), ring, liveInfos, ++version);
        for (ActorRef<PeerView> s : subscribers) s.tell(view);
    }

    private Behavior<Command> onTick() {
        greetUnanswered();
        // without a store (virtual peers) there is nothing to persist, and N records per peer per tick add up to
        // N^2 across a simulation; their table shows when each peer was learned instead
        if (store == null) return this;
        long now = env.millis();
        for (PeerInfo i : view.peers().values()) {
            lastSeen.put(i.peerId(), now);
            persist(i);
        }
        return this;
    }

    /**
     * Greets again every listed directory whose peer is not in the table. A Hello goes out once per directory and
     * may be lost (sent while the transport still held the quarantined association of the peer's last incarnation
     * at the same host:port), and a late MemberRemoved of that last incarnation removes a peer by its address,
     * which is the new incarnation's too; either way the peer would stay out of the view while it is up.
     */
    private void greetUnanswered() {
        if (listed.isEmpty()) return;
        Set<ActorRef<Command>> answered = new HashSet<>();
        for (PeerInfo i : peers.values()) answered.add(i.directory());
        for (ActorRef<Command> r : listed) {
            if (!r.equals(ctx.getSelf()) && !answered.contains(r)) {
                greeted.add(r);
                r.tell(new Hello(self));
            }
        }
    }

    private List<PeerRecord> table() {
        Map<String, PeerRecord> out = new LinkedHashMap<>();
        for (PeerRecord r : remembered.values()) out.put(r.peerId(), offline(r));
        // the last MAX_REMEMBERED_VIRTUAL peers membership rounds said left (a directory without a store)
        int skip = departedCount - MAX_REMEMBERED_VIRTUAL;
        for (List<PeerInfo> round : departedRounds) {
            for (PeerInfo was : round) if (skip-- <= 0) out.put(was.peerId().value(), offline(record(was)));
        }
        // known but unreachable
        for (PeerInfo i : peers.values()) if (!view.peers().containsKey(i.peerId())) out.put(i.peerId().value(), offline(record(i)));
        for (PeerInfo i : view.peers().values()) out.put(i.peerId().value(), record(i));
        return List.copyOf(out.values());
    }

    private static PeerRecord offline(PeerRecord r) {
        return new PeerRecord(r.peerId(), r.address(), r.httpAddress(), "offline", r.position(), r.lastSeen());
    }

    /** A peer that left the table stays in it as offline (peers in the table are not kept twice: N^2 at scale). */
    private void remember(PeerInfo i) {
        remembered.put(i.peerId(), record(i));
        lastSeen.remove(i.peerId());
        // a virtual peer keeps no table on disk and is asked for it only to look at: the most recent departures
        // do (every directory of 10,000 under churn remembering every peer that ever left is N times the churn)
        if (store == null && remembered.size() > MAX_REMEMBERED_VIRTUAL) {
            remembered.remove(remembered.keySet().iterator().next());
        }
    }

    /** how many departed peers a directory without a store remembers */
    private static final int MAX_REMEMBERED_VIRTUAL = 256;

    private PeerRecord record(PeerInfo i) {
        return new PeerRecord(i.peerId().value(), i.address(), i.httpAddress(), i.role(), i.peerId().position(),
                lastSeen.getOrDefault(i.peerId(), adoptedAt));
    }

    private void persist(PeerInfo i) {
        if (store == null) return;
        PeerRecord r = record(i);
        CompletableFuture.runAsync(() -> store.put(key(r.peerId()), Cbor.write(r)), io);
    }

    private static byte[] key(String peerId) {
        return Keys.of(Keyspace.PEERS, peerId.getBytes(StandardCharsets.US_ASCII));
    }

    private void loadTable() {
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.PEERS})) {
            while (c.next()) {
                try {
                    PeerRecord r = Cbor.read(c.value(), PeerRecord.class);
                    if (!r.peerId().equals(self.peerId().value())) remembered.put(PeerId.parse(r.peerId()), r);
                } catch (RuntimeException e) {
                    ctx.getLog().warn("skipping unreadable peer table entry: {}", e.getMessage());
                }
            }
        }
    }
}
