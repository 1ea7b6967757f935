package org.peerdex.actors.dht.search;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.peerdex.actors.Dispatchers;
import org.peerdex.actors.dht.DhtEnvironment;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.actors.dht.shard.HeldArcs;
import org.peerdex.actors.search.Candidate;
import org.peerdex.actors.search.CandidateSource;
import org.peerdex.actors.search.SearchRequest;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.rwi.Posting;

/**
 * The network as a candidate source of the QueryCoordinator (resource=global): runs one {@link RemoteSearch}
 * per query over the current ring and turns its events into candidates. Metadata that arrives is stored in the
 * local metadata store first (the coordinator resolves results locally), then the candidates are passed on;
 * the coordinator caches the postings with a TTL. The cost comes as a {@link CandidateSource.PeersContacted}.
 * <p>Statistics: each word's document frequency is its holders' counts summed over the partitions (the global
 * df), N an estimate of the collection's size ({@link #estimatedDocuments}); RemoteSearch fetches metadata for
 * the best candidates by the querying peer's own score under these statistics (the ranking profile given here),
 * so the candidates it leaves out are ones the coordinator would rank lower.
 */
public final class DhtCandidateSource implements CandidateSource {
    private static final AtomicLong SEQ = new AtomicLong();
    private final ActorSystem<?> system;
    private final DhtPeer dht;
    private final Executor search;
    /** how long after a ring change lookups also ask previous holders */
    private final Duration handoffWindow;

    private final Supplier<RankingProfile> profile;

    public DhtCandidateSource(ActorSystem<?> system, DhtPeer dht) {
        this(system, dht, RankingProfile::defaults);
    }

    /** @param profile the ranking profile the peer's coordinator uses (to choose which candidates to fetch) */
    public DhtCandidateSource(ActorSystem<?> system, DhtPeer dht, Supplier<RankingProfile> profile) {
        this.profile = profile;
        this.system = system;
        this.dht = dht;
        this.search = Dispatchers.search(system);
        var config = system.settings().config();
        this.handoffWindow = config.hasPath("peerdex.dht.handoff-window")
                ? config.getDuration("peerdex.dht.handoff-window") : Duration.ofSeconds(60);
    }

    @Override
    public String name() {
        return "dht";
    }

    @Override
    public boolean remote() {
        return true;
    }

    @Override
    public void start(SearchRequest request, ActorRef<Answer> replyTo) {
        PeerView view = dht.view().get();
        List<String> terms = request.query().terms();
        if (view == null || view.others().isEmpty() || terms.isEmpty()) {
            replyTo.tell(new CandidatesFound(name(), List.of(), new CorpusStats(0, Map.of(), 0), true));
            return;
        }
        List<WordHash> words = new ArrayList<>();
        for (String t : terms) words.add(WordHash.of(t));
        int limit = candidatesWanted(request.offset() + request.count(), dht.settings().maxPostingsPerMessage());
        long id = SEQ.incrementAndGet();
        long documents = estimatedDocuments(view);
        ActorRef<RemoteSearch.Event> bridge = system.systemActorOf(bridge(terms, words, documents, replyTo),
                "dht-source-" + id, Props.empty());
        List<Ring> previous = dht.view().recentRings(handoffWindow,
                DhtEnvironment.get(system).millis());
        // a one-word query under the default profile is ranked here exactly as the holders rank (no slack over
        // the one-word block score): their best of a partition are this peer's best there
        boolean asHolders = terms.size() == 1
                && scorer(request, stats(documents, Map.of(), terms, words)).oneWordBlockSlack(0) == 0;
        RemoteSearch.CandidateOrder order = new RemoteSearch.CandidateOrder() {
            @Override
            public Comparator<RemoteSearch.RemoteCandidate> bestFirst(Map<WordHash, Long> df) {
                return DhtCandidateSource.this.bestFirst(request, terms, words, stats(documents, df, terms, words));
            }

            @Override
            public boolean oneWordAsHolders() {
                return asHolders;
            }

            @Override
            public Map<WordHash, Double> weights(Map<WordHash, Long> df) {
                CorpusStats st = stats(documents, df, terms, words);
                Map<WordHash, Double> out = new HashMap<>();
                for (int i = 0; i < words.size() && i < terms.size(); i++) {
                    out.put(words.get(i), Math.max(1e-6, st.idf(terms.get(i))));
                }
                return out;
            }

            @Override
            public ToDoubleFunction<RemoteSearch.RemoteCandidate> scores(Map<WordHash, Long> df) {
                return scoring(request, terms, words, stats(documents, df, terms, words));
            }

            @Override
            public double wordPartsSlack() {
                return scorer(request, stats(documents, Map.of(), terms, words)).wordPartsSlack(0);
            }
        };
        system.systemActorOf(RemoteSearch.create(new RemoteSearch.Request(words, limit, order), view, previous,
                dht.placement(), dht.settings(), null, bridge), "remote-search-" + id, Props.empty());
    }

    /**
     * How many candidates a search wants of the network for a page ending at result {@code need}: the page and a
     * half again (at least 5 more), the margin for candidates the coordinator ranks otherwise (link rank,
     * feedback) or drops (filters, a refuted posting); each holder's join answer and the metadata fetched are
     * bounded by it.
     */
    static int candidatesWanted(int need, int maxPostingsPerMessage) {
        return Math.min(maxPostingsPerMessage, need + Math.max(5, need / 2));
    }

