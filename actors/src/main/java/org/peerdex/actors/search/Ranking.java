package org.peerdex.actors.search;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.ranking.Explanation;
import org.peerdex.actors.search.ranking.Scorer;

/**
 * Scores and re-ranks one query's candidates as they arrive, with the query's {@link Scorer}: after every batch
 * it answers with the current top of the ranking (scores are provisional until the last batch, since
 * normalization runs over the candidates seen so far). A URL seen twice keeps its first (local) postings.
 */
public final class Ranking extends AbstractBehavior<Ranking.Command> {
    /** What the ranking accepts. */
    public sealed interface Command {}

    /** New candidates (and newer statistics); answer the top {@code top}. */
    public record AddCandidates(List<Candidate> candidates, CorpusStats stats, int top, boolean explain,
                                ActorRef<Ranked> replyTo) implements Command {}

    /** The current top {@code top} without new candidates. */
    public record GetTop(int top, boolean explain, ActorRef<Ranked> replyTo) implements Command {}

    public enum Stop implements Command { INSTANCE }

    /** One ranked candidate; {@code explanation} only when asked for. */
    public record RankedCandidate(Candidate candidate, double score, Explanation explanation) {}

    /** The top of the ranking and how many candidates there are in all. */
    public record Ranked(List<RankedCandidate> top, int total) {}

    private final Scorer scorer;
    private final java.util.Set<org.peerdex.protocol.hash.UrlHash> seen = new java.util.HashSet<>();

    public static Behavior<Command> create(Scorer scorer) {
        return Behaviors.setup(ctx -> new Ranking(ctx, scorer));
    }

    private Ranking(ActorContext<Command> ctx, Scorer scorer) {
        super(ctx);
        this.scorer = scorer;
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(AddCandidates.class, this::onAdd)
                .onMessage(GetTop.class, m -> {
                    m.replyTo().tell(top(m.top(), m.explain()));
                    return this;
                })
                .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
                .build();
    }

    private Behavior<Command> onAdd(AddCandidates m) {
        if (m.stats() != null) scorer.updateStats(m.stats());
        for (Candidate c : m.candidates()) if (seen.add(c.url())) scorer.add(c);
        m.replyTo().tell(top(m.top(), m.explain()));
        return this;
    }

    private Ranked top(int n, boolean explain) {
        TopK<RankedCandidate> best = new TopK<>(Math.max(1, n), java.util.Comparator
                .comparingDouble(RankedCandidate::score).reversed()
                .thenComparing(r -> r.candidate().url()));
        for (Scorer.Scored s : scorer.all()) best.offer(new RankedCandidate(s.candidate(), scorer.score(s), null));
        List<RankedCandidate> out = new ArrayList<>(best.size());
        for (RankedCandidate r : best.sorted()) {
            out.add(explain ? new RankedCandidate(r.candidate(), r.score(), scorer.explain(scorer.get(r.candidate().url()))) : r);
        }
        return new Ranked(out, scorer.size());
    }
}
