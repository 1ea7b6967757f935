package org.peerdex.actors.dht.replication;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.peerdex.actors.Dispatchers;
import org.peerdex.actors.dht.DhtEnvironment;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.DhtStats;
import org.peerdex.actors.dht.LocalOnly;
import org.peerdex.actors.dht.WireCost;
import org.peerdex.actors.dht.replication.RebalancePlanner.Mode;
import org.peerdex.actors.dht.replication.RebalancePlanner.Plan;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerInfo;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.actors.dht.shard.DhtBlacklist;
import org.peerdex.actors.dht.shard.Digests;
import org.peerdex.actors.dht.shard.RangeDigest;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * Distributes this peer's postings and metadata to their holders and keeps R copies alive. New postings from the
 * local indexer ({@link Replicate}) are grouped by target, cut into bounded batches and kept in the durable
 * {@link Outbox} until each target acknowledges a durable write; retries back off exponentially and a BUSY
 * target's pause is honoured. On every ring change (debounced) and periodically it rebalances: postings this
 * peer holds for others but no longer should are handed off and deleted only after every new holder
 * acknowledged; it offers range digests to the other holders and sends the ranges that differ (anti-entropy
 * repair). Three kinds of rebalance keep that cheap on large rings:
 * <ul>
 * <li>after a ring change (debounced), incremental: a peer whose ring neighbourhood (R peers on either side) did
 *     not change has nothing to hand off and no new co-holders, so it skips the scan; otherwise it offers digests
 *     of what it holds only to peers that became holders since its last rebalance (its own crawl elsewhere on the
 *     ring is repaired by that range's holders; a batch of fresh postings whose target left is sent again);</li>
 * <li>every {@code repair-interval}: digests of what it holds to its co-holders (its ring neighbours);</li>
 * <li>every {@code crawl-repair-interval}, on {@link RebalanceNow} and first after start: everything it holds or
 *     crawled to every holder (its own crawl spreads over the whole ring, so this one reaches nearly every peer).</li>
 * </ul>
 * Each peer runs its periodic rounds at its own phase.
 */
public final class Replicator extends AbstractBehavior<Replicator.Command> {
    public sealed interface Command {}

    /** Local: postings and metadata the indexer has just written durably. */
    public record Replicate(List<Posting> postings, List<UrlMetadata> metadata) implements Command, LocalOnly {
        public Replicate {
            postings = List.copyOf(postings);
            metadata = metadata == null ? List.of() : List.copyOf(metadata);
        }
    }

    /** Local: follow this directory's views. */
    public record Attach(ActorRef<PeerDirectory.Command> directory) implements Command, LocalOnly {}

    /** Local: run a full rebalance (hand-off, and digests of everything to every holder) now. */
    public enum RebalanceNow implements Command, LocalOnly { INSTANCE }

    /** The debounced ring change: an incremental rebalance. */
    private enum RingChanged implements Command, LocalOnly { INSTANCE }

    /** The periodic repair of the ranges this peer holds. */
    private enum RepairHeld implements Command, LocalOnly { INSTANCE }


    /** Local: is everything sent and acknowledged? */
    public record GetProgress(ActorRef<Progress> replyTo) implements Command, LocalOnly {}

    /**
     * Outbox size and whether a rebalance is running or pending: {@code outboxEntries} and {@code outboxPostings}
     * count the durable outbox, {@code heapEntries} and {@code heapBytes} the part of it held in heap;
     * {@code backlogged} while the outbox is over {@code outbox-pause-postings} (the indexer waits);
     * {@code planning} counts documents handed to replication whose batches are not in the outbox yet;
     * {@code deletesPending} acknowledged batches whose delete from disk has not finished (idle waits for them, so
     * that an idle replicator's outbox is empty on disk too).
     */
    public record Progress(int outboxEntries, int outboxPostings, boolean rebalancing, int handoffGroups,
                           int digestExchangesOpen, int heapEntries, long heapBytes, boolean backlogged,
                           long planning, int deletesPending) {
        public boolean idle() {
            return planning <= 0 && outboxEntries <= 0 && heapEntries == 0 && !rebalancing && handoffGroups == 0
                    && digestExchangesOpen == 0 && deletesPending == 0;
        }
    }

    private record ViewChanged(PeerView view) implements Command, LocalOnly {}

    private record Enqueued(List<Outbox.Stored> entries, long group, List<Posting> deleteAfter) implements Command, LocalOnly {}

    private record StoreAnswered(ShardOwner.StoreReply reply) implements Command, LocalOnly {}

    private record DigestAnswered(ShardOwner.DigestReply reply) implements Command, LocalOnly {}

    /** A plan made; {@code ringsCovered} of {@link #ringsSincePlan} were among its bases. */
    private record Rebalanced(Plan plan, Throwable error, Mode mode, int ringsCovered) implements Command, LocalOnly {}

    /** The batches an earlier run left in the outbox (counted, not loaded: the window reads them). */
    private record Loaded(Outbox.Totals totals) implements Command, LocalOnly {}

    /** The next window of the durable outbox, read from disk (null if the read failed). */
    private record Reloaded(Outbox.Window window) implements Command, LocalOnly {}

    /** An acknowledged or dropped batch is gone from disk too. */
    private record Deleted(long id) implements Command, LocalOnly {}

    private enum Tick implements Command, LocalOnly { INSTANCE }

    private record RepairsPlanned(Enqueued enqueued) implements Command, LocalOnly {}

    /** A {@link Replicate}'s batches are written to the outbox (or planning failed). */
    private record ReplicatePlanned(Enqueued enqueued) implements Command, LocalOnly {}


    /** The local copies of a hand-off group are deleted ({@code deleted} of them; the rest kept). */
    private record HandoffDeleted(long deleted) implements Command, LocalOnly {}

    private static final class Pending {
        final Outbox.Entry entry;
        int attempts;
        long nextAt;
        long sentAt;
        boolean inFlight;
        long group;
        /** its encoded size: what it costs in heap, roughly */
        final int bytes;

        Pending(Outbox.Entry entry, long group, int bytes) {
            this.entry = entry;
            this.group = group;
            this.bytes = bytes;
        }
    }

    private static final class Group {
        final Set<Long> open = new HashSet<>();
        final List<Posting> deleteAfter;
        boolean failed;

        Group(List<Posting> deleteAfter) {
            this.deleteAfter = deleteAfter;
        }
    }

    private final ActorContext<Command> ctx;
    private final TimerScheduler<Command> timers;
    private final PeerId self;
    /** who must have acknowledged before handed-off copies go (distinct prefixes in the open network) */
    private final HandoffQuorum quorum;
    private final PeerStorage storage;
    private final Placement placement;
    private final DhtSettings settings;
    private final DhtStats stats;
    private final Executor io;
    private final Outbox outbox;
    /** the buckets a rebalance that is not full reads besides the ones this peer holds */
    private final ForeignBuckets foreign;
    private final AtomicLong ids;
    private final DhtEnvironment env;
    /** The batches of the durable outbox held in heap: a window of at most {@link #heapLimit} bytes (see spill). */
    private final Map<Long, Pending> pending = new HashMap<>();
    private final long heapLimit;
    private final long pauseAt;
    /** postings one rebalance hands off at most; the rest go in further rounds once these are acknowledged */
    private final int maxHandoff;
    private final RebalancePlanner planner;
    /** the last plan's hand-off was cut at {@link #maxHandoff}: another round follows its deletion */
    private boolean handoffMore;
    private long heapBytes;
    /** batches and postings in the durable outbox (the truth: heap window and disk alike) */
    private long durableEntries;
    private long durablePostings;
    /**
     * True while the durable outbox may hold batches that are not in heap; they are read back in id order from
     * {@link #reloadFrom} on as the window drains. New batches then wait on disk behind them. True at start: the
     * outbox may hold batches of an earlier run.
     */
    private boolean spilled = true;
    private static final Duration BUSY_TICK = Duration.ofMillis(100);
    /** Is the tick at {@link #BUSY_TICK} (else at {@link #idleTick})? It starts busy. */
    private boolean busyTicking = true;
    private Duration idleTick = Duration.ofSeconds(5);
    private long reloadFrom;
    private boolean reloading;
    private long spilledDuringReload = Long.MAX_VALUE;
    /** ids whose delete from disk is under way: a window read must not take them back */
    private final Set<Long> deleting = new HashSet<>();
    private WireCost cost;
    private final Map<Long, Group> groups = new HashMap<>();
    private final Map<Long, PeerId> digestExchanges = new HashMap<>();
    private final Map<Long, Long> digestSentAt = new HashMap<>();
    /** exchanges whose 'p' and 'm' digests covered all origins of their buckets */
    private final Set<Long> foldedExchanges = new HashSet<>();
    /**
     * Peers that answered digests of all origins without listing what they hold (a peer before such digests
     * compares them per origin and finds every bucket differing), and since when: they get digests per origin for
     * {@link #PER_ORIGIN_FOR}, then are tried again.
     */
    private final Map<PeerId, Long> perOrigin = new HashMap<>();
    /**
     * Ranges digest replies found differing, per target, not yet planned (see startRepairs); each with the entry
     * hashes the target holds there (null: it wants the range whole). A range of a folded exchange ('p' or 'm' of
     * all origins) names this peer as its origin.
     */
    private final Map<PeerId, Map<RangeDigest.Range, long[]>> repairWanted = new TreeMap<>();
    /** the targets of repairWanted whose ranges came from folded exchanges (whole buckets, named by this peer) */
    private final Set<PeerId> repairWantedFolded = new HashSet<>();
    private boolean repairPlanning;
    private final ActorRef<ShardOwner.StoreReply> storeReplies;
    private final ActorRef<ShardOwner.DigestReply> digestReplies;
    private PeerView view;
    private boolean rebalancing;
    private boolean rebalanceAgain;
    private Mode againMode = Mode.DELTA;
    /** The ring of the last rebalance whose plan went out (null before the first: that one is full). */
    private Ring lastPlanned;
    /**
     * Rings this peer's view passed through since {@link #lastPlanned}, oldest first. A ring that comes and goes
     * within one debounce (two holders down and back within rebalance-delay) is not the ring a DELTA plans for,
     * but writes made under it went to its substitute holders; the holders that were missing from it must be
     * offered digests even when the ring is back as it was (ChurnTest, writes while holders are down).
     */
    private final List<Ring> ringsSincePlan = new ArrayList<>();
    /** the last two rings {@link #around} was asked for, and its answers */
    private final Ring[] aroundRing = new Ring[2];
    @SuppressWarnings("unchecked")
    private final List<PeerId>[] aroundPeers = new List[2];
    private static final int MAX_RINGS_SINCE_PLAN = 16;
    /** More rings than that since the last plan: the next DELTA offers digests to every co-holder. */
    private boolean ringsOverflowed;
    private long nextGroup = 1;

    public static Behavior<Command> create(PeerId self, PeerStorage storage, Placement placement, DhtSettings settings,
                                           DhtStats stats) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            timers.startTimerWithFixedDelay(Tick.INSTANCE, BUSY_TICK);
            // each peer at its own phase: peers started together would otherwise all repair at the same moment
            long interval = settings.repairInterval().toMillis();
            DhtEnvironment env = DhtEnvironment.get(ctx.getSystem());
            Duration first = Duration.ofMillis(interval / 2 + env.nextLong(interval + 1));
            timers.startTimerWithFixedDelay("repair", RepairHeld.INSTANCE, first, settings.repairInterval());
            Duration crawl = ctx.getSystem().settings().config().getDuration("peerdex.dht.crawl-repair-interval");
            Duration firstCrawl = Duration.ofMillis(crawl.toMillis() / 2 + env.nextLong(crawl.toMillis() + 1));
            timers.startTimerWithFixedDelay("crawl-repair", RebalanceNow.INSTANCE, firstCrawl, crawl);
            Replicator r = new Replicator(ctx, timers, self, storage, placement, settings, stats);
            r.idleTick = ctx.getSystem().settings().config().getDuration("peerdex.dht.idle-tick");
            return r;
        }));
    }

    private Replicator(ActorContext<Command> ctx, TimerScheduler<Command> timers, PeerId self, PeerStorage storage,
                       Placement placement, DhtSettings settings, DhtStats stats) {
        super(ctx);
        this.ctx = ctx;
        this.timers = timers;
        this.self = self;
        Config conf = ctx.getSystem().settings().config();
        this.quorum = new HandoffQuorum(placement.redundancy(),
                conf.hasPath("peerdex.peer.prefix-bits-v4") ? conf.getInt("peerdex.peer.prefix-bits-v4") : 24);
        this.storage = storage;
        this.placement = placement;
        this.settings = settings;
        this.stats = stats;
        this.io = Dispatchers.index(ctx.getSystem());
        this.outbox = new Outbox(storage.store());
        this.foreign = new ForeignBuckets(storage);
        // ids grow over restarts: time-based start, then +1
        this.env = DhtEnvironment.get(ctx.getSystem());
        this.ids = new AtomicLong(env.millis() << 12);
        Config dht = ctx.getSystem().settings().config().getConfig("peerdex.dht");
        this.heapLimit = Math.max(1, dht.getBytes("outbox-heap-bytes"));
        this.pauseAt = Math.max(1, dht.getLong("outbox-pause-postings"));
        this.maxHandoff = dht.hasPath("max-handoff-postings") ? Math.max(1, dht.getInt("max-handoff-postings")) : 100_000;
        this.planner = new RebalancePlanner(self, storage, placement, settings.acceptRemoteIndex(), maxHandoff, foreign);
        stats.outboxPauseAt = pauseAt;
        long firstId = ids.get() + 1;
        this.storeReplies = ctx.messageAdapter(ShardOwner.StoreReply.class, StoreAnswered::new);
        this.digestReplies = ctx.messageAdapter(ShardOwner.DigestReply.class, DigestAnswered::new);
        ctx.pipeToSelf(CompletableFuture.supplyAsync(() -> outbox.totals(firstId), io),
                (totals, e) -> new Loaded(e == null ? totals : new Outbox.Totals(0, 0)));
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Attach.class, m -> {
                    m.directory().tell(new PeerDirectory.SubscribeView(ctx.messageAdapter(PeerView.class, ViewChanged::new)));
                    return this;
                })
                .onMessage(Loaded.class, this::onLoaded)
                .onMessage(Reloaded.class, this::onReloaded)
                .onMessage(Deleted.class, m -> {
                    deleting.remove(m.id());
                    return this;
                })
                .onMessage(ViewChanged.class, this::onView)
                .onMessage(Replicate.class, this::onReplicate)
                .onMessage(Enqueued.class, this::onEnqueued)
                .onMessage(StoreAnswered.class, this::onStoreAnswered)
                .onMessage(DigestAnswered.class, this::onDigestAnswered)
                .onMessage(RebalanceNow.class, m -> startRebalance(Mode.FULL))
                .onMessage(RepairHeld.class, m -> startRebalance(Mode.HELD))
                .onMessage(HandoffDeleted.class, m -> {
                    // the next round of a hand-off cut at max-handoff-postings, once this one's copies are gone;
                    // a round that could delete nothing (no acknowledgement quorum) waits for the periodic repair
                    if (!handoffMore) return this;
                    handoffMore = false;
                    if (m.deleted() == 0) return this;
                    return startRebalance(Mode.HELD);
                })
                .onMessage(RingChanged.class, m -> startRebalance(Mode.DELTA))
                .onMessage(Rebalanced.class, this::onRebalanced)
                .onMessage(GetProgress.class, m -> {
                    m.replyTo().tell(progress());
                    return this;
                })
                .onMessage(Tick.class, m -> {
                    startRepairs();
                    return onTick();
                })
                .onMessage(ReplicatePlanned.class, m -> {
                    Behavior<Command> next = onEnqueued(m.enqueued());
                    planned();
                    return next;
                })
                .onMessage(RepairsPlanned.class, m -> {
                    repairPlanning = false;
                    return onEnqueued(m.enqueued());
                })
                .onSignal(PostStop.class, m -> {
                    foreign.detach();
                    return this;
                })
                .build();
    }

    private Progress progress() {
        return new Progress((int) Math.min(Integer.MAX_VALUE, durableEntries),
                (int) Math.min(Integer.MAX_VALUE, durablePostings),
                rebalancing || rebalanceAgain || repairPlanning || !repairWanted.isEmpty(), groups.size(),
                digestExchanges.size(), pending.size(), heapBytes, stats.outboxFull, stats.replicationsPlanning.get(),
                deleting.size());
    }

    private void updateGauges() {
        stats.outboxEntries.set(durableEntries);
        stats.outboxPostings.set(durablePostings);
        stats.outboxHeapEntries.set(pending.size());
        stats.outboxHeapBytes.set(heapBytes);
        long handoff = 0;
        for (Group g : groups.values()) handoff += g.deleteAfter.size();
        stats.handoffPending.set(handoff);
        // back-pressure with hysteresis: the indexer waits above the bound and goes on once half of it is drained
        if (!stats.outboxFull && durablePostings > pauseAt) {
            stats.outboxFull = true;
            ctx.getLog().warn("replication outbox holds {} postings not yet acknowledged (over {}): indexing waits",
                    durablePostings, pauseAt);
        } else if (stats.outboxFull && durablePostings <= pauseAt / 2) {
            stats.outboxFull = false;
            ctx.getLog().info("replication outbox down to {} postings: indexing goes on", durablePostings);
        }
    }

    private Behavior<Command> onLoaded(Loaded m) {
        durableEntries += m.totals().entries();
        durablePostings += m.totals().postings();
        if (m.totals().entries() > 0) ctx.getLog().info("outbox: {} batches still owed from before", m.totals().entries());
        updateGauges();
        return this;
    }

    /** Reads the next window of the durable outbox once the heap part has drained to half its bound. */
    private void maybeReload() {
        if (!spilled || reloading || heapBytes > heapLimit / 2) return;
        reloading = true;
        spilledDuringReload = Long.MAX_VALUE;
        long from = reloadFrom;
        long budget = Math.max(1, heapLimit - heapBytes);
        Set<Long> skip = new HashSet<>(pending.keySet());
        skip.addAll(deleting);
        ctx.pipeToSelf(CompletableFuture.supplyAsync(() -> outbox.load(from, budget, skip), io), (w, e) -> {
            if (e != null) ctx.getLog().warn("outbox read failed: {}", e.toString());
            return new Reloaded(e == null ? w : null);
        });
    }

    private Behavior<Command> onReloaded(Reloaded m) {
        reloading = false;
        if (m.window() == null) return this; // tried again on the next tick
        for (Outbox.Stored st : m.window().entries()) {
            long id = st.entry().id();
            if (pending.containsKey(id) || deleting.contains(id)) continue;
            pending.put(id, new Pending(st.entry(), 0, st.bytes()));
            wake();
            heapBytes += st.bytes();
        }
        // batches written while the read ran wait on disk; the next read starts at the earliest of them
        long next = Math.min(m.window().end() ? Long.MAX_VALUE : m.window().nextId(), spilledDuringReload);
        spilledDuringReload = Long.MAX_VALUE;
        spilled = next != Long.MAX_VALUE;
        reloadFrom = spilled ? next : Long.MAX_VALUE;
        if (view != null) dropForDepartedTargets();
        updateGauges();
        return onTick();
    }

    /** A batch stays on disk only (the window is full, or older batches wait there): read back later. */
    private void spill(long id) {
        spilled = true;
        wake();
        reloadFrom = Math.min(reloadFrom, id);
        if (reloading) spilledDuringReload = Math.min(spilledDuringReload, id);
    }

    /** Removes an acknowledged or dropped batch from heap, the counts and (in the background) the disk. */
    private void forget(Pending p) {
        long id = p.entry.id();
        pending.remove(id);
        heapBytes -= p.bytes;
        durableEntries--;
        durablePostings -= p.entry.count();
        deleting.add(id);
        ctx.pipeToSelf(CompletableFuture.runAsync(() -> outbox.delete(id), io), (r, e) -> new Deleted(id));
    }

    private Behavior<Command> onView(ViewChanged m) {
        boolean ringChanged = view == null || !view.ring().sameMembers(m.view().ring());
        // a peer that is back as a new incarnation under its old id (a restart faster than the cluster dropped it)
        // may have lost its data: for the next rebalance it counts as a holder that was away. Only co-holders matter,
        // and they are all in the ring neighbourhood, so only that is compared.
        Ring restartedAway = null;
        if (view != null && lastPlanned != null && view.peers() != m.view().peers()) {
            List<PeerId> again = PeerView.reincarnated(view, m.view());
            Set<PeerId> near = again.isEmpty() ? Set.of() : new HashSet<>(around(m.view().ring()));
            List<PeerId> away = new ArrayList<>();
            for (PeerId id : again) if (!id.equals(self) && near.contains(id)) away.add(id);
            if (!away.isEmpty()) restartedAway = RebalancePlanner.localRingWithout(self, m.view().ring(), placement.redundancy(), away);
        }
        PeerView before = view;
        view = m.view();
        // only a change around this peer's points moves what it holds or who holds it with it; a ring with the
        // same neighbourhood as the last places this peer's positions alike, so a plan needs neither to run for it
        // nor to take it as a base. With every ring change counting, a large network under churn (a change
        // somewhere every membership round) would put every peer's rebalance off for good, and overflow the rings
        // a DELTA plans against
        boolean touches = ringChanged && (before == null || lastPlanned == null
                || !around(before.ring()).equals(around(view.ring())));
        if (lastPlanned != null) {
            if (touches) rememberRing(view.ring());
            if (restartedAway != null) rememberRing(restartedAway);
        }
        stats.ringSize = view.ring().size();
        dropForDepartedTargets();
        if (touches || restartedAway != null) {
            timers.startSingleTimer("rebalance", RingChanged.INSTANCE, settings.rebalanceDelay());
        }
        return this;
    }

    /**
     * This peer's neighbourhood on {@code ring} (RebalancePlanner.neighbourhood), kept for the last two rings: each
     * view change compares the new ring's with the last one's, and 10,000 virtual peers ask on every membership
     * round.
     */
    private List<PeerId> around(Ring ring) {
        if (ring == aroundRing[0]) return aroundPeers[0];
        if (ring == aroundRing[1]) return aroundPeers[1];
        List<PeerId> a = RebalancePlanner.neighbourhood(self, ring, placement.redundancy());
        aroundRing[1] = aroundRing[0];
        aroundPeers[1] = aroundPeers[0];
        aroundRing[0] = ring;
        aroundPeers[0] = a;
        return a;
    }

    /**
     * Batches for peers that left the ring are dropped: the rebalance re-plans their content for the new holders.
     * (Batches on disk only are judged when the window reads them.)
     */
    private void dropForDepartedTargets() {
        for (Pending p : new ArrayList<>(pending.values())) {
            PeerId target = PeerId.parse(p.entry.target());
            if (!view.ring().contains(target)) {
                drop(p, "target left the ring");
                // fresh postings must not wait for the periodic repair: send them to their holders in the new ring
                if ("replicate".equals(p.entry.purpose())) {
                    stats.replicationsPlanning.incrementAndGet();
                    onReplicate(new Replicate(p.entry.pack().postings(), p.entry.metadata()));
                }
            }
        }
    }

    private void rememberRing(Ring ring) {
        if (ringsSincePlan.size() < MAX_RINGS_SINCE_PLAN) ringsSincePlan.add(ring);
        else ringsOverflowed = true;
    }

    /** One {@link Replicate} fewer in planning; never below zero (a Replicate may come from elsewhere than DhtPeer). */
    private void planned() {
        stats.replicationsPlanning.updateAndGet(n -> Math.max(0, n - 1));
    }

    private Behavior<Command> onReplicate(Replicate m) {
        if (view == null || view.ring().isEmpty()) { // the first rebalance will offer them
            planned();
            return this;
        }
        Ring ring = view.ring();
        CompletableFuture<Enqueued> f = CompletableFuture.supplyAsync(() -> {
            List<Outbox.Entry> entries = new ArrayList<>();
            // the dht-scope blacklist holds back what this peer must not hand to others
            DhtBlacklist.Outgoing out = DhtBlacklist.outgoing(storage).learn(m.metadata());
            List<Posting> postings = out.postings(m.postings());
            List<UrlMetadata> metadata = out.metadata(m.metadata());
            stats.blacklistedOutgoing.addAndGet(out.dropped());
            Batching.byTarget(self, postings, metadata, placement, ring).forEach((t, share) ->
                    entries.addAll(Batching.batches(t, share, settings, "replicate", ids::incrementAndGet)));
            return new Enqueued(outbox.putAll(entries), 0, List.of());
        }, io);
        ctx.pipeToSelf(f, (r, e) -> {
            if (e != null) ctx.getLog().warn("could not plan replication: {}", e.toString());
            return new ReplicatePlanned(e == null ? r : new Enqueued(List.of(), 0, List.of()));
        });
        return this;
    }

    private Behavior<Command> onEnqueued(Enqueued m) {
        Group g = null;
        if (m.group() != 0 && !m.deleteAfter().isEmpty()) {
            g = new Group(m.deleteAfter());
            groups.put(m.group(), g);
        }
        for (Outbox.Stored st : m.entries()) {
            Outbox.Entry e = st.entry();
            durableEntries++;
            durablePostings += e.count();
            Pending known = pending.get(e.id()); // a window read may have found it on disk first
            boolean done = deleting.contains(e.id()); // ... and it may even be acknowledged already
            if (known != null) {
                known.group = m.group();
            } else if (done) {
                // nothing left to send; its acknowledgement already took it off the counts
            } else if (g != null || (!spilled && heapBytes + st.bytes() <= heapLimit)) {
                // hand-off batches stay in heap: their group waits for every acknowledgement, and the plan that
                // made them holds their postings anyway
                pending.put(e.id(), new Pending(e, m.group(), st.bytes()));
                wake();
                heapBytes += st.bytes();
            } else {
                spill(e.id());
            }
            if (g != null && !done) g.open.add(e.id());
            if ("replicate".equals(e.purpose())) stats.replicatedPostings.addAndGet(e.count());
            else if ("handoff".equals(e.purpose())) stats.handedOffPostings.addAndGet(e.count());
            else {
                stats.repairedPostings.addAndGet(e.count());
                stats.repairedMetadata.addAndGet(e.metadata().size());
            }
        }
        if (g != null && g.open.isEmpty()) groups.remove(m.group());
        updateGauges();
        return onTick();
    }

    /**
     * The tick runs every {@link #BUSY_TICK} while there is something to send, acknowledge, reload or repair, and
     * every {@code idle-tick} otherwise: an idle peer (nearly every virtual peer of a large simulation, most of the
     * time) costs one event per idle tick instead of ten a second. Whatever adds work calls {@link #wake()}; the
     * idle tick is the safety net for anything that does not.
     */
    private void pace() {
        boolean work = !pending.isEmpty() || spilled || reloading || !repairWanted.isEmpty() || !digestSentAt.isEmpty();
        if (work == busyTicking) return;
        busyTicking = work;
        timers.startTimerWithFixedDelay(Tick.INSTANCE, work ? BUSY_TICK : idleTick);
    }

    private void wake() {
        if (!busyTicking) {
            busyTicking = true;
            timers.startTimerWithFixedDelay(Tick.INSTANCE, BUSY_TICK);
        }
    }

    private Behavior<Command> onTick() {
        Behavior<Command> next = tick();
        pace();
        return next;
    }

    private Behavior<Command> tick() {
        maybeReload();
        if (view == null) return this;
        long now = env.millis();
        Map<String, Integer> inFlight = new HashMap<>();
        // over a copy: a batch out of attempts is dropped from pending on the way
        for (Pending p : new ArrayList<>(pending.values())) {
            if (p.inFlight && now - p.sentAt > settings.ackTimeout().toMillis()) {
                p.inFlight = false;
                retryLater(p, now, "no acknowledgement within " + settings.ackTimeout().toMillis() + " ms");
            }
            if (p.inFlight) inFlight.merge(p.entry.target(), 1, Integer::sum);
        }
        for (Pending p : pending.values()) {
            if (p.inFlight || p.nextAt > now) continue;
            int n = inFlight.getOrDefault(p.entry.target(), 0);
            if (n >= settings.maxInFlightPerTarget()) continue;
            PeerId target = PeerId.parse(p.entry.target());
            var owner = view.owner(target);
            if (owner.isEmpty()) continue;
            p.inFlight = true;
            p.sentAt = now;
            inFlight.put(p.entry.target(), n + 1);
            ShardOwner.StorePostings store = new ShardOwner.StorePostings(p.entry.id(), self, p.entry.pack(),
                    p.entry.metadata(), storeReplies);
            meter(owner.get(), target, store);
            owner.get().tell(store);
        }
        for (var e : new ArrayList<>(digestSentAt.entrySet())) {
            if (now - e.getValue() > settings.ackTimeout().toMillis() * 4) {
                digestSentAt.remove(e.getKey());
                digestExchanges.remove(e.getKey());
                foldedExchanges.remove(e.getKey());
            }
        }
        return this;
    }

    /** Counts a message to another ActorSystem in the per-peer traffic (virtual peers of a simulation are not). */
    private void meter(ActorRef<?> owner, PeerId target, Object message) {
        if (!owner.path().address().hasGlobalScope()) return;
        if (cost == null) cost = new WireCost(ctx.getSystem());
        WireCost c = cost;
        // measuring means serializing again: off the actor's thread
        CompletableFuture.runAsync(() -> stats.traffic.sent(target.value(), c.bytes(message)), io);
    }

    private void retryLater(Pending p, long now, String why) {
        p.attempts++;
        stats.retries.incrementAndGet();
        if (p.attempts >= settings.maxAttempts()) {
            drop(p, "gave up after " + p.attempts + " attempts: " + why);
            return;
        }
        long base = settings.retryMinBackoff().toMillis() << Math.min(20, p.attempts - 1);
        long backoff = Math.min(settings.retryMaxBackoff().toMillis(), base);
        p.nextAt = now + backoff / 2 + env.nextLong(backoff / 2 + 1);
    }

    private void drop(Pending p, String why) {
        forget(p);
        ctx.getLog().debug("dropping batch {} for {}: {}", p.entry.id(), p.entry.target(), why);
        Group g = groups.get(p.group);
        if (g != null) {
            g.failed = true;
            g.open.remove(p.entry.id());
            if (g.open.isEmpty()) groups.remove(p.group);
        }
        updateGauges();
    }

    private Behavior<Command> onStoreAnswered(StoreAnswered m) {
        ShardOwner.StoreReply r = m.reply();
        Pending p = pending.get(r.batchId());
        if (p == null) return this;
        p.inFlight = false;
        long now = env.millis();
        switch (r.outcome()) {
            case STORED -> acknowledged(p);
            case BUSY -> p.nextAt = now + Math.max(1, r.retryAfterMillis());
            case REFUSED -> {
                PeerId target = PeerId.parse(p.entry.target());
                if (!stillHolder(target, p.entry)) drop(p, "refused and no longer a holder: " + r.reason());
                else retryLater(p, now, "refused: " + r.reason());
            }
            case REJECTED -> {
                ctx.getLog().warn("peer {} rejected batch {}: {}", r.by(), r.batchId(), r.reason());
                drop(p, "rejected: " + r.reason());
            }
        }
        return this;
    }

    private boolean stillHolder(PeerId target, Outbox.Entry e) {
        if (view == null || !view.ring().contains(target)) return false;
        for (Posting post : e.pack().postings()) {
            if (!placement.holds(target, placement.partitions().position(post.word(), post.url()), view.ring())) return false;
        }
        for (UrlMetadata md : e.metadata()) {
            if (!placement.metadataHolders(md.urlHash(), view.ring()).contains(target)) return false;
        }
        return true;
    }

    private void acknowledged(Pending p) {
        forget(p);
        stats.acknowledgedBatches.incrementAndGet();
        long id = p.entry.id();
        Group g = groups.get(p.group);
        if (g != null) {
            g.open.remove(id);
            if (g.open.isEmpty()) {
                groups.remove(p.group);
                if (!g.failed) deleteHandedOff(g.deleteAfter);
            }
        }
        updateGauges();
    }

    /** Every new holder acknowledged: now (and only now) the local copies go, if we still do not hold them. */
    private void deleteHandedOff(List<Posting> postings) {
        Ring ring = view.ring();
        Map<PeerId, PeerInfo> peers = view.peers();
        CompletableFuture<Long> done = CompletableFuture.supplyAsync(() -> {
            List<Posting> gone = new ArrayList<>();
            long kept = 0;
            for (Posting p : postings) {
                long position = placement.partitions().position(p.word(), p.url());
                if (placement.holds(self, position, ring)) continue;
                // in the open network: only when the holders that acknowledged sit on distinct address prefixes
                List<PeerInfo> holders = new ArrayList<>();
                for (PeerId h : placement.holders(position, ring)) {
                    PeerInfo i = peers.get(h);
                    if (i != null) holders.add(i);
                }
                if (quorum.satisfied(holders)) gone.add(p);
                else kept++;
            }
            storage.rwi().delete(gone);
            storage.stats().add(0, -gone.size());
            stats.deletedAfterHandoff.addAndGet(gone.size());
            stats.keptAfterHandoff.addAndGet(kept);
            return (long) gone.size();
        }, io);
        ctx.pipeToSelf(done, (n, e) -> new HandoffDeleted(e == null ? n : 0));
    }

    private Behavior<Command> startRebalance(Mode requested) {
        if (view == null || view.ring().isEmpty()) return this;
        if (rebalancing) {
            againMode = rebalanceAgain ? againMode.and(requested) : requested;
            rebalanceAgain = true;
            return this;
        }
        Ring ring = view.ring();
        Mode mode = requested == Mode.DELTA && lastPlanned == null ? Mode.FULL : requested;
        // DELTA: the ring of the last plan and every ring seen since (holders absent from any of them are offered
        // digests); none after an overflow, so that every co-holder is
        List<Ring> bases = new ArrayList<>();
        if (mode == Mode.DELTA && !ringsOverflowed) {
            bases.add(lastPlanned);
            bases.addAll(ringsSincePlan);
        }
        int covered = ringsSincePlan.size();
        boolean overflowed = ringsOverflowed;
        List<PeerId> here = around(ring);
        if (mode == Mode.DELTA && !overflowed
                && bases.stream().allMatch(b -> RebalancePlanner.neighbourhood(self, b, placement.redundancy()).equals(here))) {
            stats.rebalancesSkipped.incrementAndGet();
            ringsSincePlan.subList(0, covered).clear();
            return this;
        }
        rebalancing = true;
        List<Ring> planBases = List.copyOf(bases);
        // the targets that get digests per origin, as they stand now (the plan runs on another thread)
        Set<PeerId> planPerOrigin = Set.copyOf(perOrigin.keySet());
        ctx.pipeToSelf(CompletableFuture.supplyAsync(() -> planner.plan(ring, planBases, mode, planPerOrigin::contains), io),
                (plan, e) -> new Rebalanced(plan, e, mode, overflowed ? -1 : covered));
        return this;
    }

    private Behavior<Command> onRebalanced(Rebalanced m) {
        rebalancing = false;
        stats.repairRounds.incrementAndGet();
        stats.lastRebalanceMillis = env.millis();
        if (m.error() != null) {
            ctx.getLog().warn("rebalance failed: {}", m.error().toString(), m.error());
        } else if (view != null && view.ring().sameMembers(m.plan().ring())) {
            Plan plan = m.plan();
            if (m.mode() != Mode.HELD) {
                lastPlanned = plan.ring();
                // the rings this plan covered are done; rings seen while it was made wait for the next one
                if (m.ringsCovered() < 0) {
                    ringsSincePlan.clear();
                    ringsOverflowed = false;
                } else {
                    ringsSincePlan.subList(0, Math.min(m.ringsCovered(), ringsSincePlan.size())).clear();
                }
            }
            plan.digests().forEach((target, planned) -> view.owner(target).ifPresent(owner -> {
                // one digest a bucket (all origins) unless the target answered such digests without key lists
                // (a plan made before the target turned out to want them per origin sends its folded ones once)
                boolean planFolded = plan.folded().contains(target);
                boolean fold = planFolded || foldsOrigins(target);
                List<RangeDigest> ds = fold && !planFolded ? Digests.foldOrigins(planned, self) : planned;
                for (int i = 0; i < ds.size(); i += settings.maxDigestsPerMessage()) {
                    long ex = ids.incrementAndGet();
                    digestExchanges.put(ex, target);
                    digestSentAt.put(ex, env.millis());
                    if (fold) foldedExchanges.add(ex);
                    wake();
                    ShardOwner.DigestRequest request = new ShardOwner.DigestRequest(ex, self,
                            List.copyOf(ds.subList(i, Math.min(ds.size(), i + settings.maxDigestsPerMessage()))),
                            fold, digestReplies);
                    meter(owner, target, request);
                    owner.tell(request);
                }
            }));
            handoffMore = plan.handoffTruncated();
            if (!plan.handoffPostings().isEmpty()) {
                long group = nextGroup++;
                CompletableFuture<Enqueued> f = CompletableFuture.supplyAsync(() -> {
                    List<Outbox.Entry> entries = new ArrayList<>();
                    plan.handoff().forEach((t, share) ->
                            entries.addAll(Batching.batches(t, share, settings, "handoff", ids::incrementAndGet)));
                    return new Enqueued(outbox.putAll(entries), group, plan.handoffPostings());
                }, io);
                ctx.pipeToSelf(f, (r, e) -> e == null ? r : new Enqueued(List.of(), 0, List.of()));
            }
        } else {
            // the ring moved while we planned
            againMode = rebalanceAgain ? againMode.and(m.mode()) : m.mode();
            rebalanceAgain = true;
        }
        if (rebalanceAgain) {
            Mode again = againMode;
            rebalanceAgain = false;
            againMode = Mode.DELTA;
            return startRebalance(again);
        }
        updateGauges();
        return this;
    }

    private Behavior<Command> onDigestAnswered(DigestAnswered m) {
        ShardOwner.DigestReply r = m.reply();
        PeerId target = digestExchanges.remove(r.exchangeId());
        digestSentAt.remove(r.exchangeId());
        boolean folded = foldedExchanges.remove(r.exchangeId());
        if (target == null || view == null) return this;
        if (!r.error().isEmpty()) {
            ctx.getLog().warn("digest exchange with {} failed: {}", target, r.error());
            return this;
        }
        if (r.differing().isEmpty()) return this;
        if (folded && r.differing().stream().allMatch(d -> d.held() == null)) {
            // it compared our bucket sums per origin (or lists nothing): repairing from this answer would send
            // whole buckets. Digests per origin for a while; this answer is dropped
            if (perOrigin.put(target, env.millis()) == null) {
                ctx.getLog().info("{} answers digests of all origins without key lists: per origin with it", target);
            }
            return this;
        }
        stats.repairRangesDiffering.addAndGet(r.differing().size());
        // gathered until the next tick: the replies of one round then cost one scan instead of one each
        Map<RangeDigest.Range, long[]> ranges = repairWanted.computeIfAbsent(target, k -> new HashMap<>());
        // a target's pending ranges are all of one kind, folded or per origin, as the exchange that found them was;
        // an answer of the other kind (the target just moved between them) replaces them: the next round asks again
        if (repairWantedFolded.contains(target) != folded) ranges.clear();
        if (folded) repairWantedFolded.add(target);
        else repairWantedFolded.remove(target);
        for (RangeDigest.Differing d : r.differing()) ranges.put(d.range(), d.held()); // the newer answer counts
        wake();
        return this;
    }

    /** Whether this peer sends {@code target} one digest a bucket ('p' and 'm' of all origins) rather than one per origin. */
    private boolean foldsOrigins(PeerId target) {
        Long since = perOrigin.get(target);
        if (since == null) return true;
        if (env.millis() - since < PER_ORIGIN_FOR.toMillis()) return false;
        perOrigin.remove(target); // it may have been upgraded since: try again
        return true;
    }

    /** How long a peer that did not list its hashes for digests of all origins gets digests per origin. */
    private static final Duration PER_ORIGIN_FOR = Duration.ofHours(1);

    /** Scans once for every range a digest reply asked for since the last scan, and queues the repairs. */
    private void startRepairs() {
        if (repairPlanning || repairWanted.isEmpty() || view == null) return;
        Map<PeerId, Map<RangeDigest.Range, long[]>> wanted = new TreeMap<>(repairWanted);
        repairWanted.clear();
        // the targets whose 'p' and 'm' ranges are whole buckets (all origins, named by this peer), as their
        // exchanges were: not as this peer would exchange with them now
        Set<PeerId> foldedTargets = new HashSet<>(repairWantedFolded);
        repairWantedFolded.clear();
        repairPlanning = true;
        Ring ring = view.ring();
        boolean active = settings.acceptRemoteIndex();
        ActorRef<Command> me = ctx.getSelf();
        CompletableFuture<Enqueued> f = CompletableFuture.supplyAsync(() -> {
            // each target's share goes to the outbox a few messages at a time while the scan runs, so a repair of
            // a large range never holds that range's postings in heap (the soak found 2 x 240,000 in one plan)
            Spool shares = new Spool(me);
            DhtBlacklist.Outgoing blocked = DhtBlacklist.outgoing(storage);
            // only the buckets some target wants are read (a few short key ranges each), in bucket order
            TreeSet<Integer> wantedBuckets = new TreeSet<>();
            for (Map<RangeDigest.Range, long[]> rs : wanted.values()) {
                for (RangeDigest.Range r : rs.keySet()) if (RangeDigest.isPostings(r.kind())) wantedBuckets.add(r.bucket());
            }
            ReverseWordIndex rwi = storage.rwi();
            IndexScan scan = new IndexScan(placement, ring, self);
            for (int wantedBucket : wantedBuckets) rwi.scanBucket(Digests.BUCKET_BITS, wantedBucket, (key, value) -> {
                long position = rwi.position(key);
                int bucket = Digests.bucketOf(position);
                if ((PostingCodec.flags(value) & Posting.CACHED) != 0) return;
                int at = PostingCodec.holderOffset(value);
                List<PeerId> holders = scan.holders(position);
                // the kind the planner gave it: held here, or this peer's own crawl held elsewhere
                char kind = RangeDigest.postingsKind(active && scan.selfHolds());
                RangeDigest.Range range = new RangeDigest.Range(kind, scan.origin(value, at), bucket);
                RangeDigest.Range bucketRange = RangeDigest.isCrawl(kind) ? range : new RangeDigest.Range(kind, self, bucket);
                Posting p = null;
                long entryHash = 0;
                boolean hashed = false;
                for (Map.Entry<PeerId, Map<RangeDigest.Range, long[]>> w : wanted.entrySet()) {
                    RangeDigest.Range asked = foldedTargets.contains(w.getKey()) ? bucketRange : range;
                    if (!w.getValue().containsKey(asked)) continue;
                    if (!holders.contains(w.getKey())) continue;
                    if (at >= 0 && !(active && scan.selfHolds())) continue;
                    long[] held = w.getValue().get(asked);
                    if (held != null) {
                        if (!hashed) {
                            entryHash = Digests.entryHash(key, ReverseWordIndex.WORD_OFFSET, ReverseWordIndex.URL_OFFSET);
                            hashed = true;
                        }
                        if (heldThere(held, entryHash)) continue;
                    }
                    if (p == null) p = ReverseWordIndex.decode(key, value);
                    if (blocked.blocks(p)) return; // blocked for every target alike
                    shares.posting(w.getKey(), p.holder() == null ? p.withHolder(self) : p);
                }
            });
            boolean[] wantedMetadata = new boolean[Digests.BUCKETS];
            for (Map<RangeDigest.Range, long[]> rs : wanted.values()) {
                for (RangeDigest.Range r : rs.keySet()) if (!RangeDigest.isPostings(r.kind())) wantedMetadata[r.bucket()] = true;
            }
            storage.metadata().scanAll(position -> wantedMetadata[Digests.bucketOf(position)], md -> {
                PeerId origin = scan.origin(md.holder());
                List<PeerId> holders = placement.metadataHolders(md.urlHash(), ring);
                char kind = RangeDigest.metadataKind(active && holders.contains(self));
                RangeDigest.Range range = new RangeDigest.Range(kind, origin, Digests.bucketOfMetadata(md.urlHash()));
                RangeDigest.Range bucketRange = RangeDigest.isCrawl(kind) ? range
                        : new RangeDigest.Range(kind, self, Digests.bucketOfMetadata(md.urlHash()));
                long entryHash = Digests.entryHash(null, md.urlHash());
                for (Map.Entry<PeerId, Map<RangeDigest.Range, long[]>> w : wanted.entrySet()) {
                    RangeDigest.Range asked = foldedTargets.contains(w.getKey()) ? bucketRange : range;
                    if (!w.getValue().containsKey(asked)) continue;
                    if (!holders.contains(w.getKey())) continue;
                    if (heldThere(w.getValue().get(asked), entryHash)) continue;
                    if (blocked.blocks(md)) return; // blocked for every target alike
                    shares.metadata(w.getKey(), md.holder() == null ? ShardOwner.withHolder(md, self.value()) : md);
                }
            });
            stats.blacklistedOutgoing.addAndGet(blocked.dropped());
            return shares.rest();
        }, io);
        ctx.pipeToSelf(f, (res, e) -> {
            if (e != null) ctx.getLog().warn("repair planning failed: {}", e.toString());
            return new RepairsPlanned(e == null ? res : new Enqueued(List.of(), 0, List.of()));
        });
    }

    /** Whether a target's answer lists this entry among those it holds: key-level repair does not send it. */
    private boolean heldThere(long[] held, long entryHash) {
        if (held == null || Arrays.binarySearch(held, entryHash) < 0) return false;
        stats.repairHeldSkipped.incrementAndGet();
        return true;
    }

    /**
     * A repair's shares per target, written to the durable outbox whenever a target's share fills a few messages
     * (each write told to this actor as an {@link Enqueued}); {@link #rest()} writes what is left. Heap: at most a
     * few messages' worth per target, however large the repaired ranges. Used on the index dispatcher only.
     */
    private final class Spool {
        private final ActorRef<Command> me;
        private final Map<PeerId, Batching.Targeted> shares = new TreeMap<>();
        private final int postingsAt = Math.max(1, settings.maxPostingsPerMessage()) * SPOOL_MESSAGES;
        private final int metadataAt = Math.max(1, settings.maxMetadataPerMessage()) * SPOOL_MESSAGES;

        Spool(ActorRef<Command> me) {
            this.me = me;
        }

        void posting(PeerId target, Posting p) {
            Batching.Targeted t = shares.computeIfAbsent(target, k -> new Batching.Targeted());
            t.postings.add(p);
            if (t.postings.size() >= postingsAt) flush(target, t);
        }

        void metadata(PeerId target, UrlMetadata md) {
            Batching.Targeted t = shares.computeIfAbsent(target, k -> new Batching.Targeted());
            t.metadata.add(md);
            if (t.metadata.size() >= metadataAt) flush(target, t);
        }

        private void flush(PeerId target, Batching.Targeted t) {
            List<Outbox.Entry> entries = Batching.batches(target, t, settings, "repair", ids::incrementAndGet);
            shares.remove(target);
            me.tell(new Enqueued(outbox.putAll(entries), 0, List.of()));
        }

        Enqueued rest() {
            List<Outbox.Entry> entries = new ArrayList<>();
            shares.forEach((target, share) ->
                    entries.addAll(Batching.batches(target, share, settings, "repair", ids::incrementAndGet)));
            shares.clear();
            return new Enqueued(outbox.putAll(entries), 0, List.of());
        }
    }

    /** Messages' worth of postings (or metadata) a repair keeps per target before writing them to the outbox. */
    private static final int SPOOL_MESSAGES = 4;
}
