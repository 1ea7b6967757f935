package org.peerdex.actors.search;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.peerdex.actors.search.query.Query;
import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.rwi.HashBytes;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * The best {@code k} documents of a query in this peer's index by the query's own {@link Scorer}, without
 * dropping any match unscored: document-at-a-time over one {@link PostingCursor} per term (rarest word leading,
 * the others jumping to its URLs), a bounded heap of the k best (memory follows k, not the number of matches),
 * and MaxScore-style pruning with the bounds the present layout gives: a match's first posting fixes every factor
 * of the document, and each posting read tightens the bound on the rest ({@link Scorer#upperBound}: unknown terms
 * at their best), so a match whose bound falls below the k-th best score so far is passed over without reading
 * its remaining postings. Keys are compared packed; only postings of
 * matches are decoded. The result is exactly the top k of scoring every match (ties by URL hash, as
 * {@code Ranking} breaks them), which {@code QueryEvaluatorTest} checks on a real corpus.
 *
 * <p>Block-max pruning, for one-word queries the blocks' stored scores bound ({@link Scorer#oneWordBlockSlack}: the
 * default coefficients, text media): each folded block carries the highest {@link Scorer#ONE_WORD_BLOCKS} score of
 * its postings, and once the heap is full a block whose highest score, plus what the scorer may add to it (preferred
 * language, link rank, the block's URLs' feedback), is below the k-th best is passed over whole, its postings neither
 * decoded nor scored. Fresh postings (not folded yet) are always scored. Several words, other profiles and other
 * media read every posting of the leading word, as before.
 */
public final class QueryEvaluator {
    /** Relative slack for the bound test: a bound summed in another order may round a few ulps lower. */
    private static final double SLACK = 1e-9;

    /**
     * What an evaluation found: the best candidates, best first, with their scores ({@code scores[i]} is
     * {@code top[i]}'s); {@code aligned} documents held every term and no exclusion; of those {@code scored} were
     * scored in full and {@code pruned} were passed over by their bound (the rest failed the language, expiry or
     * phrase checks); {@code skippedBlocks} blocks were passed over whole by their highest score (their postings
     * are counted in {@code aligned} and {@code pruned} too).
     */
    public record Evaluation(List<Candidate> top, double[] scores, long aligned, long scored, long pruned,
                             long skippedBlocks) {}

    /**
     * The highest feedback value of the URLs in a range of packed URL hashes (both ends included), or more: what a
     * block's bound adds for the post-ranking feedback of its documents.
     */
    public interface FeedbackBound {
        /** Feedback values are not known in advance: no block is skipped. */
        FeedbackBound UNKNOWN = (from, to) -> Double.POSITIVE_INFINITY;
        /** No URL has feedback. */
        FeedbackBound NONE = (from, to) -> 0;

        double max(byte[] fromPackedUrl, byte[] toPackedUrl);

        /** The bound of a snapshot of every URL's feedback value (absent URLs have 0). */
        static FeedbackBound of(Map<UrlHash, Double> values) {
            List<byte[]> urls = new ArrayList<>();
            List<Double> scores = new ArrayList<>();
            values.entrySet().stream().filter(e -> e.getValue() > 0).sorted(Map.Entry.comparingByKey()).forEach(e -> {
                urls.add(HashBytes.pack(e.getKey().value()));
                scores.add(e.getValue());
            });
            if (urls.isEmpty()) return NONE;
            byte[][] sorted = urls.toArray(byte[][]::new);
            double[] value = scores.stream().mapToDouble(Double::doubleValue).toArray();
            return (from, to) -> {
                int lo = 0;
                int hi = sorted.length;
                while (lo < hi) {
                    int mid = (lo + hi) >>> 1;
                    if (Arrays.compareUnsigned(sorted[mid], from) < 0) lo = mid + 1;
                    else hi = mid;
                }
                double max = 0;
                for (int i = lo; i < sorted.length && Arrays.compareUnsigned(sorted[i], to) <= 0; i++) {
                    max = Math.max(max, value[i]);
                }
                return max;
            };
        }
    }

    private record Hit(Candidate candidate, double score) {}

    private static final Comparator<Hit> BEST_FIRST = Comparator.comparingDouble(Hit::score).reversed()
            .thenComparing(h -> h.candidate().url());

    private QueryEvaluator() {}

    /**
     * Evaluates {@code q}'s terms (all must occur), exclusions and phrase positions over {@code rwi}'s postings,
     * keeping the best {@code k} by {@code scorer} (whose statistics must already be the query's). Postings of
     * another language than the query's {@code lang:} and cached postings expired at {@code nowSeconds} count as
     * absent. {@code frequencies} gives each term's posting count (the rarest leads; 0 ends at once).
     * {@code feedback} bounds the scorer's feedback values by URL range (for block-max pruning).
     */
    public static Evaluation evaluate(ReverseWordIndex rwi, Query q, Map<String, Long> frequencies, Scorer scorer,
                                      FeedbackBound feedback, int k, long nowSeconds) {
        if (k < 1) throw new IllegalArgumentException("k must be positive");
        List<String> terms = q.terms();
        int n = terms.size();
        Evaluation none = new Evaluation(List.of(), new double[0], 0, 0, 0, 0);
        if (n == 0) return none;
        for (String t : terms) if (frequencies.getOrDefault(t, 0L) == 0) return none;
        // the blocks' stored scores bound this query's candidates: their revision, else 0
        int blockRevision = Double.isNaN(scorer.oneWordBlockSlack(0)) ? 0 : Scorer.ONE_WORD_BLOCKS.revision();
        String lang = q.language().orElse("");
        PostingCursor[] cursors = new PostingCursor[n];
        PostingCursor[] exclusions = new PostingCursor[q.exclusions().size()];
        try {
            for (int t = 0; t < n; t++) cursors[t] = new PostingCursor(rwi, WordHash.of(terms.get(t)));
            for (int e = 0; e < exclusions.length; e++) exclusions[e] = new PostingCursor(rwi, WordHash.of(q.exclusions().get(e)));
            // the rarest term leads: the others only jump to its URLs
            Integer[] order = new Integer[n];
            for (int t = 0; t < n; t++) order[t] = t;
            Arrays.sort(order, Comparator.comparingLong(t -> frequencies.getOrDefault(terms.get(t), 0L)));
            PostingCursor lead = cursors[order[0]];
            TopK<Hit> best = new TopK<>(k, BEST_FIRST);
            long aligned = 0;
            long scored = 0;
            long pruned = 0;
            long skippedBlocks = 0;
            outer:
            while (!lead.exhausted()) {
                if (blockRevision != 0 && best.full()) {
                    double blockMax = lead.blockMaxScore(blockRevision);
                    double worst = best.worst().score();
                    double floor = worst - SLACK * Math.max(1, Math.abs(worst));
                    // feedback only adds: its bound (a look-up over the block's URLs) is taken only for a block the
                    // rest of the slack leaves below the floor
                    if (blockMax + scorer.oneWordBlockSlack(0) < floor
                            && blockMax + scorer.oneWordBlockSlack(feedback.max(lead.packedUrl(), lead.blockEndUrl())) < floor) {
                        int left = lead.leftInBlock();
                        aligned += left;
                        pruned += left;
                        skippedBlocks++;
                        lead.skipBlock();
                        continue;
                    }
                }
                byte[] target = lead.packedUrl();
                // leapfrog: every cursor to the largest URL any of them is on, until all agree
                for (int j = 1; j < n; j++) {
                    PostingCursor c = cursors[order[j]];
                    if (!c.advanceTo(target)) break outer;
                    if (c.compareTo(target) > 0) {
                        if (!lead.advanceTo(c.packedUrl())) break outer;
                        continue outer;
                    }
                }
                if (!excluded(exclusions, target)) {
                    aligned++;
                    Hit worst = best.full() ? best.worst() : null;
                    double floor = worst == null ? Double.NEGATIVE_INFINITY
                            : worst.score() - SLACK * Math.max(1, Math.abs(worst.score()));
                    // the postings in query-term order, each read only while the bound of those known can still win
                    UrlHash url = lead.url();
                    List<Posting> known = new ArrayList<>(n);
                    boolean present = true;
                    for (int t = 0; t < n; t++) {
                        if (t > 0 && worst != null && scorer.upperBound(url, known) < floor) {
                            pruned++;
                            present = false;
                            break;
                        }
                        Posting p = cursors[t].posting();
                        if (!keep(p, lang, nowSeconds)) {
                            present = false;
                            break;
                        }
                        known.add(p);
                    }
                    if (present && phrasesPossible(q, known)) {
                        Candidate c = new Candidate(url, known);
                        scored++;
                        best.offer(new Hit(c, scorer.scoreOf(c)));
                    }
                }
                lead.next();
            }
            List<Hit> hits = best.sorted();
            List<Candidate> top = new ArrayList<>(hits.size());
            double[] scores = new double[hits.size()];
            for (int i = 0; i < hits.size(); i++) {
                top.add(hits.get(i).candidate());
                scores[i] = hits.get(i).score();
            }
            return new Evaluation(top, scores, aligned, scored, pruned, skippedBlocks);
        } finally {
            for (PostingCursor c : cursors) if (c != null) c.close();
            for (PostingCursor c : exclusions) if (c != null) c.close();
        }
    }

    /** True if an exclusion's list holds {@code packedUrl} (exclusion cursors only move forward, as the lead). */
    private static boolean excluded(PostingCursor[] exclusions, byte[] packedUrl) {
        for (PostingCursor e : exclusions) {
            if (e.advanceTo(packedUrl) && e.compareTo(packedUrl) == 0) return true;
        }
        return false;
    }

    /** Expired cached postings and postings of another language than the query's count as absent. */
    static boolean keep(Posting p, String lang, long now) {
        if (p.expiresAt() != 0 && p.expiresAt() < now) return false;
        return lang.isEmpty() || p.language().isEmpty() || p.language().equals(lang);
    }

    /** False if the positions prove a phrase absent (the text check follows when results resolve). */
    static boolean phrasesPossible(Query q, List<Posting> postings) {
        for (List<String> phrase : q.phrases()) {
            List<Posting> ps = new ArrayList<>(phrase.size());
            for (String w : phrase) {
                int i = q.terms().indexOf(w);
                ps.add(i < 0 ? null : postings.get(i));
            }
            if (!PhraseMatcher.possibleByPositions(ps)) return false;
        }
        return true;
    }
}
