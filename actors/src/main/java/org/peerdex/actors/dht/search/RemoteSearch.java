package org.peerdex.actors.dht.search;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.util.Timeout;
import org.peerdex.actors.Dispatchers;
import org.peerdex.actors.dht.DhtEnvironment;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.LocalOnly;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.WireCost;
import org.peerdex.actors.dht.ring.LatestView;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.actors.dht.shard.PartialScore;
import org.peerdex.actors.dht.shard.PostingValidator;
import org.peerdex.actors.dht.shard.ScoreList;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.actors.dht.shard.WordPart;
import org.peerdex.protocol.filter.BloomFilter;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.protocol.wire.PresenceTable;
import org.peerdex.protocol.wire.PrefixScores;
import org.peerdex.protocol.wire.UrlPrefixes;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * One global lookup (one actor per query): only word hashes leave the peer. For every word and partition one of
 * the R holders is asked (chosen by query id, so load spreads; on timeout the next holder is asked). One word:
 * the best postings of every partition by {@link PartialScore}, as many as the search wants when it ranks as the
 * holders do, else top-k. Several words: counts first (each word's document
 * frequency, reported as {@link Counted}); then, per partition, the rarest word's holder sends a Bloom filter over
 * its URL hashes, the other words' holders return only postings passing it (as many as the filter lets through,
 * at least top-k, at most a message's bound), and the rarest word's holder returns its postings for the exact
 * surviving URL set; so whole posting lists never travel. With top lookups (long lists: each word's best as
 * scores, completed by exact URL sets, Fagin's threshold test) and scored filters (many matches: the filters answered
 * with scores), only the query's best 32 × limit URLs by the weighted sum of scores get their postings (docs/protocol.md,
 * "Top lookups", "Scored filters"). URL metadata is fetched once per URL for the best
 * {@code limit} candidates by the caller's {@link CandidateOrder}, batched per holder; with
 * {@link DhtSettings#confirmPostings()} their postings are at the same time asked of another holder of each
 * (word, partition), by exact URL, and a candidate is kept only when every word's posting is confirmed by a holder
 * that did not send it (one refuted is replaced by the next best). Results arrive as
 * {@link Found} events, then one {@link Finished} with the network cost; remote postings are cached locally
 * with a TTL. Requests go to ShardOwner refs from the {@link PeerView}, so any transport works.
 * <p>Hand-off: right after a ring change a new holder may not have received its copies yet and would answer
 * "nothing" for a key it does hold. When the holder chosen for a key was not a holder under one of the rings of
 * the recent past ({@code previousRings}, the longest-standing first), the key is also asked of two live peers
 * that held it under those rings (a failed one is replaced by the next), and the answers are merged (counts: the
 * larger; filters: the one over more postings; postings: the union). {@link Cost#handoffRequests()} counts these extra requests.
 */
public final class RemoteSearch extends AbstractBehavior<RemoteSearch.Command> {
    public sealed interface Command {}

    /**
     * What to look up: word hashes (query terms, already hashed), how many candidates are wanted, and how the
     * querying peer ranks them (null: by partial score), which decides the {@code limit} that get metadata.
     */
    public record Request(List<WordHash> words, int limit, CandidateOrder order) {
        public Request {
            words = List.copyOf(new LinkedHashSet<>(words));
            if (words.isEmpty()) throw new IllegalArgumentException("a lookup needs at least one word");
            if (limit < 1) throw new IllegalArgumentException("limit must be positive");
        }

        public Request(List<WordHash> words, int limit) {
            this(words, limit, null);
        }
    }

    /**
     * The querying peer's ranking of joined candidates, given each word's document frequency (its holders'
     * counts summed over the partitions): the best {@code limit} by it get metadata, so a cut by another score
     * cannot drop what the peer would rank on top.
     */
    public interface CandidateOrder {
        Comparator<RemoteCandidate> bestFirst(Map<WordHash, Long> documentFrequency);

        /**
         * Whether, for a one-word query, this order is the holders' own ({@link PartialScore}, the default
         * profile's one-word score): then a holder's best {@code limit} of a partition hold every one of the
         * network's best {@code limit} that lives there, and a one-word lookup asks for no more.
         */
        default boolean oneWordAsHolders() {
            return false;
        }

        /**
         * What each word's partial score weighs in this order, given the document frequencies (the query's idf):
         * top lookups rank a partition's URLs by the weighted sum. Null: every word weighs the same.
         */
        default Map<WordHash, Double> weights(Map<WordHash, Long> documentFrequency) {
            return null;
        }

        /**
         * The caller's score of a candidate with every word's posting under this order, given the document
         * frequencies; null when it gives none (then the top lookups' best by their sums get postings by count).
         */
        default ToDoubleFunction<RemoteCandidate> scores(Map<WordHash, Long> documentFrequency) {
            return null;
        }

        /**
         * How far above the sum of its postings' word parts ({@link org.peerdex.actors.dht.shard.WordPart}) this
         * order may score a candidate; NaN when the parts bound nothing for it (another profile, media).
         */
        default double wordPartsSlack() {
            return Double.NaN;
        }
    }

    /** What a search's caller receives. */
    public sealed interface Event {}

    /**
     * Each word's document frequency, from its holders' counts summed over the partitions (once, before the
     * first {@link Found}; missing when no holder answered).
     */
    public record Counted(Map<WordHash, Long> documentFrequency) implements Event {
        public Counted {
            documentFrequency = Map.copyOf(documentFrequency);
        }
    }

    /** Candidates with their metadata, as they resolve (several events per query). */
    public record Found(List<RemoteCandidate> candidates) implements Event {}

    /** The end: every candidate found (best first), the cost, and whether every key was answered. */
    public record Finished(List<RemoteCandidate> candidates, Cost cost, boolean complete) implements Event {}

    /** A URL containing every word: its postings in request word order, its metadata (or null), who answered. */
    public record RemoteCandidate(UrlHash url, List<Posting> postings, UrlMetadata metadata, PeerId from) {
        public double partialScore() {
            double s = 0;
            for (Posting p : postings) s += PartialScore.of(p);
            return s;
        }
    }

    /**
     * Network cost of one lookup. {@code rejectedMetadata}: records holders sent that PostingValidator refused.
 * {@code confirmRequests}: requests to second holders; {@code refuted}: candidates dropped because no other holder
 * had one of their postings.
     * {@code naiveBytes}: what shipping every word's whole posting list would have
     * cost, from the counts the holders reported and the measured bytes per posting.
     */
    public record Cost(int peersAsked, int peersAnswered, long messages, long bytes, long naiveBytes,
                       long firstResultMillis, long elapsedMillis, int timeouts, int handoffRequests,
                       int rejectedMetadata, int confirmRequests, int refuted, Map<String, Traffic> byKind) {
        public Cost {
            byKind = Map.copyOf(byKind);
        }
    }

    /** Messages and bytes of one kind of exchange (requests and replies, to and from other peers). */
    public record Traffic(long messages, long bytes) {
        Traffic plus(long m, long b) {
            return new Traffic(messages + m, bytes + b);
        }
    }

    /** Best partial score first; ties by URL hash, so the order does not depend on reply order. */
    static final Comparator<RemoteCandidate> BEST_FIRST = Comparator
            .comparingDouble(RemoteCandidate::partialScore).reversed().thenComparing(RemoteCandidate::url);

    private record Replied(long requestId, Object reply) implements Command, LocalOnly {}

    /** A confirmation request: per key, the URLs asked of one other holder; the table it was asked as (or null). */
    private record Confirming(PeerId peer, Map<RangeKey, List<UrlHash>> asked, PresenceTable table) {}


    private record TimedOut(long requestId) implements Command, LocalOnly {}

    private enum Deadline implements Command, LocalOnly { INSTANCE }

    private enum Phase { JOIN, TOP, COMPLETE, FULL, COUNT, FILTER, FILTERED, RAREST, METADATA, DONE }

    /**
     * An outstanding request: to whom, for which keys, which attempt; {@code extra} ≥ 0 for a hand-off request
     * (the index into its keys' previous holders, the next is asked when this one fails), -1 otherwise.
     */
    private record Outstanding(PeerId peer, List<RangeKey> keys, List<UrlHash> urls, int attempt, int extra,
                               String kind) {
        Outstanding(PeerId peer, List<RangeKey> keys, List<UrlHash> urls, int attempt, String kind) {
            this(peer, keys, urls, attempt, -1, kind);
        }

        boolean isExtra() {
            return extra >= 0;
        }
    }

    private final ActorContext<Command> ctx;
    private final TimerScheduler<Command> timers;
    private final Request request;
    private final PeerView view;
    private final List<Ring> previousRings;
    private final Placement placement;
    private final DhtSettings settings;
    private final PeerStorage cache;
    private final ActorRef<Event> replyTo;
    private final WireCost cost;
    private final long queryId;
    private final DhtEnvironment env;
    private final long started;
    private final Executor cacheWrites;
    private final Map<Long, Outstanding> outstanding = new HashMap<>();
    private final Set<PeerId> asked = new HashSet<>();
    private final Set<PeerId> answered = new HashSet<>();
    private long nextRequest = 1;
    private long messages;
    private long bytes;
    /** per kind of exchange (count, filter, lookup, rarest, metadata, confirm), what {@code messages} and {@code bytes} add up */
    private final Map<String, Traffic> byKind = new LinkedHashMap<>();
    private long postingBytes;
    private long postingsReceived;
    private long totalPostingsCounted;
    private long firstResult = -1;
    private int timeouts;
    private int handoffRequests;
    /** metadata records from holders dropped by PostingValidator (not http(s), another hash, malformed) */
    private int rejectedMetadata;
    private boolean incomplete;
    private Phase phase;
    private final Map<RangeKey, Integer> counts = new HashMap<>();
    /** one word: per key, how many postings its holder matched (the larger of two during hand-off) */
    private final Map<RangeKey, Integer> matched = new HashMap<>();
    private Map<WordHash, Long> documentFrequency = Map.of();
    private final Map<Integer, BloomFilter> filters = new HashMap<>();
    private final Map<Integer, Integer> filterCounts = new HashMap<>();
    /** per key of the current phase: the live previous holders to ask during hand-off, in order */
    private final Map<RangeKey, List<PeerId>> previousHolders = new HashMap<>();
    private final Map<Integer, WordHash> rarest = new HashMap<>();
    private final Map<RangeKey, List<Posting>> postings = new HashMap<>();
    private final Map<UrlHash, PeerId> answeredBy = new HashMap<>();
    private final Map<UrlHash, RemoteCandidate> candidates = new LinkedHashMap<>();
    private final Map<UrlHash, UrlMetadata> metadata = new HashMap<>();
    /** per key and URL, the peers whose lookup replies carried that posting (a confirmation comes from another) */
    private final Map<RangeKey, Map<UrlHash, Set<PeerId>>> sentBy = new HashMap<>();
    /** per key and URL being confirmed: how many other holders have yet to answer */
    private final Map<RangeKey, Map<UrlHash, Integer>> pendingAnswers = new HashMap<>();
    /** per key, its holders in the order confirmations ask them */
    private final Map<RangeKey, List<PeerId>> confirmOrder = new HashMap<>();
    /** confirmation requests in flight (their own ids; replies and timeouts are told apart by them) */
    private final Map<Long, Confirming> confirming = new HashMap<>();
    /** per candidate, the (word, partition) keys whose postings still wait for a second holder */
    private final Map<UrlHash, Set<RangeKey>> unconfirmed = new HashMap<>();
    /** candidates past the best {@code limit}, best first: they replace refuted ones */
    private final List<RemoteCandidate> reserve = new ArrayList<>();
    private int confirmRequests;
    private int refuted;

    /** A lookup over a settled ring (no hand-off requests); see the other {@code create}. */
    public static Behavior<Command> create(Request request, PeerView view, Placement placement, DhtSettings settings,
                                           PeerStorage cache, ActorRef<Event> replyTo) {
        return create(request, view, List.of(), placement, settings, cache, replyTo);
    }

    /**
     * @param previousRings the rings current shortly before {@code view}'s, the longest-standing first
     *                      ({@link LatestView#recentRings}); empty: the ring is settled
     * @param cache         where remote results are cached with a TTL (null: don't cache)
     */
    public static Behavior<Command> create(Request request, PeerView view, List<Ring> previousRings,
                                           Placement placement, DhtSettings settings, PeerStorage cache,
                                           ActorRef<Event> replyTo) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
                new RemoteSearch(ctx, timers, request, view, previousRings, placement, settings, cache, replyTo)));
    }

    private RemoteSearch(ActorContext<Command> ctx, TimerScheduler<Command> timers, Request request, PeerView view,
                         List<Ring> previousRings, Placement placement, DhtSettings settings,
                         PeerStorage cache, ActorRef<Event> replyTo) {
        super(ctx);
        this.ctx = ctx;
        this.timers = timers;
        this.request = request;
        this.view = view;
        this.previousRings = List.copyOf(previousRings);
        this.placement = placement;
        this.settings = settings;
        this.cache = cache;
        this.replyTo = replyTo;
        this.cost = new WireCost(ctx.getSystem());
        this.env = DhtEnvironment.get(ctx.getSystem());
        this.started = env.millis();
        this.queryId = env.nextLong(Long.MAX_VALUE);
        this.cacheWrites = Dispatchers.index(ctx.getSystem());
        timers.startSingleTimer(Deadline.INSTANCE, settings.searchTimeout());
        if (view.ring().isEmpty()) {
            phase = Phase.DONE;
            ctx.getSelf().tell(Deadline.INSTANCE);
        } else if ((joinOrder = joinPlan()) != null) {
            phase = Phase.JOIN;
            dispatchJoin(new ArrayList<>(joinOrder.keySet()), 0);
        } else if (request.words().size() == 1) {
            phase = Phase.FILTERED;
            List<RangeKey> keys = new ArrayList<>();
            for (int p = 0; p < placement.partitions().count(); p++) keys.add(new RangeKey(request.words().get(0), p));
            dispatch(keys, null, 0);
        } else {
            List<Integer> all = new ArrayList<>();
            for (int p = 0; p < placement.partitions().count(); p++) all.add(p);
            startMatching(all);
        }
    }

    /** The older way for these partitions of a multi-word query: counts first. */
    private void startMatching(Collection<Integer> partitions) {
        phase = Phase.COUNT;
        matching = List.copyOf(partitions);
        List<RangeKey> keys = new ArrayList<>();
        for (WordHash w : request.words()) for (int p : partitions) keys.add(new RangeKey(w, p));
        dispatch(keys, null, 0);
    }

    /** Top lookups of these partitions' keys, {@code round} 0 or (for those the first left open) 1, deeper. */
    private void startTop(List<Integer> partitions, int round) {
        phase = Phase.TOP;
        topRound = round;
        topPartitions = List.copyOf(partitions);
        if (round == 0) topRanked = topPartitions;
        List<RangeKey> keys = new ArrayList<>();
        for (WordHash w : request.words()) {
            for (int p : partitions) {
                RangeKey k = new RangeKey(w, p);
                top.frontier.remove(k); // a deeper round's frontier replaces the first's
                CountedTop given = round == 0 ? topsWithCounts.remove(k) : null;
                if (given == null || !takeTop(k, given)) keys.add(k);
            }
        }
        dispatch(keys, null, 0);
    }

    /**
     * Whether the counts ask for the first round's top lookups at once ({@link ShardOwner.CountRequest#tops}): with
     * top lookups keyed by prefix and without word parts (a part depends on the counts themselves).
     */
    private boolean topsWithCounts() {
        return settings.countTops() && settings.topLookups() && !settings.wordParts() && prefixIds();
    }

    /** A first round's top lookup answered with a key's count: who sent it, and the answer. */
    private record CountedTop(PeerId peer, ShardOwner.KeyPostings answer) {}

    /** per key, the top lookup its count's holder sent with the count, until the first round takes it */
    private final Map<RangeKey, CountedTop> topsWithCounts = new HashMap<>();
    /** the keys whose counts were asked of previous holders too (hand-off) */
    private final Set<RangeKey> countedByHandoff = new HashSet<>();

    /**
     * Takes a key's top lookup that came with its count as the first round's answer, as a top reply is taken;
     * false when its list is malformed (then the key is asked as before).
     */
    private boolean takeTop(RangeKey k, CountedTop given) {
        if (given.answer().scoreCount() > topDepth(0)) return false; // more than asked: asked again
        List<ScoreList.Entry> es;
        try {
            es = scoresOf(given.answer(), null);
        } catch (IllegalArgumentException e) {
            return false;
        }
        tookTop(k, es, given.answer(), given.peer());
        return true;
    }

    /**
     * A key's top lookup answered, in this round, by {@code from} (null: a hand-off holder, whose ranks are not
     * skipped later): its list and count are taken, and how far down that holder's ranking the searcher now has it (a
     * holder that predates skips sent its best whole: those ranks came again).
     */
    private void tookTop(RangeKey k, List<ScoreList.Entry> es, ShardOwner.KeyPostings kp, PeerId from) {
        top.bestScores(k, es, kp.truncated());
        countAtLeast(k, Math.max(0, kp.matched()));
        if (from == null) return;
        int listed = kp.scoreCount();
        int skipped = listed >= topDepth(topRound) ? 0 : skipFor(k, from);
        topAnswers.put(k, new TopAnswer(from, skipped + listed));
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Replied.class, this::onReplied)
                .onMessage(TimedOut.class, this::onTimedOut)
                .onMessage(Deadline.class, m -> finish())
                .build();
    }

    // ---- sending

    // ---- join lookups: one holder of every word of a partition joins it

    /** per partition, the holders that hold every word of the query there, in the order they are asked */
    private Map<Integer, List<PeerId>> joinOrder;
    /**
     * Partitions no holder answered a join lookup for (each failed, timed out, or answered only its key's own word,
     * as a peer that predates join lookups does): the counts, filters and exact URL sets run for them after the join
     * phase, so a network with older peers gets complete answers. Null while none.
     */
    private Set<Integer> fallback;

    /**
     * With {@link DhtSettings#joinLookups()}: per partition, the live peers that hold the key of every word of the
     * query there and need no hand-off for any of them (they held them under every recent ring), the first to ask
     * first: this peer where it is one (answered at no cost), then, greedily, the peer that covers the most
     * partitions not covered yet (ties by a rotation on the query id, so load spreads), so each holder gets one
     * request for all its partitions. Null when some partition has no such holder: then the counts, filters and
     * exact URL sets are used.
     */
    private Map<Integer, List<PeerId>> joinPlan() {
        if (!settings.joinLookups()) return null;
        int partitions = placement.partitions().count();
        Map<Integer, List<PeerId>> common = new LinkedHashMap<>();
        for (int p = 0; p < partitions; p++) {
            List<PeerId> both = null;
            for (WordHash w : request.words()) {
                RangeKey k = new RangeKey(w, p);
                List<PeerId> hs = new ArrayList<>();
                for (PeerId h : view.holders(k, placement)) {
                    if (view.owner(h).isPresent() && previousHolders(k, h).isEmpty()) hs.add(h);
                }
                if (both == null) both = hs;
                else both.retainAll(hs);
            }
            if (both == null || both.isEmpty()) return null;
            both.sort(Comparator.comparingLong(h -> Math.floorMod(h.hashCode() * 31L + queryId, 1_000_003L)));
            common.put(p, both);
        }
        Map<Integer, PeerId> first = new HashMap<>();
        for (var e : common.entrySet()) if (e.getValue().contains(view.self())) first.put(e.getKey(), view.self());
        while (first.size() < partitions) {
            Map<PeerId, Integer> covers = new LinkedHashMap<>();
            for (var e : common.entrySet()) {
                if (first.containsKey(e.getKey())) continue;
                for (PeerId h : e.getValue()) covers.merge(h, 1, Integer::sum);
            }
            PeerId best = null;
            for (var e : covers.entrySet()) if (best == null || e.getValue() > covers.get(best)) best = e.getKey();
            for (var e : common.entrySet()) {
                if (!first.containsKey(e.getKey()) && e.getValue().contains(best)) first.put(e.getKey(), best);
            }
        }
        Map<Integer, List<PeerId>> out = new LinkedHashMap<>();
        common.forEach((p, hs) -> {
            List<PeerId> order = new ArrayList<>(hs.size());
            order.add(first.get(p));
            for (PeerId h : hs) if (!h.equals(first.get(p))) order.add(h);
            out.put(p, order);
        });
        return out;
    }

    /** Join lookups of these partitions, each to its {@code attempt}-th holder, one request per holder. */
    private void dispatchJoin(List<Integer> partitions, int attempt) {
        Map<PeerId, List<RangeKey>> byPeer = new LinkedHashMap<>();
        for (int p : partitions) {
            List<PeerId> order = joinOrder.get(p);
            if (attempt >= order.size()) {
                if (request.words().size() < 2) incomplete = true; // a one-word join is a plain lookup: nothing older to try
                else (fallback == null ? fallback = new TreeSet<>() : fallback).add(p);
                continue;
            }
            for (WordHash w : request.words()) byPeer.computeIfAbsent(order.get(attempt), x -> new ArrayList<>()).add(new RangeKey(w, p));
        }
        sendAll(byPeer, null, attempt, -1);
    }

    /** The partitions of these keys, each once. */
    private static List<Integer> partitionsOf(List<RangeKey> keys) {
        return new ArrayList<>(new LinkedHashSet<>(keys.stream().map(RangeKey::partition).toList()));
    }

    /**
     * How many joined URLs a holder of {@code partitions} of all the partitions sends at most, over all of them. The
     * search wants the best {@code 2 × limit} joined URLs of the whole network (twice the candidates it fetches
     * metadata for: a holder ranks by the sum of one-word partial scores, the querying peer by its own score). A
     * URL's partition is its hash's, independent of its score, so about that many times the holder's share of the
     * partitions are among its URLs: it is asked for that plus two standard deviations and one, at most all, within a
     * message's bound of postings.
     */
    private int joinLimit(int partitions) {
        int wanted = 2 * request.limit();
        double expected = (double) wanted * partitions / placement.partitions().count();
        int limit = (int) Math.ceil(expected + 2 * Math.sqrt(expected) + 1);
        return Math.max(1, Math.min(Math.min(wanted, limit), settings.maxPostingsPerMessage() / request.words().size()));
    }

    private PeerId holderFor(RangeKey key, int attempt) {
        List<PeerId> holders = view.holders(key, placement);
        if (holders.isEmpty() || attempt >= holders.size()) return null;
        int start = (int) Math.floorMod(queryId + key.partition() * 7L + key.word().hashCode(), (long) holders.size());
        return holders.get((start + attempt) % holders.size());
    }

    /**
     * During hand-off: the live peers that held this key under the recent rings (the longest-standing ring
     * first), when the chosen holder was not a holder under that ring (it may not have its copy yet); empty when
     * no extra request is needed. Some may be dead without being out of the view yet: they are tried in order.
     */
    private List<PeerId> previousHolders(RangeKey key, PeerId chosen) {
        if (previousRings.isEmpty()) return List.of();
        long position = key.position(placement.partitions());
        // a holder under every recent ring had every copy all along; one that was not, under any of them (not just
        // the longest-standing: under load a ring of peers still starting can outlast the full one), may lack some
        boolean heldThroughout = true;
        for (var ring : previousRings) heldThroughout &= placement.holders(position, ring).contains(chosen);
        if (heldThroughout) return List.of();
        LinkedHashSet<PeerId> out = new LinkedHashSet<>();
        for (var ring : previousRings) {
            for (PeerId h : placement.holders(position, ring)) {
                if (!h.equals(chosen) && view.peers().containsKey(h)) out.add(h);
            }
        }
        return List.copyOf(out);
    }

    /**
     * Groups keys by the holder chosen for this attempt and sends one request per holder; keys whose chosen holder
     * is new since a recent ring change also go to a previous holder.
     */
    private void dispatch(List<RangeKey> keys, Map<RangeKey, List<UrlHash>> urlSets, int attempt) {
        Map<PeerId, List<RangeKey>> byPeer = new LinkedHashMap<>();
        List<RangeKey> handoff = new ArrayList<>();
        for (RangeKey k : keys) {
            PeerId h = holderFor(k, attempt);
            if (h == null) {
                incomplete = true;
                continue;
            }
            byPeer.computeIfAbsent(h, x -> new ArrayList<>()).add(k);
            List<PeerId> before = previousHolders(k, h);
            if (!before.isEmpty()) {
                previousHolders.put(k, before);
                handoff.add(k);
            }
        }
        if (phase == Phase.COUNT) countedByHandoff.addAll(handoff);
        sendAll(byPeer, urlSets, attempt, -1);
        for (int i = 0; i < HANDOFF_FANOUT; i++) dispatchExtra(handoff, urlSets, i);
    }

    /**
     * Previous holders asked at once per key during hand-off: the first may be one that was itself new under the
     * ring it held the key in; a failed one is replaced by the next not yet asked.
     */
    private static final int HANDOFF_FANOUT = 2;

    /** Hand-off requests: each key to its {@code index}-th previous holder. */
    private void dispatchExtra(List<RangeKey> keys, Map<RangeKey, List<UrlHash>> urlSets, int index) {
        Map<PeerId, List<RangeKey>> byPeer = new LinkedHashMap<>();
        for (RangeKey k : keys) {
            List<PeerId> before = previousHolders.getOrDefault(k, List.of());
            if (index < before.size()) byPeer.computeIfAbsent(before.get(index), x -> new ArrayList<>()).add(k);
        }
        sendAll(byPeer, urlSets, 0, index);
    }

    private void sendAll(Map<PeerId, List<RangeKey>> byPeer, Map<RangeKey, List<UrlHash>> urlSets, int attempt,
                         int extra) {
        byPeer.forEach((peer, ks) -> {
            for (int i = 0; i < ks.size(); i += settings.maxKeysPerRequest()) {
                send(peer, ks.subList(i, Math.min(ks.size(), i + settings.maxKeysPerRequest())), urlSets, attempt, extra);
            }
        });
    }

    private void send(PeerId peer, List<RangeKey> keys, Map<RangeKey, List<UrlHash>> urlSets, int attempt,
                      int extra) {
        var owner = view.owner(peer);
        if (owner.isEmpty()) return;
        long id = nextRequest++;
        if (extra >= 0) handoffRequests++;
        outstanding.put(id, new Outstanding(peer, List.copyOf(keys), null, attempt, extra,
                (extra >= 0 ? "handoff-" : "") + phase.name().toLowerCase(java.util.Locale.ROOT)));
        switch (phase) {
            case COUNT -> {
                int tops = extra < 0 && topsWithCounts() ? topDepth(0) : 0;
                ask(id, peer, owner.get(), ShardOwner.CountReply.class,
                        r -> new ShardOwner.CountRequest(queryId, List.copyOf(keys), r, tops));
            }
            case FILTER -> {
                int bits = filterBits(keys);
                ask(id, peer, owner.get(), ShardOwner.FilterReply.class,
                        r -> new ShardOwner.FilterRequest(queryId, List.copyOf(keys), bits, r));
            }
            case JOIN -> {
                // one join lookup a partition, the words named once; the answers come as one table (URLs once a
                // partition, no frame a key)
                List<Integer> partitions = partitionsOf(keys);
                ShardOwner.Joins joins = new ShardOwner.Joins(request.words(), partitions,
                        joinLimit(partitions.size()));
                ask(id, peer, owner.get(), ShardOwner.LookupReply.class,
                        r -> ShardOwner.LookupRequest.joins(queryId, joins, r));
            }
            default -> {
                boolean byPrefixes = settings.urlPrefixes() && !unprefixed.contains(peer);
                List<ShardOwner.Lookup> ls = lookups(peer, keys, urlSets, byPrefixes, !unscored.contains(peer));
                Set<RangeKey> byPrefix = new HashSet<>();
                for (ShardOwner.Lookup l : ls) if (l.prefixes() != null) byPrefix.add(l.key());
                if (!byPrefix.isEmpty()) prefixedRequests.put(id, byPrefix);
                if (ls.stream().anyMatch(l -> l.scores() && l.filter() != null)) scoredRequests.add(id);
                // keyed by prefix: score lists by prefix too (a holder that does not read prefixes sends whole hashes)
                boolean prefixScores = top.keyedByPrefix() && ls.stream().anyMatch(ShardOwner.Lookup::scores);
                ask(id, peer, owner.get(), ShardOwner.LookupReply.class,
                        r -> new ShardOwner.LookupRequest(queryId, ls, r, true, false, null, null, prefixScores));
            }
        }
    }

    /**
     * One request through a temporary reply ref (Pekko's ask): replies stay attributable, timeouts come back.
     * The scaladsl ask pipes the reply to this actor on the replying thread; the javadsl one goes through a
     * CompletionStage whose callbacks always hop to the common pool (an extra thread hop per reply, and a source
     * of nondeterminism in simulated time).
     */
    private <R> void ask(long id, PeerId peer, ActorRef<ShardOwner.Command> owner, Class<R> type,
                         Function<ActorRef<R>, ShardOwner.Command> make) {
        asked.add(peer);
        boolean remote = !peer.equals(view.self());
        String kind = kindOf(id);
        scala.Function1<ActorRef<R>, ShardOwner.Command> request = ref -> {
            ShardOwner.Command msg = make.apply(ref);
            if (remote) tally(kind, msg);
            return msg;
        };
        scala.Function1<scala.util.Try<R>, Command> response = t -> t.isSuccess() ? new Replied(id, t.get())
                : new TimedOut(id);
        ctx.asScala().ask(owner, request, response, Timeout.create(settings.lookupTimeout()),
                scala.reflect.ClassTag$.MODULE$.apply(type));
    }

    /** Counts one message to or from another peer, in all and under its kind. */
    private void tally(String kind, Object message) {
        long b = cost.bytes(message);
        messages++;
        bytes += b;
        byKind.merge(kind, new Traffic(1, b), (x, y) -> x.plus(y.messages(), y.bytes()));
    }

    /** The kind of exchange a request id belongs to. */
    private String kindOf(long id) {
        if (confirming.containsKey(id)) return "confirm";
        Outstanding o = outstanding.get(id);
        if (o == null) return "other";
        return o.kind();
    }

    /**
     * How many of a one-word query's postings each partition's holder sends: when the querying peer ranks as the
     * holders do (no order given, or {@link CandidateOrder#oneWordAsHolders}), the {@code limit} wanted, since no
     * partition can hold more of the network's best {@code limit} than that and each holder sends its own best;
     * otherwise top-k, as a margin for an order the holders cannot rank by. At most top-k either way.
     */
    private int oneWordLimit() {
        boolean alike = request.order() == null || request.order().oneWordAsHolders();
        return alike ? Math.min(settings.topK(), request.limit()) : settings.topK();
    }

    /**
     * Bits per URL of the rarest words' filters of these keys (one request's): at least the configured
     * {@code bloom-bits-per-element}, more where the other words' lists are long, since each false positive brings a
     * posting of another word (some 35 bytes), while each bit costs the rarest word's count over 8 bytes once per
     * word (the filter comes from the rarest word's holder and goes to each other word's). With a false positive rate
     * of 0.6185 to the bits (optimal hash count), the bytes are least at
     * {@code 0.6185^b = words × n / (8 ln(1/0.6185) × 35 × others)}; at most 32 bits (what a holder accepts).
     * Simulated (10,000 peers, 100,000 documents, 2-3-word queries): the median query from 54,904 bytes to 43,587
     * at the same recall (43,580 counting the filter once); see docs/simulations.md, "Bytes per query at scale".
     */
    private int filterBits(List<RangeKey> keys) {
        int bits = settings.bloomBitsPerElement();
        for (RangeKey k : keys) {
            long n = Math.max(1, counts.getOrDefault(k, 0));
            long others = 0;
            for (WordHash w : request.words()) {
                if (!w.equals(k.word())) others += counts.getOrDefault(new RangeKey(w, k.partition()), 0);
            }
            if (others == 0) continue;
            double perFalse = !scoredFilters.contains(k.partition()) ? FILTERED_POSTING_BYTES
                    : top.keyedByPrefix() ? PrefixScores.TYPICAL_ENTRY_BYTES : ScoreList.ENTRY_BYTES;
            bits = Math.max(bits, leastBytesBits((double) request.words().size() * n, others, perFalse));
        }
        return bits;
    }

    /**
     * A completion asked as a scored filter: a Bloom filter over the URLs asked, the holder answering with the scores
     * of its URLs that pass it (the asker keeps those it asked), when that costs less than their prefixes (4.5 bytes
     * a URL). The bits minimize the filter's bytes plus its false positives' entries (11 bytes each, at the rate
     * 0.6185^bits over the key's count); the limit leaves room for three times the false positives expected. Null
     * when the prefixes are cheaper or the key's count is not known.
     */
    private ShardOwner.Lookup completionFilter(RangeKey key, List<UrlHash> urls, boolean byPrefix) {
        long n = counts.getOrDefault(key, 0);
        int m = urls.size();
        if (n <= 0 || m < MIN_COMPLETION_FILTER) return null;
        double entry = byPrefix ? PrefixScores.TYPICAL_ENTRY_BYTES : ScoreList.ENTRY_BYTES;
        int bits = Math.max(settings.bloomBitsPerElement(), leastBytesBits(m, n, entry));
        double falsePositives = n * Math.pow(0.6185, bits);
        // a filter's longs cost up to 9 bytes each in CBOR
        double filterBytes = Math.ceil(Math.max(64.0, (double) m * bits) / 64) * 9 + 8;
        int limit = (int) Math.min(settings.maxPostingsPerMessage(), m + Math.ceil(3 * falsePositives) + 8);
        if (limit < m + 2 * falsePositives) return null;
        if (filterBytes + falsePositives * entry >= m * UrlPrefixes.BYTES_PER_URL) return null;
        List<String> hashes = new ArrayList<>(m);
        // URLs known by prefix: a filter over the prefixes, which the holder tests with its URLs' prefixes
        for (UrlHash u : urls) hashes.add(byPrefix ? UrlPrefixes.of(u.value()) : u.value());
        BloomFilter f = BloomFilter.of(hashes, bits);
        return byPrefix ? ShardOwner.Lookup.prefixFilteredScores(key, f, limit)
                : ShardOwner.Lookup.filteredScores(key, f, limit);
    }

    /**
     * The bits a URL of a Bloom filter that cost the least, at most 32 (what a holder accepts): the filter costs
     * {@code carried} URLs' bits over 8 bytes (its URLs times the legs it travels), and each of the {@code checked}
     * entries tested against it passes by mistake at 0.6185^bits (optimal hash count) and costs {@code perFalse}
     * bytes; the sum is least at {@code 0.6185^b = carried / (8 ln(1/0.6185) × perFalse × checked)}.
     */
    private static int leastBytesBits(double carried, double checked, double perFalse) {
        double best = Math.log(carried / (8 * Math.log(1 / 0.6185) * perFalse * checked)) / Math.log(0.6185);
        return (int) Math.min(32, Math.ceil(best));
    }

    /** Completions of fewer URLs than this go by prefixes (a filter's frame costs more than it saves). */
    private static final int MIN_COMPLETION_FILTER = 16;

    /** What a posting of a filtered lookup's answer costs, about (a keyed pack's posting). */
    private static final double FILTERED_POSTING_BYTES = 35;

    /** A key's postings for exactly these URLs (those the holder has). */
    private static ShardOwner.Lookup exactLookup(RangeKey key, List<UrlHash> urls) {
        return new ShardOwner.Lookup(key, null, urls, Math.max(1, urls.size()));
    }

    /**
     * The lookups of these keys in the current phase; an exact URL set goes by its URLs' prefixes
     * ({@link ShardOwner.Lookup#byPrefixes}: 4.5 bytes a URL instead of 13) when {@code byPrefixes} and it fits a
     * message with their slack. A filtered lookup of a scored partition asks for scores unless not {@code scored}
     * (the holder refused them before).
     */
    private List<ShardOwner.Lookup> lookups(PeerId peer, List<RangeKey> keys, Map<RangeKey, List<UrlHash>> urlSets,
                                            boolean byPrefixes, boolean scored) {
        List<ShardOwner.Lookup> plain = plainLookups(peer, keys, urlSets, byPrefixes, scored);
        if (wordParts.isEmpty()) return plain;
        // every score lookup names the query's shape: its scores are the word's part of the query's score
        List<ShardOwner.Lookup> out = new ArrayList<>(plain.size());
        for (ShardOwner.Lookup l : plain) out.add(l.withPart(wordParts.getOrDefault(l.key().word(), WordPart.NONE)));
        return out;
    }

    private List<ShardOwner.Lookup> plainLookups(PeerId peer, List<RangeKey> keys, Map<RangeKey, List<UrlHash>> urlSets,
                                                 boolean byPrefixes, boolean scored) {
        List<ShardOwner.Lookup> out = new ArrayList<>();
        int room = settings.maxPostingsPerMessage() - ShardOwner.Lookup.PREFIX_SLACK;
        for (RangeKey k : keys) {
            List<UrlHash> set = urlSets == null ? null : urlSets.get(k);
            // a search keyed by prefix knows the URLs of its top lookups by prefix alone: those go by prefixes (at
            // most a message of them), or by the whole hashes seen of them to a holder that does not read prefixes
            boolean ids = set != null && keyedByPrefix(k);
            boolean prefixed = byPrefixes && set != null && (ids || set.size() <= room);
            if (ids && prefixed && set.size() > room) set = set.subList(0, room);
            if (ids && !prefixed) set = wholeHashes(set);
            if (phase == Phase.RAREST && scoredFilters.contains(k.partition())) {
                out.add(prefixed ? ShardOwner.Lookup.byPrefixes(k, set, true)
                        : ShardOwner.Lookup.scores(k, set, Math.max(1, set.size())));
            } else if (phase == Phase.RAREST || phase == Phase.FULL) {
                out.add(prefixed ? ShardOwner.Lookup.byPrefixes(k, set, false) : exactLookup(k, set));
            } else if (phase == Phase.COMPLETE) {
                ShardOwner.Lookup filtered = scored && settings.scoredFilters() && (prefixed || !ids)
                        ? completionFilter(k, set, ids) : null;
                out.add(filtered != null ? filtered : prefixed ? ShardOwner.Lookup.byPrefixes(k, set, true)
                        : ShardOwner.Lookup.scores(k, set, Math.max(1, set.size())));
            } else if (phase == Phase.TOP) {
                // a deeper round asks the holder that answered the round before only for what lies below that
                // answer (another holder, or a peer that predates it, sends the whole best)
                int skip = skipFor(k, peer);
                out.add(skip > 0 ? ShardOwner.Lookup.deeper(k, topDepth(topRound), skip)
                        : ShardOwner.Lookup.scores(k, null, topDepth(topRound)));
            } else if (request.words().size() == 1) {
                out.add(new ShardOwner.Lookup(k, null, null, oneWordLimit()));
            } else {
                // an exact join needs every posting that passes the rarest word's filter: as many as the filter
                // holds plus its false positives (~1% at 10 bits per URL; 2% allowed), so the limit grows with
                // the filter beyond top-k, bounded by the message size
                int inFilter = filterCounts.getOrDefault(k.partition(), 0);
                int here = counts.getOrDefault(k, 0);
                int passing = Math.min(here, inFilter + here / 50 + 10);
                int limit = Math.min(settings.maxPostingsPerMessage(), Math.max(settings.topK(), passing));
                out.add(scored && scoredFilters.contains(k.partition())
                        ? ShardOwner.Lookup.filteredScores(k, filters.get(k.partition()), limit)
                        : new ShardOwner.Lookup(k, filters.get(k.partition()), null, limit));
            }
        }
        return out;
    }

    /**
     * Whether the URL set asked of this key in this phase names URLs as the top lookups keyed them (by prefix, in a
     * search keyed so): the completions, the candidates' postings, and the rarest word's scores of a scored filter.
     */
    private boolean keyedByPrefix(RangeKey k) {
        return top.keyedByPrefix() && (phase == Phase.COMPLETE || phase == Phase.FULL
                || phase == Phase.RAREST && scoredFilters.contains(k.partition()));
    }

    /**
     * The whole hashes seen of these URLs known by prefix, for a holder that does not read prefixes; a URL none of
     * whose hashes came yet is left out (and noted: the candidates' postings are asked once more when they came).
     */
    private List<UrlHash> wholeHashes(List<UrlHash> ids) {
        List<UrlHash> out = new ArrayList<>(ids.size());
        for (UrlHash id : ids) {
            Set<UrlHash> whole = top.wholeOf(id);
            if (whole.isEmpty()) leftOut.add(id);
            out.addAll(whole);
        }
        return out;
    }

    /** URLs known by prefix that a request by whole hashes left out; their postings are asked once more (FULL). */
    private final Set<UrlHash> leftOut = new TreeSet<>();
    private boolean askedLeftOut;

    /** Whether this search keys its top lookups by prefix ({@code prefix-scores}, with URL prefixes, several words). */
    private boolean prefixIds() {
        return settings.urlPrefixes() && settings.prefixScores() && request.words().size() > 1;
    }

    // ---- receiving

    private Behavior<Command> onTimedOut(TimedOut m) {
        prefixedRequests.remove(m.requestId());
        scoredRequests.remove(m.requestId());
        Confirming c = confirming.remove(m.requestId());
        if (c != null) {
            timeouts++;
            c.asked().forEach((k, urls) -> urls.forEach(u -> answeredOne(k, u, false)));
            return maybeAdvance();
        }
        Outstanding o = outstanding.remove(m.requestId());
        if (o == null) return this;
        timeouts++;
        if (o.isExtra()) return retryExtra(o);
        ctx.getLog().debug("lookup at {} timed out; asking another holder", o.peer());
        if (phase == Phase.METADATA) {
            retryMetadata(o);
        } else if (phase == Phase.JOIN) {
            dispatchJoin(partitionsOf(o.keys()), o.attempt() + 1);
        } else {
            dispatch(o.keys(), urlSets(), o.attempt() + 1);
        }
        return maybeAdvance();
    }

    private Behavior<Command> onReplied(Replied m) {
        Confirming confirmation = confirming.remove(m.requestId());
        if (confirmation != null) return onConfirmed(confirmation, m.reply());
        Outstanding o = outstanding.remove(m.requestId());
        if (o == null) return this; // late answer after a retry: ignored
        if (!o.peer().equals(view.self())) tally(o.kind() + "-reply", m.reply());
        answered.add(o.peer());
        if (scoredRequests.remove(m.requestId()) && m.reply() instanceof ShardOwner.LookupReply r
                && !r.error().isEmpty() && unscored.add(o.peer())) {
            // a holder that predates scored filters refuses them as malformed: asked again, for postings
            ctx.getLog().debug("holder {} refused scored filters ({}); asking it for postings", o.peer(), r.error());
            prefixedRequests.remove(m.requestId());
            if (o.isExtra()) dispatchExtra(o.keys(), urlSets(), o.extra());
            else dispatch(o.keys(), urlSets(), o.attempt());
            return maybeAdvance();
        }
        Set<RangeKey> byPrefix = prefixedRequests.remove(m.requestId());
        if (byPrefix != null && m.reply() instanceof ShardOwner.LookupReply r && r.error().isEmpty()
                && r.results().stream().anyMatch(kp -> kp != null && byPrefix.contains(kp.key()) && !kp.prefixed())) {
            // a holder that predates URL prefixes read none: it sent its best instead; asked again by URLs (a key
            // of the request whose URL set was too long for prefixes went by URLs and says nothing of the holder)
            ctx.getLog().debug("holder {} did not read URL prefixes; asking it by URLs", o.peer());
            unprefixed.add(o.peer());
            if (o.isExtra()) dispatchExtra(o.keys(), urlSets(), o.extra());
            else dispatch(o.keys(), urlSets(), o.attempt());
            return maybeAdvance();
        }
        if (m.reply() instanceof ShardOwner.CountReply r) {
            if (!r.error().isEmpty() || r.counts().size() != o.keys().size()) return retry(o, r.error());
            for (int i = 0; i < o.keys().size(); i++) {
                countAtLeast(o.keys().get(i), r.counts().get(i));
            }
            if (r.tops() != null && !o.isExtra()) {
                for (ShardOwner.KeyPostings kp : r.tops()) {
                    // only keys asked of this holder, as score lists by prefix; a key in hand-off is asked its top
                    // lookup of every holder as before
                    if (kp == null || !o.keys().contains(kp.key()) || kp.prefixScores() == null
                            || countedByHandoff.contains(kp.key())) continue;
                    topsWithCounts.put(kp.key(), new CountedTop(o.peer(), kp));
                }
            }
        } else if (m.reply() instanceof ShardOwner.FilterReply r) {
            if (!r.error().isEmpty() || r.filters().size() != o.keys().size()) return retry(o, r.error());
            for (int i = 0; i < o.keys().size(); i++) {
                int p = o.keys().get(i).partition();
                int n = i < r.counts().size() ? r.counts().get(i) : 0;
                if (!filters.containsKey(p) || n > filterCounts.getOrDefault(p, 0)) {
                    filters.put(p, r.filters().get(i));
                    filterCounts.put(p, n);
                }
            }
        } else if (m.reply() instanceof ShardOwner.LookupReply r && phase == Phase.JOIN) {
            if (!r.error().isEmpty()) return retry(o, r.error());
            Map<RangeKey, List<Posting>> got = new HashMap<>();
            Map<RangeKey, Integer> gotCounts = new HashMap<>();
            List<ShardOwner.KeyPostings> answers;
            try {
                answers = r.answers(o.keys().size());
            } catch (IllegalArgumentException e) {
                return retry(o, e.getMessage());
            }
            for (ShardOwner.KeyPostings kp : answers) {
                // only keys asked of this holder, and only postings of the key's own word and partition
                if (kp == null || !o.keys().contains(kp.key()) || gotCounts.containsKey(kp.key())) continue;
                List<Posting> ps;
                try {
                    ps = postingsOf(kp, null);
                } catch (IllegalArgumentException e) {
                    return retry(o, e.getMessage());
                }
                got.put(kp.key(), ps);
                gotCounts.put(kp.key(), Math.max(0, kp.matched()));
            }
            if (!gotCounts.keySet().containsAll(o.keys())) return retry(o, "not every key answered");
            gotCounts.forEach((k, n) -> {
                counts.put(k, n);
                totalPostingsCounted += n;
            });
            got.forEach((k, ps) -> {
                postings.computeIfAbsent(k, x -> new ArrayList<>()).addAll(ps);
                sent(k, ps, o.peer(), r.by());
            });
        } else if (m.reply() instanceof ShardOwner.LookupReply r
                && (phase == Phase.TOP || phase == Phase.COMPLETE || phase == Phase.FULL)) {
            if (!r.error().isEmpty()) return retry(o, r.error());
            Map<RangeKey, ShardOwner.KeyPostings> byKey = new HashMap<>();
            for (ShardOwner.KeyPostings kp : r.results()) {
                if (kp != null && o.keys().contains(kp.key())) byKey.putIfAbsent(kp.key(), kp);
            }
            if (!byKey.keySet().containsAll(o.keys())) return retry(o, "not every key answered");
            Map<RangeKey, List<UrlHash>> sets = urlSets();
            for (ShardOwner.KeyPostings kp : byKey.values()) {
                RangeKey k = kp.key();
                // only the key's own word and partition; a completion, only the URLs asked
                Set<UrlHash> wanted = phase == Phase.TOP ? null : new HashSet<>(sets.getOrDefault(k, List.of()));
                if (kp.scores() != null || kp.prefixScores() != null) {
                    // a score list (a holder that predates them sends postings, read below)
                    List<ScoreList.Entry> es;
                    try {
                        es = scoresOf(kp, wanted);
                    } catch (IllegalArgumentException e) {
                        return retry(o, e.getMessage());
                    }
                    if (phase == Phase.TOP) {
                        tookTop(k, es, kp, o.isExtra() ? null : o.peer());
                    } else if (phase == Phase.COMPLETE) {
                        top.addScores(k, es);
                        // an answer cut at its limit (URLs sharing a prefix, a filter's false positives) may have left
                        // out URLs asked; and a holder that answers a search keyed by prefix with whole hashes may
                        // have been asked by the whole hashes seen (some left out), or have tested a filter over
                        // prefixes with whole hashes (it predates them): those are not known to lack the word
                        if (kp.truncated() || top.keyedByPrefix() && kp.prefixScores() == null) top.unasked(k);
                    }
                    continue;
                }
                List<Posting> ps;
                try {
                    ps = postingsOf(kp, wanted);
                } catch (IllegalArgumentException e) {
                    return retry(o, e.getMessage());
                }
                if (phase == Phase.TOP) {
                    top.best(k, ps, kp.truncated());
                    countAtLeast(k, Math.max(0, kp.matched()));
                } else {
                    top.add(k, ps);
                    if (phase == Phase.COMPLETE && top.keyedByPrefix()) top.unasked(k);
                }
                sent(k, ps, o.peer(), r.by());
            }
        } else if (m.reply() instanceof ShardOwner.LookupReply r) {
            if (!r.error().isEmpty()) return retry(o, r.error());
            for (ShardOwner.KeyPostings kp : r.results()) {
                if (kp != null && request.words().size() > 1 && scoredFilters.contains(kp.key().partition())) {
                    Optional<String> bad = scored(o, r, kp);
                    if (bad.isPresent()) return retry(o, bad.get());
                    continue;
                }
                List<Posting> ps;
                try {
                    ps = kp.postingList();
                } catch (IllegalArgumentException e) {
                    return retry(o, e.getMessage());
                }
                postingBytes += kp.postings().byteSize();
                postingsReceived += ps.size();
                if (request.words().size() == 1) {
                    totalPostingsCounted += kp.matched();
                    matched.merge(kp.key(), kp.matched(), Math::max);
                }
                postings.computeIfAbsent(kp.key(), x -> new ArrayList<>()).addAll(ps);
                sent(kp.key(), ps, o.peer(), r.by());
            }
        } else if (m.reply() instanceof ShardOwner.MetadataReply r) {
            if (!r.error().isEmpty()) {
                retryMetadata(o);
                return maybeAdvance();
            }
            List<RemoteCandidate> found = new ArrayList<>();
            for (UrlMetadata md : r.records()) {
                if (md == null || md.urlHash() == null) continue;
                if (metadata.containsKey(md.urlHash())) continue;
                // a record whose URL is no http(s) URL of its hash (or is malformed) is dropped: the URL stays
                // missing, so another holder is asked for it
                Optional<String> bad = PostingValidator.problem(md);
                if (bad.isPresent()) {
                    rejectedMetadata++;
                    ctx.getLog().debug("dropped metadata from {}: {}", r.by(), bad.get());
                    continue;
                }
                RemoteCandidate c = candidates.get(md.urlHash());
                if (c == null) continue;
                metadata.put(md.urlHash(), md);
                RemoteCandidate full = new RemoteCandidate(c.url(), c.postings(), md, c.from());
                candidates.put(c.url(), full);
                if (!unconfirmed.containsKey(c.url())) found.add(full);
            }
            Set<UrlHash> missing = new HashSet<>(o.urls());
            missing.removeAll(metadata.keySet());
            if (!missing.isEmpty()) retryMetadata(new Outstanding(o.peer(), List.of(), List.copyOf(missing), o.attempt(), "metadata"));
            if (!found.isEmpty()) emit(found);
        }
        return maybeAdvance();
    }

    /**
     * One key's answer of a scored partition (a filtered lookup's, or the rarest word's exact URL set's): its scores,
     * or the postings of a holder that predates score lists (their scores taken from them), of the key's own word and
     * partition and (for the rarest word) the URLs asked only; kept as the top lookups' are. A problem, if the
     * answer is malformed.
     */
    private Optional<String> scored(Outstanding o, ShardOwner.LookupReply r, ShardOwner.KeyPostings kp) {
        RangeKey k = kp.key();
        if (!o.keys().contains(k)) return Optional.empty();
        Set<UrlHash> wanted = phase == Phase.RAREST ? new HashSet<>(rarestUrlSets.getOrDefault(k, List.of())) : null;
        try {
            if (kp.scores() != null || kp.prefixScores() != null) {
                top.addScores(k, scoresOf(kp, wanted));
            } else {
                List<Posting> ps = postingsOf(kp, wanted);
                top.add(k, ps);
                sent(k, ps, o.peer(), r.by());
            }
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
    }

    /**
     * A key's score-list entries of its own partition (and of {@code wanted} only, when not null); throws
     * IllegalArgumentException when the list is malformed.
     */
    private List<ScoreList.Entry> scoresOf(ShardOwner.KeyPostings kp, Set<UrlHash> wanted) {
        List<ScoreList.Entry> es = new ArrayList<>();
        List<ScoreList.Entry> listed = kp.prefixScores() != null ? ScoreList.readPrefixed(kp.prefixScores())
                : ScoreList.read(kp.scores());
        for (ScoreList.Entry e : listed) {
            if (placement.partitions().partitionOf(e.url()) == kp.key().partition()
                    && (wanted == null || wanted.contains(top.id(e.url())))) es.add(e);
        }
        return es;
    }

    /**
     * A key's postings of its own word and partition (and of {@code wanted} only, when not null), counted as
     * received; throws IllegalArgumentException when the pack is malformed.
     */
    private List<Posting> postingsOf(ShardOwner.KeyPostings kp, Set<UrlHash> wanted) {
        RangeKey k = kp.key();
        List<Posting> ps = new ArrayList<>();
        for (Posting p : kp.postingList()) {
            if (p.word().equals(k.word()) && placement.partitions().partitionOf(p.url()) == k.partition()
                    && (wanted == null || wanted.contains(top.id(p.url())))) ps.add(p);
        }
        postingBytes += kp.postings().byteSize();
        postingsReceived += ps.size();
        return ps;
    }

    /** Who sent these postings of the key: the peer asked (a confirmation asks another) and the holder that answered. */
    private void sent(RangeKey key, List<Posting> ps, PeerId peer, PeerId by) {
        Map<UrlHash, Set<PeerId>> senders = sentBy.computeIfAbsent(key, x -> new HashMap<>());
        for (Posting p : ps) senders.computeIfAbsent(p.url(), x -> new HashSet<>(2)).add(peer);
        for (Posting p : ps) answeredBy.putIfAbsent(p.url(), by);
    }

    /** A holder's count of a key: two holders during hand-off, the one that has more (a new one may have nothing yet). */
    private void countAtLeast(RangeKey key, int n) {
        Integer before = counts.get(key);
        if (before == null || n > before) {
            counts.put(key, n);
            totalPostingsCounted += n - (before == null ? 0 : before);
        }
    }

    private Behavior<Command> retry(Outstanding o, String why) {
        ctx.getLog().debug("holder {} answered with an error ({}); asking another", o.peer(), why);
        if (o.isExtra()) return retryExtra(o);
        if (phase == Phase.METADATA) retryMetadata(o);
        else if (phase == Phase.JOIN) dispatchJoin(partitionsOf(o.keys()), o.attempt() + 1);
        else dispatch(o.keys(), urlSets(), o.attempt() + 1);
        return maybeAdvance();
    }

    /** A hand-off request failed: its keys go to their next previous holder, if any. */
    private Behavior<Command> retryExtra(Outstanding o) {
        dispatchExtra(o.keys(), urlSets(), o.extra() + HANDOFF_FANOUT);
        return maybeAdvance();
    }

    // ---- phases

    private Map<RangeKey, List<UrlHash>> rarestUrlSets = Map.of();

    private Behavior<Command> maybeAdvance() {
        if (!outstanding.isEmpty() || !confirming.isEmpty() || phase == Phase.DONE) return this;
        switch (phase) {
            case JOIN -> {
                Set<Integer> joined = new TreeSet<>(joinOrder.keySet());
                if (fallback != null) joined.removeAll(fallback);
                for (RemoteCandidate c : PartitionJoin.joined(request.words(), joined, postings, answeredBy)) {
                    candidates.put(c.url(), c);
                }
                if (fallback == null) {
                    counted(counts);
                    return fetchMetadata();
                }
                // the partitions no join-aware holder answered: the counts, filters and exact URL sets, beside the
                // joined candidates already in
                ctx.getLog().debug("no join lookup answered for partitions {}; asking their holders the older way", fallback);
                startMatching(fallback);
                return maybeAdvance();
            }
            case TOP -> {
                // keyed by prefix, a completion goes by prefixes alone: at most a message of them, with their slack
                completeUrlSets = TopJoin.completions(request.words(), topPartitions, topRanked, top, topBest(),
                        settings.maxPostingsPerMessage() - (top.keyedByPrefix() ? ShardOwner.Lookup.PREFIX_SLACK : 0));
                phase = Phase.COMPLETE;
                top.asking(completeUrlSets);
                if (completeUrlSets.isEmpty()) return afterTopLookups();
                dispatch(new ArrayList<>(completeUrlSets.keySet()), completeUrlSets, 0);
                return maybeAdvance();
            }
            case COMPLETE -> {
                return afterTopLookups();
            }
            case FULL -> {
                for (RemoteCandidate c : TopJoin.candidates(request.words(), topBestFound, top,
                        placement.partitions()::partitionOf, answeredBy)) {
                    candidates.putIfAbsent(c.url(), c);
                }
                if (!leftOut.isEmpty() && !askedLeftOut) {
                    // URLs known by prefix that a holder reading no prefixes could not be asked for: their whole
                    // hashes came with other words' postings since; asked once more
                    askedLeftOut = true;
                    List<UrlHash> again = new ArrayList<>();
                    for (UrlHash id : leftOut) if (!top.wholeOf(id).isEmpty()) again.add(id);
                    leftOut.clear();
                    if (!again.isEmpty()) return askPostings(again);
                }
                List<UrlHash> next = cutByBound() ? nextStage() : List.of();
                if (next.isEmpty()) return fetchMetadata();
                List<UrlHash> all = new ArrayList<>(topBestFound);
                all.addAll(next);
                topBestFound = all;
                return askPostings(next);
            }
            case COUNT -> {
                counted(counts);
                if (prefixIds()) top.byPrefix();
                if (settings.topLookups() && settings.wordParts() && request.words().size() > 1) {
                    wordParts = wordParts();
                    top.parts(wordParts);
                    if (request.order() != null) {
                        exactScores = request.order().scores(documentFrequency);
                        partsSlack = request.order().wordPartsSlack();
                    }
                } else if (request.order() != null) {
                    top.weigh(request.order().weights(documentFrequency));
                }
                // long lists: top lookups; short ones (or top lookups off): the filters, exact and cheap there
                List<Integer> longLists = new ArrayList<>();
                List<Integer> shortLists = new ArrayList<>();
                Map<Integer, WordHash> rare = PartitionJoin.rarestPerPartition(request.words(),
                        placement.partitions().count(), counts);
                for (int p : matching) {
                    WordHash w = rare.get(p);
                    if (w == null) continue; // some word has no posting there: no match
                    boolean isLong = settings.topLookups() && counts.getOrDefault(new RangeKey(w, p), 0) > SHORT_LIST * topDepth(0);
                    (isLong ? longLists : shortLists).add(p);
                }
                filterPartitions = shortLists;
                if (longLists.isEmpty()) return startFilters(shortLists);
                startTop(longLists, 0);
                return maybeAdvance();
            }
            case FILTER -> {
                List<RangeKey> keys = new ArrayList<>();
                rarest.forEach((p, rare) -> {
                    if (!filters.containsKey(p)) return;
                    for (WordHash w : request.words()) if (!w.equals(rare)) keys.add(new RangeKey(w, p));
                });
                phase = Phase.FILTERED;
                if (keys.isEmpty()) return endOfMatching();
                dispatch(keys, null, 0);
            }
            case FILTERED -> {
                if (request.words().size() == 1) {
                    counted(matched);
                    for (var e : postings.entrySet()) {
                        for (Posting p : e.getValue()) {
                            candidates.putIfAbsent(p.url(), new RemoteCandidate(p.url(), List.of(p), null,
                                    answeredBy.get(p.url())));
                        }
                    }
                    return fetchMetadata();
                }
                Map<Integer, WordHash> plain = new HashMap<>(rarest);
                plain.keySet().removeAll(scoredFilters);
                Map<RangeKey, List<UrlHash>> urlSets = new HashMap<>(PartitionJoin.candidateUrls(request.words(),
                        plain, postings, settings.maxPostingsPerMessage()));
                urlSets.putAll(scoredRarestUrls());
                phase = Phase.RAREST;
                rarestUrlSets = urlSets;
                if (urlSets.isEmpty()) return endOfMatching();
                dispatch(new ArrayList<>(urlSets.keySet()), urlSets, 0);
            }
            case RAREST -> {
                for (RemoteCandidate c : PartitionJoin.join(request.words(), rarest, rarestUrlSets, postings, answeredBy)) {
                    candidates.put(c.url(), c);
                }
                // the scored filters' matches: every URL with a score of each word there
                if (!scoredFilters.isEmpty()) topFound.putAll(TopJoin.found(request.words(), scoredFilters, top));
                return startFull();
            }
            case METADATA -> {
                return finish();
            }
            default -> {
                return this;
            }
        }
        return this;
    }

    /** per key: the top lookups' postings and frontiers */
    private final TopJoin.Received top = new TopJoin.Received();
    /** the partitions matched the older way (all, or those no join lookup answered) */
    private List<Integer> matching = List.of();
    /** of those, the ones the top lookups of the current round ask, and the ones left to the filters */
    private List<Integer> topPartitions = List.of();
    private List<Integer> filterPartitions = List.of();
    private int topRound;

    /** The holder that answered a key's top lookup of the round before, and how deep it was asked. */
    private record TopAnswer(PeerId peer, int depth) {}

    private final Map<RangeKey, TopAnswer> topAnswers = new HashMap<>();

    /**
     * What a top lookup of this round at this holder leaves out: the ranks its answer of a round before gave (a
     * holder's ranking is the same for every asker), less than this round's depth; 0 for another holder.
     */
    private int skipFor(RangeKey k, PeerId peer) {
        TopAnswer before = topAnswers.get(k);
        if (before == null || !before.peer().equals(peer)) return 0;
        return Math.min(before.depth(), topDepth(topRound) - 1);
    }
    /** every partition of the first round: the query's best sums found in any of them set the bar of each */
    private List<Integer> topRanked = List.of();
    /** per key, the URLs its holder is asked for to complete the top lookups */
    private Map<RangeKey, List<UrlHash>> completeUrlSets = Map.of();
    /** the URLs the top lookups found with every word, in the partitions they settled, with their weighted sums */
    private final Map<UrlHash, Double> topFound = new HashMap<>();
    /** of those, the query's best, the candidates */
    private List<UrlHash> topBestFound = List.of();
    /** per key, the URLs of those whose postings its holder is asked for */
    private Map<RangeKey, List<UrlHash>> fullUrlSets = Map.of();
    /**
     * per request whose lookups name URLs by prefixes, the keys asked so; and the peers that did not read them (asked
     * by URLs since)
     */
    private final Map<Long, Set<RangeKey>> prefixedRequests = new HashMap<>();
    private final Set<PeerId> unprefixed = new HashSet<>();
    /**
     * the partitions of the filters whose other words' holders answer with score lists, and whose rarest word's
     * holder sends the scores of the URLs they all had (see {@link #startFilters}); their matches compete with the
     * top lookups' for the candidates' postings
     */
    private final Set<Integer> scoredFilters = new TreeSet<>();
    /** requests with scored filters, and the peers that refused them (they predate them: asked for postings since) */
    private final Set<Long> scoredRequests = new HashSet<>();
    private final Set<PeerId> unscored = new HashSet<>();

    /**
     * Per partition, how many of its best URLs by the weighted sum of partial scores the top lookups must be certain
     * of: its share of the best {@value #TOP_SHARE} × limit of the network, plus two standard deviations and one (14
     * for a first page over 16 partitions). A sum of one-word scores is not the searcher's order (each word's
     * score counts a page's own qualities again, and proximity is not in it), so the margin is wide: simulated
     * (10,000 peers, 100,000 documents, 200 queries of 2-3 words) a share of 2 × limit gave recall@10 0.973, 4 ×
     * 0.988, 8 × 0.996 (docs/simulations.md, "Bytes per query at scale").
     */
    private int topWanted() {
        double expected = (double) TOP_SHARE * request.limit() / placement.partitions().count();
        return Math.max(1, (int) Math.ceil(expected + 2 * Math.sqrt(expected) + 1));
    }

    private static final int TOP_SHARE = 8;
    /**
     * Of the URLs the top lookups found with every word, the best this many times the limit by the weighted sum get
     * their postings and are candidates. Simulated (10,000 peers, 100,000 documents, 200 queries of 2-3 words),
     * 8 × gave recall@10 0.982, 32 × 0.994, as did every URL found.
     */
    private static final int TOP_CANDIDATES = 32;

    /**
     * How many of the query's best URLs by the weighted sum, over all the partitions of the top lookups together,
     * they must be certain of: {@value #TOP_SHARE} × limit. A partition is done when nothing left there can pass
     * the query's {@code topBest}-th best sum found anywhere, which needs less depth than being sure of each
     * partition's own share plus a margin for its spread.
     */
    private int topBest() {
        return TOP_SHARE * request.limit();
    }

    /** How many postings a top lookup of round 0 or 1 asks of each key: a few times its partition's share. */
    private int topDepth(int round) {
        int times = TOP_DEPTH;
        for (int i = 0; i < round; i++) times *= DEEPER;
        return Math.min(settings.maxPostingsPerMessage(), times * topWanted());
    }

    /**
     * The second round of top lookups, for partitions the first left open, asks this many times deeper; what it
     * leaves open stands as found, unless the query's lists joined sparsely at their tops (fewer than
     * {@link #topBest} found with every word): then it takes the filters (over a million documents, letting it stand
     * there found fewer than ten pages with every word for some queries).
     */
    private static final int DEEPER = 4;
    /** Rounds of top lookups at most: the first, and deeper ones for the partitions left open. */
    private static final int TOP_ROUNDS = 2;
    /**
     * A partition whose rarest word has at most this many times a first round's depth takes the filters (exact, and
     * cheap where a list is short): simulated (2,000 peers, 20,000 documents) 1, 2, 4 and 8 gave a mean of 92, 83,
     * 73 and 65 KB a query at the same recall.
     */
    private static final int SHORT_LIST = ShardOwner.TOPS_OVER;

    /** A key's first top lookup asks this many times its partition's share. */
    private static final int TOP_DEPTH = 2;

    /**
     * The partitions whose best the top lookups made certain give the URLs found there with every word; a partition
     * left open is asked once more, deeper, and then gives what it found or takes the filters. Of the URLs given, the
     * query's best {@value #TOP_CANDIDATES} × limit by the weighted sum are the candidates: their postings are asked
     * where only their scores came.
     */
    private Behavior<Command> afterTopLookups() {
        TopJoin.Outcome o = TopJoin.decide(request.words(), topPartitions, topRanked, top, topBest());
        topFound.putAll(o.found());
        if (!o.undecided().isEmpty() && topRound < TOP_ROUNDS - 1) {
            ctx.getLog().debug("top lookups left partitions {} open; asking deeper", o.undecided());
            completeUrlSets = Map.of();
            startTop(new ArrayList<>(o.undecided()), topRound + 1);
            return maybeAdvance();
        }
        // still open after the deeper round: what it found stands where the query's tops met (the lists join
        // densely there, and the best found are as good as the margin asks); where fewer than that were found with
        // every word, the lists join sparsely at their tops and the open partitions take the filters, exact, whose
        // bytes follow the few matches
        Map<UrlHash, Double> open = TopJoin.found(request.words(), o.undecided(), top);
        if (topFound.size() + open.size() >= topBest()) {
            topFound.putAll(open);
        } else if (!o.undecided().isEmpty()) {
            List<Integer> toFilters = new ArrayList<>(filterPartitions);
            toFilters.addAll(o.undecided());
            filterPartitions = toFilters;
        }
        return filterPartitions.isEmpty() ? startFull() : startFilters(filterPartitions);
    }

    /**
     * Of the URLs found with every word (by the top lookups, and by the scored filters), the query's best
     * {@value #TOP_CANDIDATES} × limit by the weighted sum are the candidates: their postings are asked where only
     * their scores came.
     */
    private Behavior<Command> startFull() {
        int first = cutByBound() ? FIRST_STAGE * request.limit() : TOP_CANDIDATES * request.limit();
        topBestFound = TopJoin.best(topFound, first);
        return askPostings(topBestFound);
    }

    /** The postings of these URLs where only their scores came. */
    private Behavior<Command> askPostings(List<UrlHash> urls) {
        fullUrlSets = TopJoin.postingsMissing(request.words(), urls, top, placement.partitions()::partitionOf);
        phase = Phase.FULL;
        if (fullUrlSets.isEmpty()) return maybeAdvance();
        dispatch(new ArrayList<>(fullUrlSets.keySet()), fullUrlSets, 0);
        return maybeAdvance();
    }

    /**
     * Whether the candidates' postings are asked in stages cut by a bound: the lookups' scores are the words' parts
     * of the query's score, and the caller scores candidates and says how far above the parts' sum it may go.
     */
    private boolean cutByBound() {
        return !wordParts.isEmpty() && exactScores != null && !Double.isNaN(partsSlack);
    }

    /**
     * The URLs found with every word whose postings are asked next: those not asked yet whose sum of parts, plus the
     * caller's slack, reaches the {@code limit}-th best score of the candidates in (with all their postings), best
     * sums first, so that no URL left out could enter the caller's best {@code limit}; while fewer than that are in,
     * the best sums. At most {@value #TOP_CANDIDATES} × limit URLs are asked in all.
     */
    private List<UrlHash> nextStage() {
        int room = TOP_CANDIDATES * request.limit() - topBestFound.size();
        if (room <= 0) return List.of();
        double[] scores = new double[candidates.size()];
        int i = 0;
        for (RemoteCandidate c : candidates.values()) scores[i++] = exactScores.applyAsDouble(c);
        Arrays.sort(scores);
        double bar = scores.length < request.limit() ? Double.NEGATIVE_INFINITY
                : scores[scores.length - request.limit()] - partsSlack - SCORE_EPSILON;
        Set<UrlHash> asked = new HashSet<>(topBestFound);
        List<UrlHash> out = new ArrayList<>();
        for (UrlHash u : TopJoin.best(topFound, topBestFound.size() + room)) {
            if (out.size() >= room) break;
            if (asked.contains(u)) continue;
            if (topFound.get(u) < bar) break;
            out.add(u);
        }
        return out;
    }

    /** The searcher's and the holders' arithmetic may differ in the last bits; a cut keeps what is this close. */
    private static final double SCORE_EPSILON = 1e-9;

    /**
     * With the cut by the parts' bound, the first stage asks the postings of the best this many times the limit by
     * their sums; the next, of every URL left that can still enter the best {@code limit}.
     */
    private static final int FIRST_STAGE = 2;

    /** Per word, the query's shape its score lookups name ({@link WordPart}); empty: none (partial scores). */
    private Map<WordHash, Integer> wordParts = Map.of();
    /** The caller's scores of candidates, and how far above the parts' sum they may go (NaN: unbounded). */
    private ToDoubleFunction<RemoteCandidate> exactScores;
    private double partsSlack = Double.NaN;

    /**
     * Each word's shape: the query's word count and the word's share of its BM25, its weight (idf) over the sum
     * of the words' (equal shares without weights).
     */
    private Map<WordHash, Integer> wordParts() {
        Map<WordHash, Double> w = request.order() == null ? null : request.order().weights(documentFrequency);
        List<WordHash> words = request.words();
        double[] weight = new double[words.size()];
        double sum = 0;
        for (int i = 0; i < weight.length; i++) {
            weight[i] = w == null ? 1 : w.getOrDefault(words.get(i), 1.0);
            sum += weight[i];
        }
        Map<WordHash, Integer> out = new HashMap<>();
        for (int i = 0; i < weight.length; i++) out.put(words.get(i), WordPart.of(words.size(), weight[i] / sum));
        return out;
    }

    /** Counts known: a Bloom filter of the rarest word of each of these partitions where every word has postings. */
    private Behavior<Command> startFilters(Collection<Integer> partitions) {
        rarest.putAll(PartitionJoin.rarestPerPartition(request.words(), placement.partitions().count(), counts));
        rarest.keySet().retainAll(new HashSet<>(partitions));
        long canMatch = 0;
        for (var e : rarest.entrySet()) canMatch += counts.getOrDefault(new RangeKey(e.getValue(), e.getKey()), 0);
        if (settings.topLookups() && settings.scoredFilters()
                && canMatch > SCORED_MATCHES * TOP_CANDIDATES * request.limit()) {
            rarest.forEach((p, rare) -> {
                if (counts.getOrDefault(new RangeKey(rare, p), 0) > scoredFilterMin()) scoredFilters.add(p);
            });
        }
        List<RangeKey> filterKeys = new ArrayList<>();
        rarest.forEach((p, rare) -> filterKeys.add(new RangeKey(rare, p)));
        phase = Phase.FILTER;
        if (filterKeys.isEmpty()) return endOfMatching();
        dispatch(filterKeys, null, 0);
        return maybeAdvance();
    }

    /** The URL sets the current phase's lookups ask for (exact lookups), or null. */
    private Map<RangeKey, List<UrlHash>> urlSets() {
        return phase == Phase.RAREST ? rarestUrlSets : phase == Phase.COMPLETE ? completeUrlSets
                : phase == Phase.FULL ? fullUrlSets : null;
    }

    /**
     * No (more) matches to look for: the candidates' postings where only their scores came, then the metadata of the
     * best (with those of the join phase and the filters), if any, or the end.
     */
    private Behavior<Command> endOfMatching() {
        return startFull();
    }

    /**
     * A partition of the filters is scored when its rarest word has more postings there than its share of the
     * candidates ({@value #TOP_CANDIDATES} × limit over the partitions): then more may match than get postings, and a
     * score (11 bytes) is what ranks them, not a posting (35 or more). Where fewer can match, every match would get
     * its postings anyway, at the cost of the scores and a round trip more.
     */
    private int scoredFilterMin() {
        return (int) Math.ceil((double) TOP_CANDIDATES * request.limit() / placement.partitions().count());
    }

    /**
     * Scored filters only where the rarest words' lists together exceed this many times the candidates: a match
     * that becomes a candidate costs more scored (its scores, then its postings) than with its postings at once,
     * one that does not costs a third; about where three in five matches are candidates they cost the same.
     */
    private static final int SCORED_MATCHES = 3;

    /**
     * Per scored partition, the URLs every word but the rarest had (from the scored filters, or the top lookups
     * before them), whose rarest word's score is not in yet, in hash order, at most a message's bound: the rarest
     * word's holder is asked for exactly their scores. Keyed by the rarest word's range.
     */
    private Map<RangeKey, List<UrlHash>> scoredRarestUrls() {
        Map<RangeKey, List<UrlHash>> out = new HashMap<>();
        for (int p : scoredFilters) {
            WordHash rare = rarest.get(p);
            if (rare == null || !filters.containsKey(p)) continue;
            Set<UrlHash> common = null;
            for (WordHash w : request.words()) {
                if (w.equals(rare)) continue;
                Set<UrlHash> s = new TreeSet<>(top.of(new RangeKey(w, p)).keySet());
                if (common == null) common = s;
                else common.retainAll(s);
            }
            RangeKey rareKey = new RangeKey(rare, p);
            if (common == null) continue;
            common.removeAll(top.of(rareKey).keySet());
            if (common.isEmpty()) continue;
            List<UrlHash> urls = new ArrayList<>(common);
            out.put(rareKey, urls.size() > settings.maxPostingsPerMessage()
                    ? List.copyOf(urls.subList(0, settings.maxPostingsPerMessage())) : urls);
        }
        return out;
    }

    /** Sums the holders' counts per word into document frequencies and tells the caller. */
    private void counted(Map<RangeKey, Integer> perKey) {
        Map<WordHash, Long> df = new LinkedHashMap<>();
        for (WordHash w : request.words()) df.put(w, 0L);
        perKey.forEach((k, n) -> df.merge(k.word(), (long) n, Long::sum));
        documentFrequency = df;
        replyTo.tell(new Counted(df));
    }

    /**
     * Keeps the best {@code limit} candidates, best by the caller's order (ties by URL hash), asks one metadata
     * holder per URL, batched per holder, and (with confirmation) another holder of each of their postings; the
     * rest wait in reserve for refuted ones.
     */
    private Behavior<Command> fetchMetadata() {
        List<RemoteCandidate> best = new ArrayList<>(candidates.values());
        best.sort(request.order() == null ? BEST_FIRST
                : request.order().bestFirst(documentFrequency).thenComparing(RemoteCandidate::url));
        candidates.clear();
        reserve.clear();
        if (best.size() > request.limit()) {
            reserve.addAll(best.subList(request.limit(), best.size()));
            best = best.subList(0, request.limit());
        }
        phase = Phase.METADATA;
        if (best.isEmpty()) return finish();
        admit(best);
        return maybeAdvance();
    }

    /** Candidates that may be shown: their metadata is asked for and, with confirmation, their postings. */
    private void admit(List<RemoteCandidate> batch) {
        Map<PeerId, List<UrlHash>> byPeer = new LinkedHashMap<>();
        Map<RangeKey, List<UrlHash>> needs = new LinkedHashMap<>();
        chooseMetadataHolders(batch);
        for (RemoteCandidate c : batch) {
            candidates.put(c.url(), c);
            PeerId h = metadataHolder(c, 0);
            if (h != null) byPeer.computeIfAbsent(h, x -> new ArrayList<>()).add(c.url());
            if (!settings.confirmPostings()) continue;
            Set<RangeKey> keys = new LinkedHashSet<>();
            for (Posting p : c.postings()) {
                RangeKey k = new RangeKey(p.word(), placement.partitions().partitionOf(p.url()));
                // two holders sent it already (during hand-off both are asked), or this peer's own store did: a
                // confirmation guards against a holder lying in its answer, and this peer does not lie to itself
                Set<PeerId> sent = senders(k, p.url());
                if (sent.size() < 2 && !sent.contains(view.self())) keys.add(k);
            }
            if (keys.isEmpty()) continue;
            unconfirmed.put(c.url(), keys);
            for (RangeKey k : keys) needs.computeIfAbsent(k, x -> new ArrayList<>()).add(c.url());
        }
        byPeer.forEach((peer, urls) -> {
            for (int i = 0; i < urls.size(); i += settings.maxMetadataPerMessage()) {
                sendMetadata(peer, urls.subList(i, Math.min(urls.size(), i + settings.maxMetadataPerMessage())), 0);
            }
        });
        if (!needs.isEmpty()) confirm(needs);
    }

    // ---- confirmation by a second holder

    private Set<PeerId> senders(RangeKey key, UrlHash url) {
        return sentBy.getOrDefault(key, Map.of()).getOrDefault(url, Set.of());
    }

    /**
     * A key's holders in the order confirmations ask them: the current ring's, from a place chosen by the query
     * id, then, during hand-off, those of the recent rings that are still live.
     */
    private List<PeerId> confirmOrder(RangeKey key) {
        return confirmOrder.computeIfAbsent(key, k -> {
            List<PeerId> holders = view.holders(k, placement);
            LinkedHashSet<PeerId> out = new LinkedHashSet<>();
            int start = holders.isEmpty() ? 0
                    : (int) Math.floorMod(queryId + k.partition() * 13L + k.word().hashCode(), (long) holders.size());
            for (int i = 0; i < holders.size(); i++) out.add(holders.get((start + i) % holders.size()));
            long position = k.position(placement.partitions());
            for (Ring ring : previousRings) {
                for (PeerId h : placement.holders(position, ring)) if (view.peers().containsKey(h)) out.add(h);
            }
            return List.copyOf(out);
        });
    }

    /**
     * Asks, for each (key, URL), every holder other than those that sent the posting, at once, one request per
     * holder. A holder that held the key throughout the recent rings and says it does not have the posting refutes
     * it (a made-up or wrong posting is shown only when every other such holder is in on it: with R = 3 and a
     * share h of faking peers, about h^2 of its keys); otherwise one other holder that has it confirms it, and when
     * none answered or all that did are new holders still waiting for their copies (right after R - 1 holders
     * failed), or there are none (one holder for the key), it is kept. A holder that lost its data hides what it
     * should hold until the repair brings it back.
     */
    private void confirm(Map<RangeKey, List<UrlHash>> needs) {
        Map<PeerId, Map<RangeKey, List<UrlHash>>> byPeer = new LinkedHashMap<>();
        needs.forEach((k, urls) -> {
            for (UrlHash u : urls) {
                Set<PeerId> sent = senders(k, u);
                int asked = 0;
                for (PeerId h : confirmOrder(k)) {
                    if (sent.contains(h) || view.owner(h).isEmpty()) continue;
                    asked++;
                    byPeer.computeIfAbsent(h, x -> new LinkedHashMap<>()).computeIfAbsent(k, x -> new ArrayList<>()).add(u);
                }
                if (asked == 0) confirmed(u, k);
                else pendingAnswers.computeIfAbsent(k, x -> new HashMap<>()).put(u, asked);
            }
        });
        byPeer.forEach((peer, asks) -> {
            List<RangeKey> keys = new ArrayList<>(asks.keySet());
            for (int i = 0; i < keys.size(); i += settings.maxKeysPerRequest()) {
                Map<RangeKey, List<UrlHash>> part = new LinkedHashMap<>();
                for (RangeKey k : keys.subList(i, Math.min(keys.size(), i + settings.maxKeysPerRequest()))) {
                    part.put(k, List.copyOf(asks.get(k)));
                }
                askPresence(peer, part, settings.presenceTables());
            }
        });
    }

    /**
     * One confirmation request: as one presence table (each word and URL once, a bit a URL in the answer), or as
     * presence lookups, one a key, the way before tables.
     */
    private void askPresence(PeerId peer, Map<RangeKey, List<UrlHash>> part, boolean asTable) {
        var owner = view.owner(peer);
        if (owner.isEmpty()) {
            part.forEach((k, urls) -> urls.forEach(u -> answeredOne(k, u, false)));
            return;
        }
        long id = nextRequest++;
        confirmRequests++;
        if (asTable) {
            List<PresenceTable.Ask> questions = new ArrayList<>(part.size());
            part.forEach((k, urls) -> questions.add(new PresenceTable.Ask(k.word().value(), k.partition(),
                    urls.stream().map(UrlHash::value).toList())));
            PresenceTable table = PresenceTable.of(questions);
            confirming.put(id, new Confirming(peer, part, table));
            ask(id, peer, owner.get(), ShardOwner.LookupReply.class,
                    r -> ShardOwner.LookupRequest.presence(queryId, table, r));
        } else {
            List<ShardOwner.Lookup> ls = new ArrayList<>(part.size());
            part.forEach((k, urls) -> ls.add(ShardOwner.Lookup.presence(k, urls)));
            confirming.put(id, new Confirming(peer, part, null));
            ask(id, peer, owner.get(), ShardOwner.LookupReply.class,
                    r -> new ShardOwner.LookupRequest(queryId, ls, r));
        }
    }

    /**
     * Another holder's answer: each URL asked it has, or not. Only a key the answer speaks of can refute: one it
     * leaves out (a holder before presence tables answers none), or answers with a malformed pack or bits that do not
     * fit, says nothing, as a holder that did not answer.
     */
    private Behavior<Command> onConfirmed(Confirming c, Object reply) {
        if (!c.peer().equals(view.self())) tally("confirm-reply", reply);
        if (c.table() != null && reply instanceof ShardOwner.LookupReply r && r.heldTable() == null) {
            // a holder before presence tables answers a table with an error (a request without keys) or with
            // nothing: it is asked again the older way, once
            askPresence(c.peer(), c.asked(), false);
            return this;
        }
        Map<RangeKey, Set<UrlHash>> has = new HashMap<>();
        boolean ok = reply instanceof ShardOwner.LookupReply r && r.error().isEmpty();
        if (ok) {
            answered.add(c.peer());
            ShardOwner.LookupReply r = (ShardOwner.LookupReply) reply;
            if (c.table() != null && r.heldTable() != null) {
                try {
                    List<Set<String>> held = c.table().held(r.heldTable());
                    List<RangeKey> keys = List.copyOf(c.asked().keySet()); // the table's key order
                    for (int i = 0; i < keys.size(); i++) {
                        Set<UrlHash> here = new HashSet<>();
                        for (String u : held.get(i)) here.add(new UrlHash(u));
                        has.put(keys.get(i), here);
                    }
                } catch (IllegalArgumentException e) {
                    has.clear(); // bits that do not fit the table say nothing
                }
            }
            for (ShardOwner.KeyPostings kp : r.results()) {
                if (kp == null || !c.asked().containsKey(kp.key()) || has.containsKey(kp.key())) continue;
                if (kp.held() != null) { // a presence lookup's answer: a bit per URL asked
                    List<UrlHash> asked = c.asked().get(kp.key());
                    if (ShardOwner.KeyPostings.fits(kp.held(), asked)) {
                        has.put(kp.key(), new HashSet<>(ShardOwner.KeyPostings.held(kp.held(), asked)));
                    }
                    continue;
                }
                // a holder before presence lookups sends the postings themselves
                try {
                    Set<UrlHash> here = new HashSet<>();
                    for (Posting p : kp.postingList()) if (p.word().equals(kp.key().word())) here.add(p.url());
                    has.put(kp.key(), here);
                } catch (IllegalArgumentException e) {
                    // a malformed pack says nothing
                }
            }
        }
        c.asked().forEach((k, urls) -> {
            boolean authoritative = has.containsKey(k) && heldThroughout(c.peer(), k);
            Set<UrlHash> here = has.getOrDefault(k, Set.of());
            for (UrlHash u : urls) answeredOne(k, u, authoritative && !here.contains(u));
        });
        return maybeAdvance();
    }

    /**
     * One other holder answered on a posting (or failed to): a denial by a holder that held the key throughout
     * refutes it at once; once every one asked has answered otherwise, it stands.
     */
    private void answeredOne(RangeKey k, UrlHash u, boolean denies) {
        Map<UrlHash, Integer> byUrl = pendingAnswers.get(k);
        Integer pending = byUrl == null ? null : byUrl.get(u);
        if (pending == null) return; // decided already
        if (denies) {
            byUrl.remove(u);
            refute(u);
            return;
        }
        if (pending > 1) {
            byUrl.put(u, pending - 1);
            return;
        }
        byUrl.remove(u);
        confirmed(u, k); // confirmed, or nobody could say
    }

    /**
     * Whether {@code peer} holds the key in the current ring and held it in the recent ring that stood longest
     * (rings of a few moments while peers come and go are passed over: with several positions per peer nearly every
     * holder misses some of them): it has had its copies for a while, so what it lacks was never stored.
     */
    private boolean heldThroughout(PeerId peer, RangeKey key) {
        long position = key.position(placement.partitions());
        if (!placement.holds(peer, position, view.ring())) return false;
        return previousRings.isEmpty() || placement.holds(peer, position, previousRings.get(0));
    }

    private void confirmed(UrlHash url, RangeKey key) {
        Set<RangeKey> waiting = unconfirmed.get(url);
        if (waiting == null) return;
        waiting.remove(key);
        if (!waiting.isEmpty()) return;
        unconfirmed.remove(url);
        RemoteCandidate c = candidates.get(url);
        if (c != null && c.metadata() != null) emit(List.of(c));
    }

    /** No other holder has one of the candidate's postings: it is dropped and the best in reserve takes its place. */
    private void refute(UrlHash url) {
        if (unconfirmed.remove(url) == null) return;
        candidates.remove(url);
        refuted++;
        ctx.getLog().debug("candidate {} refuted: a holder of one of its keys does not have its posting", url);
        if (!reserve.isEmpty() && phase == Phase.METADATA) admit(List.of(reserve.remove(0)));
    }

    /** per URL, the live peers its metadata may be asked of, in the order they are asked */
    private final Map<UrlHash, List<PeerId>> metadataOrder = new HashMap<>();

    /**
     * The live metadata holders of a URL, then the crawling peer (which always keeps its metadata), from a place
     * chosen by the query id. With {@link DhtSettings#independentMetadata()} never another peer whose postings
     * named the URL: it cannot vouch for a URL it may have invented (this peer's own records may serve any URL).
     */
    private List<PeerId> metadataOrder(RemoteCandidate c) {
        return metadataOrder.computeIfAbsent(c.url(), u -> {
            List<PeerId> hs = new ArrayList<>(placement.metadataHolders(c.url(), view.ring()));
            PeerId crawler = c.postings().get(0).holder();
            // this peer's own records are never in question, whoever named the URL
            if (settings.independentMetadata() && c.from() != null && !c.from().equals(view.self())) {
                hs.remove(c.from());
                if (c.from().equals(crawler)) crawler = null;
            }
            List<PeerId> out = new ArrayList<>();
            int start = hs.isEmpty() ? 0 : (int) Math.floorMod(queryId + c.url().hashCode(), (long) hs.size());
            for (int i = 0; i < hs.size(); i++) {
                PeerId h = hs.get((start + i) % hs.size());
                if (view.owner(h).isPresent()) out.add(h);
            }
            if (crawler != null && !out.contains(crawler) && view.owner(crawler).isPresent()) out.add(crawler);
            return out;
        });
    }

    /**
     * Who is asked first for the metadata of these candidates: this peer for every URL it holds (no message), then,
     * greedily, the holder of the most URLs left, so the batch takes as few requests as its holders allow.
     */
    private void chooseMetadataHolders(List<RemoteCandidate> batch) {
        Map<UrlHash, PeerId> first = new HashMap<>();
        for (RemoteCandidate c : batch) if (metadataOrder(c).contains(view.self())) first.put(c.url(), view.self());
        while (true) {
            Map<PeerId, Integer> covers = new LinkedHashMap<>();
            for (RemoteCandidate c : batch) {
                if (first.containsKey(c.url())) continue;
                for (PeerId h : metadataOrder(c)) covers.merge(h, 1, Integer::sum);
            }
            if (covers.isEmpty()) break;
            PeerId best = null;
            for (var e : covers.entrySet()) if (best == null || e.getValue() > covers.get(best)) best = e.getKey();
            for (RemoteCandidate c : batch) {
                if (!first.containsKey(c.url()) && metadataOrder(c).contains(best)) first.put(c.url(), best);
            }
        }
        first.forEach((u, h) -> {
            List<PeerId> order = new ArrayList<>(metadataOrder.get(u));
            order.remove(h);
            order.add(0, h);
            metadataOrder.put(u, order);
        });
    }

    /** The {@code attempt}-th peer to ask for a candidate's metadata, or null when none is left. */
    private PeerId metadataHolder(RemoteCandidate c, int attempt) {
        List<PeerId> order = metadataOrder(c);
        return attempt < order.size() ? order.get(attempt) : null;
    }

    private void sendMetadata(PeerId peer, List<UrlHash> urls, int attempt) {
        var owner = view.owner(peer);
        if (owner.isEmpty()) return;
        long id = nextRequest++;
        outstanding.put(id, new Outstanding(peer, List.of(), List.copyOf(urls), attempt, "metadata"));
        ask(id, peer, owner.get(), ShardOwner.MetadataReply.class,
                r -> new ShardOwner.FetchMetadata(queryId, List.copyOf(urls), r, true));
    }

    private void retryMetadata(Outstanding o) {
        Map<PeerId, List<UrlHash>> byPeer = new LinkedHashMap<>();
        for (UrlHash u : o.urls()) {
            RemoteCandidate c = candidates.get(u);
            if (c == null || metadata.containsKey(u)) continue;
            PeerId h = metadataHolder(c, o.attempt() + 1);
            if (h == null) {
                incomplete = true;
                continue;
            }
            byPeer.computeIfAbsent(h, x -> new ArrayList<>()).add(u);
        }
        byPeer.forEach((peer, urls) -> sendMetadata(peer, urls, o.attempt() + 1));
    }

    /** Candidates ready to be shown (metadata in, postings confirmed): streamed to the caller. */
    private void emit(List<RemoteCandidate> ready) {
        if (firstResult < 0) firstResult = elapsedMillis();
        replyTo.tell(new Found(ready));
    }

    private long elapsedMillis() {
        return env.millis() - started;
    }

    private Behavior<Command> finish() {
        if (!outstanding.isEmpty() && phase != Phase.DONE) incomplete = true;
        phase = Phase.DONE;
        List<RemoteCandidate> all = new ArrayList<>();
        for (RemoteCandidate c : candidates.values()) {
            if (c.metadata() != null && !unconfirmed.containsKey(c.url())) all.add(c);
        }
        if (!unconfirmed.isEmpty()) incomplete = true;
        all.sort(BEST_FIRST);
        double perPosting = postingsReceived == 0 ? 40.0 : (double) postingBytes / postingsReceived;
        long naive = (long) (totalPostingsCounted * perPosting);
        Cost c = new Cost(asked.size(), answered.size(), messages, bytes, naive, firstResult, elapsedMillis(), timeouts,
                handoffRequests, rejectedMetadata, confirmRequests, refuted, byKind);
        replyTo.tell(new Finished(all, c, !incomplete));
        if (cache != null && settings.cacheRemoteResults() && !all.isEmpty()) cacheLocally(all);
        return Behaviors.stopped();
    }

    /** Remote results kept locally with a TTL, so a refinement is answered from the local index first. */
    private void cacheLocally(List<RemoteCandidate> found) {
        long expires = env.millis() / 1000 + settings.cacheTtl().toSeconds();
        PeerId self = view.self();
        CompletableFuture.runAsync(() -> {
            var batch = cache.store().newBatch();
            int n = 0;
            for (RemoteCandidate c : found) {
                for (Posting p : c.postings()) {
                    if (cache.rwi().get(p.word(), p.url()).isPresent()) continue;
                    PeerId from = c.from() == null ? self : c.from();
                    cache.rwi().addTo(batch, p.asCached(from, expires));
                    n++;
                }
                // learned, not held: shown to this peer's searchers, never served to others as if it held it
                if (c.metadata() != null && !cache.metadata().contains(c.url())) cache.metadata().putLearnedTo(batch, c.metadata());
            }
            cache.store().write(batch, false);
            cache.stats().add(0, n);
        }, cacheWrites);
    }
}
