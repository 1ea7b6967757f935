package org.peerdex.actors.search;

import java.util.List;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.ranking.Scorer;

/**
 * Where candidates come from: this peer's index now, remote peers later. A source is started once per query
 * and answers with {@link Answer}s to {@code replyTo}, asynchronously, possibly late, several times and in any
 * order; it ends with an answer whose {@code last} is true (or the coordinator's timeout ends it).
 */
public interface CandidateSource {
    /** A short name for progress and logs ("local", a peer id, ...). */
    String name();

    /** True if what it returns was learned from another peer (cached locally with a TTL). */
    boolean remote();

    /** True for an outside search engine (docs/federation.md): asked when the request federates. */
    default boolean federated() {
        return false;
    }

    /** What kind of source it is, for the per-source report ("local", "dht", or a federated source's format). */
    default String kind() {
        return remote() ? "dht" : "local";
    }

    void start(SearchRequest request, ActorRef<Answer> replyTo);

    /**
     * Starts with the query's ranking at hand: {@code ranking} makes a scorer of the coordinator's own (profile,
     * link rank, feedback, language, media), fresh for this source; a source that keeps only its best candidates
     * keeps them by it. Call it on the caller's thread. By default the scorer is not used.
     */
    default void start(SearchRequest request, Supplier<Scorer> ranking, ActorRef<Answer> replyTo) {
        start(request, replyTo);
    }

    /** What a source sends back. */
    sealed interface Answer {}

    /**
     * Candidates that contain every term (the source joins across words itself, e.g. with the rarest word's
     * filter), with the statistics BM25 needs from the source's view of the collection.
     */
    record CandidatesFound(String source, List<Candidate> candidates, CorpusStats stats, boolean last)
            implements Answer {
        public CandidatesFound {
            candidates = List.copyOf(candidates);
        }
    }

    /** Network cost of a remote source, added to the query's totals. */
    record PeersContacted(String source, int peersAsked, int peersAnswered, long messages, long bytes)
            implements Answer {}

    record SourceFailed(String source, String reason) implements Answer {}

    /** The source gave up waiting after {@code afterMillis} (its own bound, shorter than the query's). */
    record SourceTimedOut(String source, long afterMillis) implements Answer {}
}
