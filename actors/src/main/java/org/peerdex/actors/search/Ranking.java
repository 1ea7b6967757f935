package org.peerdex.actors.search;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.ranking.Explanation;
import org.peerdex.actors.search.ranking.Factor;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.protocol.hash.UrlHash;

/**
 * Scores and re-ranks one query's candidates as they arrive, with the query's {@link Scorer}: after every batch
 * it answers with the current top of the ranking (scores are provisional until the last batch, since the
 * sources' corpus statistics are merged as they arrive). A URL seen twice keeps its first (local) postings.
 * Results of federated sources have no postings: they get a fixed score from {@link #externalScore} and give way
 * to an index candidate of the same URL, whichever arrives first.
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
    private final Set<UrlHash> seen = new HashSet<>();
    private final Map<UrlHash, RankedCandidate> external = new HashMap<>();
    private final double externalScale;

    public static Behavior<Command> create(Scorer scorer) {
        return Behaviors.setup(ctx -> new Ranking(ctx, scorer));
    }

    private Ranking(ActorContext<Command> ctx, Scorer scorer) {
        super(ctx);
        this.scorer = scorer;
        this.externalScale = externalScale(scorer.profile());
    }

    /**
     * Half the best score a document of ours can reach before post-ranking (every pre-ranking factor at the top of
     * its range): a federated source's first result at weight 1 ranks like a middling document of ours.
     */
    static double externalScale(RankingProfile profile) {
        double max = 0;
        for (Factor f : Factor.values()) {
            if (!f.post()) max += Math.max(0, profile.coefficient(f));
        }
        return max > 0 ? max / 2 : 1;
    }

    /** A federated result's score: the source's weight times the scale, decaying with its place in that source. */
    static double externalScore(ExternalHit hit, double scale) {
        return hit.weight() * scale / (1 + (Math.max(1, hit.rank()) - 1) / 10.0);
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
        // every source sees a part of the collection: their statistics are merged, and every candidate is scored
        // under the merged ones (not under whichever source answered last)
        if (m.stats() != null) scorer.updateStats(scorer.stats().merge(m.stats()));
        for (Candidate c : m.candidates()) {
            if (c.isExternal()) {
                if (!seen.contains(c.url()) && !external.containsKey(c.url())) {
                    double score = externalScore(c.external(), externalScale);
                    external.put(c.url(), new RankedCandidate(c, score, externalExplanation(c.external(), score)));
                }
            } else if (seen.add(c.url())) {
                external.remove(c.url());
                scorer.add(c);
            }
        }
        m.replyTo().tell(top(m.top(), m.explain()));
        return this;
    }

    private Ranked top(int n, boolean explain) {
        TopK<RankedCandidate> best = new TopK<>(Math.max(1, n), Comparator
                .comparingDouble(RankedCandidate::score).reversed()
                .thenComparing(r -> r.candidate().url()));
        for (Scorer.Scored s : scorer.all()) best.offer(new RankedCandidate(s.candidate(), scorer.score(s), null));
        for (RankedCandidate r : external.values()) best.offer(r);
        List<RankedCandidate> out = new ArrayList<>(best.size());
        for (RankedCandidate r : best.sorted()) {
            if (r.candidate().isExternal()) out.add(explain ? r : new RankedCandidate(r.candidate(), r.score(), null));
            else out.add(explain ? new RankedCandidate(r.candidate(), r.score(), scorer.explain(scorer.get(r.candidate().url()))) : r);
        }
        return new Ranked(out, scorer.size() + external.size());
    }

    private Explanation externalExplanation(ExternalHit hit, double score) {
        return new Explanation(score, Map.of("federated",
                new Explanation.Part(hit.rank(), 1 / (1 + (Math.max(1, hit.rank()) - 1) / 10.0),
                        hit.weight() * externalScale, score)));
    }
}
