package org.peerdex.actors.search;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.query.Query;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.rwi.Posting;

/**
 * This peer's own index as a candidate source: reads each term's posting list (sorted by URL hash) on the
 * search dispatcher, drops expired cached postings and other languages, and merge-joins them.
 */
public final class LocalIndexSource implements CandidateSource {
    /** At most this many candidates are handed to ranking (the lists are still joined in full). */
    public static final int MAX_CANDIDATES = 50_000;
    private final PeerStorage storage;
    private final Executor blocking;

    public LocalIndexSource(PeerStorage storage, Executor blocking) {
        this.storage = storage;
        this.blocking = blocking;
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public boolean remote() {
        return false;
    }

    @Override
    public void start(SearchRequest request, ActorRef<Answer> replyTo) {
        CompletableFuture.supplyAsync(() -> lookup(request.query()), blocking).whenComplete((answer, error) ->
                replyTo.tell(error != null ? new SourceFailed(name(), String.valueOf(error.getMessage())) : answer));
    }

    /** The lookup itself, synchronous (also used by benchmarks). */
    public CandidatesFound lookup(Query q) {
        long now = System.currentTimeMillis() / 1000;
        String lang = q.language().orElse("");
        List<List<Posting>> lists = new ArrayList<>();
        Map<String, Long> df = new HashMap<>();
        for (String term : q.terms()) {
            List<Posting> raw = storage.rwi().postings(WordHash.of(term));
            df.put(term, (long) raw.size());
            List<Posting> kept = new ArrayList<>(raw.size());
            for (Posting p : raw) {
                if (p.expiresAt() != 0 && p.expiresAt() < now) continue;
                if (!lang.isEmpty() && !p.language().isEmpty() && !p.language().equals(lang)) continue;
                kept.add(p);
            }
            lists.add(kept);
            if (kept.isEmpty()) break; // nothing can match
        }
        List<List<Posting>> exclusions = new ArrayList<>();
        if (lists.size() == q.terms().size() && lists.stream().noneMatch(List::isEmpty)) {
            for (String e : q.exclusions()) exclusions.add(storage.rwi().postings(WordHash.of(e)));
        }
        List<Candidate> candidates = lists.size() < q.terms().size() ? List.of()
                : Intersection.intersect(lists, exclusions);
        candidates = phraseFilter(q, candidates);
        if (candidates.size() > MAX_CANDIDATES) candidates = candidates.subList(0, MAX_CANDIDATES);
        // no average length: the DHT cannot know the same one, so every source leaves it nominal (CorpusStats)
        CorpusStats stats = new CorpusStats(storage.stats().documents(), df, 0);
        return new CandidatesFound(name(), candidates, stats, true);
    }

    /** Drops candidates whose positions prove a phrase absent (the text check follows when results resolve). */
    static List<Candidate> phraseFilter(Query q, List<Candidate> candidates) {
        if (q.phrases().isEmpty()) return candidates;
        List<Candidate> out = new ArrayList<>(candidates.size());
        next:
        for (Candidate c : candidates) {
            for (List<String> phrase : q.phrases()) {
                List<Posting> ps = new ArrayList<>();
                for (String w : phrase) {
                    int i = q.terms().indexOf(w);
                    ps.add(i < 0 ? null : c.postings().get(i));
                }
                if (!PhraseMatcher.possibleByPositions(ps)) continue next;
            }
            out.add(c);
        }
        return out;
    }
}
