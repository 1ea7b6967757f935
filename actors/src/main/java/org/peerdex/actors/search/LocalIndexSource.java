package org.peerdex.actors.search;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.peerdex.actors.search.query.Query;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.ranking.FeedbackStore;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.kv.KeyValueStore;

/**
 * This peer's own index as a candidate source: on the search dispatcher, counts each term's postings (the
 * document frequencies BM25 needs), then scores every document that matches with the query's own {@link Scorer}
 * and hands the best {@link #MAX_CANDIDATES} to ranking ({@link QueryEvaluator}: postings streamed, expired cached
 * postings and other languages dropped, phrases checked by position). Nothing is cut before it is scored, so on a
 * large peer a common word ranks all its documents, not the first ones in URL-hash order.
 */
public final class LocalIndexSource implements CandidateSource {
    /** At most this many candidates, the best by the query's score, are handed to ranking. */
    public static final int MAX_CANDIDATES = 50_000;
    /** Feedback entries read into memory once per query; with more, each match's feedback is read on its own. */
    static final int FEEDBACK_SNAPSHOT = 100_000;
    /** Words whose posting count is remembered while the index does not change. */
    private static final int FREQUENCY_CACHE = 4096;

    private final PeerStorage storage;
    private final Executor blocking;
    private final int maxCandidates;
    private final FeedbackStore feedback;
    /** now, in milliseconds since the epoch: what expired cached postings are judged by */
    private final LongSupplier clock;
    private final Map<WordHash, long[]> frequencies = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<WordHash, long[]> eldest) {
            return size() > FREQUENCY_CACHE;
        }
    };

    public LocalIndexSource(PeerStorage storage, Executor blocking) {
        this(storage, blocking, MAX_CANDIDATES);
    }

    /** @param maxCandidates how many of the best candidates to hand to ranking (tests lower it) */
    public LocalIndexSource(PeerStorage storage, Executor blocking, int maxCandidates) {
        this(storage, blocking, maxCandidates, System::currentTimeMillis);
    }

    /**
     * @param clock now in milliseconds since the epoch, the clock the peer's cached postings were given their expiry
     *              by (a simulation's virtual peers: simulated time)
     */
    public LocalIndexSource(PeerStorage storage, Executor blocking, int maxCandidates, LongSupplier clock) {
        if (maxCandidates < 1) throw new IllegalArgumentException("maxCandidates must be positive");
        this.clock = clock;
        this.storage = storage;
        this.blocking = blocking;
        this.maxCandidates = maxCandidates;
        this.feedback = new FeedbackStore(storage.store());
        // the blocks folded from now on carry the bound this source's one-word queries skip blocks by
        storage.rwi().scoreBlocksWith(Scorer.ONE_WORD_BLOCKS);
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public boolean remote() {
        return false;
    }

    /** Without the coordinator's scorer: the default profile, no link rank, the request's media. */
    @Override
    public void start(SearchRequest request, ActorRef<Answer> replyTo) {
        start(request, () -> defaultScorer(request.query(), request.contentDomain()), replyTo);
    }

    @Override
    public void start(SearchRequest request, Supplier<Scorer> ranking, ActorRef<Answer> replyTo) {
        Scorer scorer = ranking.get();
        CompletableFuture.supplyAsync(() -> lookup(request.query(), scorer), blocking).whenComplete((answer, error) ->
                replyTo.tell(error != null ? new SourceFailed(name(), String.valueOf(error.getMessage())) : answer));
    }

    /** The lookup, synchronous, ranked by the default profile (benchmarks and the simulator's oracle). */
    public CandidatesFound lookup(Query q) {
        return lookup(q, defaultScorer(q, "text"));
    }

    /** The lookup, synchronous: the best candidates by {@code scorer} (used on this thread only). */
    public CandidatesFound lookup(Query q, Scorer scorer) {
        Lookup l = evaluate(q, scorer, maxCandidates);
        return new CandidatesFound(name(), l.evaluation().top(), l.stats(), true);
    }

    /** A lookup's candidates with the statistics they were scored under. */
    public record Lookup(QueryEvaluator.Evaluation evaluation, CorpusStats stats) {}

    /** Evaluates {@code q} for its best {@code k} by {@code scorer}, which gets this index's statistics. */
    public Lookup evaluate(Query q, Scorer scorer, int k) {
        Map<String, Long> df = new HashMap<>();
        for (String term : q.terms()) df.put(term, frequency(WordHash.of(term)));
        // no average length: the DHT cannot know the same one, so every source leaves it nominal (CorpusStats)
        CorpusStats stats = new CorpusStats(storage.stats().documents(), df, 0);
        Optional<Map<UrlHash, Double>> fb = feedback.values(FEEDBACK_SNAPSHOT);
        Scorer s = fb.map(m -> scorer.withFeedback(u -> m.getOrDefault(u, 0.0))).orElse(scorer);
        s.updateStats(stats);
        QueryEvaluator.FeedbackBound bound = fb.map(QueryEvaluator.FeedbackBound::of)
                .orElse(QueryEvaluator.FeedbackBound.UNKNOWN);
        QueryEvaluator.Evaluation e = QueryEvaluator.evaluate(storage.rwi(), q, df, s, bound, k,
                clock.getAsLong() / 1000);
        return new Lookup(e, stats);
    }

    /** A word's posting count; remembered while the store reports no index write since it was counted. */
    private long frequency(WordHash word) {
        KeyValueStore store = storage.store();
        long generation = store.indexGeneration();
        if (generation >= 0) {
            synchronized (frequencies) {
                long[] known = frequencies.get(word);
                if (known != null && known[0] == generation) return known[1];
            }
        }
        long n = storage.rwi().count(word);
        if (generation >= 0 && store.indexGeneration() == generation) {
            synchronized (frequencies) {
                frequencies.put(word, new long[] {generation, n});
            }
        }
        return n;
    }

    /** The scorer of a query without a coordinator: the default profile, no link rank, no preferred language. */
    private Scorer defaultScorer(Query q, String contentDomain) {
        return new Scorer(q, RankingProfile.defaults(), new CorpusStats(1, Map.of(), 0), LinkRank.NONE,
                feedback::value, "", contentDomain);
    }
}