    /** Stores each batch's metadata locally, then forwards the batch; order is kept by chaining the writes. */
    private Behavior<RemoteSearch.Event> bridge(List<String> terms, List<WordHash> words, long documents,
                                                ActorRef<Answer> replyTo) {
        CompletableFuture<?>[] chain = {CompletableFuture.completedFuture(null)};
        Map<String, Long> df = new HashMap<>();
        return Behaviors.receiveMessage(e -> {
            if (e instanceof RemoteSearch.Counted c) {
                df.putAll(stats(documents, c.documentFrequency(), terms, words).documentFrequency());
                return Behaviors.same();
            }
            if (e instanceof RemoteSearch.Found f) {
                List<Candidate> cs = candidates(f.candidates(), terms, words);
                List<RemoteSearch.RemoteCandidate> found = f.candidates();
                CorpusStats st = new CorpusStats(documents, df, 0);
                chain[0] = chain[0].thenRunAsync(() -> {
                    storeMetadata(found);
                    replyTo.tell(new CandidatesFound(name(), cs, st, false));
                }, search);
                return Behaviors.same();
            }
            RemoteSearch.Finished fin = (RemoteSearch.Finished) e;
            RemoteSearch.Cost c = fin.cost();
            if (c.rejectedMetadata() > 0) dht.stats().rejectedMetadata.addAndGet(c.rejectedMetadata());
            c.byKind().forEach((kind, t) -> dht.stats().addSearchTraffic(kind, t.messages(), t.bytes()));
            CorpusStats st = new CorpusStats(documents, df, 0);
            chain[0].whenComplete((x, err) -> {
                replyTo.tell(new PeersContacted(name(), c.peersAsked(), c.peersAnswered(), c.messages(), c.bytes()));
                replyTo.tell(new CandidatesFound(name(), List.of(), st, true));
            });
            return Behaviors.stopped();
        });
    }

    /** The DHT's statistics: N, and each query term's df from the holders' counts of its word hash. */
    private static CorpusStats stats(long documents, Map<WordHash, Long> byWord, List<String> terms,
                                     List<WordHash> words) {
        Map<String, Long> df = new HashMap<>();
        for (int i = 0; i < terms.size(); i++) {
            Long n = byWord.get(words.get(i));
            if (n != null) df.put(terms.get(i), n);
        }
        return new CorpusStats(documents, df, 0);
    }

    /** N for BM25 as this peer estimates it now ({@link #estimateDocuments}). */
    long estimatedDocuments(PeerView view) {
        return estimateDocuments(dht.storage().stats().documents(), view.self(), view.ring(), dht.placement());
    }

    /**
     * N for BM25. No peer counts the whole collection, but a peer keeps the metadata of its own crawl (about 1/P
     * of the collection) and of every URL whose position lies on the arcs it is one of the R metadata holders of
     * (a share f of the ring it can measure), so its metadata count {@code local} over (f + 1/P) estimates N;
     * never below {@code local}.
     */
    public static long estimateDocuments(long local, PeerId self,
                                         Ring ring,
                                         Placement placement) {
        local = Math.max(1, local);
        int n = ring.size();
        if (!ring.contains(self) || n <= placement.redundancy()) return local;
        double share = HeldArcs.of(self, placement, ring).share();
        return Math.max(local, Math.round(local / (share + 1.0 / n)));
    }

    /** Best first by the coordinator's own score (the given profile, no link rank or feedback). */
    private Comparator<RemoteSearch.RemoteCandidate> bestFirst(SearchRequest request, List<String> terms,
                                                                List<WordHash> words, CorpusStats stats) {
        ToDoubleFunction<RemoteSearch.RemoteCandidate> score = scoring(request, terms, words, stats);
        Map<RemoteSearch.RemoteCandidate, Double> scores = new IdentityHashMap<>();
        return Comparator.<RemoteSearch.RemoteCandidate>comparingDouble(rc -> scores.computeIfAbsent(rc,
                score::applyAsDouble)).reversed();
    }

    /** The coordinator's own score of a candidate (the given profile, no link rank or feedback). */
    private ToDoubleFunction<RemoteSearch.RemoteCandidate> scoring(SearchRequest request, List<String> terms,
                                                                   List<WordHash> words, CorpusStats stats) {
        Scorer scorer = scorer(request, stats);
        return rc -> scorer.scoreOf(candidates(List.of(rc), terms, words).get(0));
    }

    private Scorer scorer(SearchRequest request, CorpusStats stats) {
        return new Scorer(request.query(), profile.get(), stats, LinkRank.NONE, u -> 0, "", request.contentDomain());
    }

    private void storeMetadata(List<RemoteSearch.RemoteCandidate> found) {
        var batch = dht.storage().store().newBatch();
        for (RemoteSearch.RemoteCandidate c : found) {
            if (c.metadata() != null && !dht.storage().metadata().contains(c.url())) {
                dht.storage().metadata().putLearnedTo(batch, c.metadata()); // learned, not held (never served on)
            }
        }
        dht.storage().store().write(batch, false);
    }

    /** RemoteSearch postings are in distinct-word order; a Candidate wants one posting per query term. */
    static List<Candidate> candidates(List<RemoteSearch.RemoteCandidate> rcs, List<String> terms, List<WordHash> words) {
        List<WordHash> distinct = new ArrayList<>(new LinkedHashSet<>(words));
        List<Candidate> out = new ArrayList<>();
        for (RemoteSearch.RemoteCandidate rc : rcs) {
            List<Posting> ps = new ArrayList<>();
            for (int i = 0; i < terms.size(); i++) ps.add(rc.postings().get(distinct.indexOf(words.get(i))));
            out.add(new Candidate(rc.url(), ps));
        }
        return out;
    }
}
