package org.peerdex.actors.dht.search;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.search.RemoteSearch.RemoteCandidate;
import org.peerdex.actors.dht.shard.PartialScore;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.rwi.Posting;

/**
 * The top lookups of a multi-word search, partition by partition, without the actor (docs/protocol.md, "Top
 * lookups"). Each word's holder sent its best postings of the partition by partial score, best first, and whether
 * it had more; a posting it did not send scores at most its last one's (the word's frontier; 0 when it sent them
 * all). A URL's sum over the words is what a join lookup ranks by. Then, as in Fagin's threshold algorithm: every
 * URL some word's best had is completed with the other words' postings (exact URL sets), unless even with the
 * frontiers for its missing words it cannot reach the partition's best {@code wanted}; a URL no word's best had sums
 * to at most the frontiers' sum, and to nothing when some word sent all its postings (it cannot have that word).
 * When neither that nor any URL left uncompleted can pass the {@code wanted}-th best sum found, the partition's best
 * are certain; otherwise it is undecided (RemoteSearch asks it once more, deeper, then takes what was found).
 */
final class TopJoin {
    private TopJoin() {}

    /** Per key: the postings received (the first per URL) and the frontier (the highest unsent score). */
    static final class Received {
        final Map<RangeKey, Map<UrlHash, Posting>> postings = new HashMap<>();
        final Map<RangeKey, Double> frontier = new HashMap<>();
        /** per word, what its partial score weighs in a URL's sum (absent: 1) */
        private Map<WordHash, Double> weights = Map.of();

        /** The searcher's weights of the words (null: all 1). */
        void weigh(Map<WordHash, Double> w) {
            weights = w == null ? Map.of() : Map.copyOf(w);
        }

        double weight(WordHash w) {
            return weights.getOrDefault(w, 1.0);
        }

        /** per key, the URLs its completions asked for: one not among its postings lacks the word */
        final Map<RangeKey, Set<UrlHash>> asked = new HashMap<>();

        /** Completions about to be asked. */
        void asking(Map<RangeKey, List<UrlHash>> urls) {
            urls.forEach((k, us) -> asked.computeIfAbsent(k, x -> new TreeSet<>()).addAll(us));
        }

        /** Whether the key's holders were asked for this URL and did not have it. */
        boolean lacks(RangeKey key, UrlHash url) {
            Set<UrlHash> a = asked.get(key);
            return a != null && a.contains(url) && !of(key).containsKey(url);
        }

        /** One holder's best of a key, best first; {@code more}: it has postings it did not send. */
        void best(RangeKey key, List<Posting> best, boolean more) {
            add(key, best);
            double last = Double.MAX_VALUE;
            for (Posting p : best) last = Math.min(last, PartialScore.of(p));
            // during hand-off two holders answer: a posting either of them left out scores at most its frontier
            double f = !more ? 0 : best.isEmpty() ? Double.MAX_VALUE : last;
            frontier.merge(key, f, Math::max);
        }

        /** Postings of exactly the URLs asked (a completion). */
        void add(RangeKey key, List<Posting> ps) {
            Map<UrlHash, Posting> m = postings.computeIfAbsent(key, k -> new HashMap<>());
            for (Posting p : ps) m.putIfAbsent(p.url(), p);
        }

        double frontier(RangeKey key) {
            return frontier.getOrDefault(key, Double.MAX_VALUE);
        }

        Map<UrlHash, Posting> of(RangeKey key) {
            return postings.getOrDefault(key, Map.of());
        }
    }

    /** A partition's state once the best are in: its sums and what is left open. */
    private record Partition(Map<UrlHash, Double> complete, Map<UrlHash, Double> open, double unseen) {}

    /**
     * Per partition whose words all have postings: the URLs found in every word's postings with their sums, the
     * upper bound of every URL found in some but not all (its missing words at their frontiers), skipping a URL
     * a completion showed to lack a word, and the bound of a URL seen nowhere.
     */
    private static Partition state(List<WordHash> words, int p, Received r) {
        int n = words.size();
        double[] front = new double[n];
        List<Map<UrlHash, Posting>> byWord = new ArrayList<>(n);
        boolean anyAll = false;
        double unseen = 0;
        for (int i = 0; i < n; i++) {
            RangeKey k = new RangeKey(words.get(i), p);
            double f = r.frontier(k);
            front[i] = f == Double.MAX_VALUE || f == 0 ? f : f * r.weight(words.get(i));
            byWord.add(r.of(k));
            anyAll |= front[i] == 0;
            unseen += front[i];
        }
        Map<UrlHash, Double> complete = new LinkedHashMap<>();
        Map<UrlHash, Double> open = new LinkedHashMap<>();
        Set<UrlHash> seen = new TreeSet<>();
        for (Map<UrlHash, Posting> m : byWord) seen.addAll(m.keySet());
        for (UrlHash u : seen) {
            double sum = 0;
            boolean all = true;
            boolean impossible = false;
            for (int i = 0; i < n; i++) {
                Posting x = byWord.get(i).get(u);
                if (x != null) {
                    sum += r.weight(words.get(i)) * PartialScore.of(x);
                    continue;
                }
                all = false;
                if (front[i] == 0 || r.lacks(new RangeKey(words.get(i), p), u)) {
                    impossible = true;
                    break;
                }
                sum += front[i];
            }
            if (impossible) continue;
            (all ? complete : open).put(u, sum);
        }
        return new Partition(complete, open, anyAll ? Double.NEGATIVE_INFINITY : unseen);
    }

    /** The {@code wanted}-th best sum of URLs found with every word, over these partitions together. */
    private static double bar(List<WordHash> words, Iterable<Integer> partitions, Received r, int wanted) {
        Map<UrlHash, Double> all = new HashMap<>();
        for (int p : partitions) all.putAll(state(words, p, r).complete());
        return threshold(all, wanted);
    }

    /** The {@code wanted}-th best of these sums, or minus infinity when there are fewer. */
    private static double threshold(Map<UrlHash, Double> sums, int wanted) {
        if (sums.size() < wanted || wanted <= 0) return Double.NEGATIVE_INFINITY;
        double[] xs = sums.values().stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(xs);
        return xs[xs.length - wanted];
    }

    /**
     * The URLs to complete, per key: of every open URL that can still reach its partition's best {@code wanted}, the
     * words it lacks. A partition asking a key for more than {@code maxPerKey} URLs asks nothing (it will go on to
     * the filters).
     */
    static Map<RangeKey, List<UrlHash>> completions(List<WordHash> words, Iterable<Integer> partitions, Received r,
                                                    int wanted, int maxPerKey) {
        return completions(words, partitions, partitions, r, wanted, maxPerKey);
    }

    /**
     * As {@link #completions(List, Iterable, Received, int, int)}, the bar being the {@code wanted}-th best sum found
     * over all of {@code ranked} (a superset of {@code partitions}) together: the best {@code wanted} of the whole
     * query, wherever they are, rather than of each partition.
     */
    static Map<RangeKey, List<UrlHash>> completions(List<WordHash> words, Iterable<Integer> partitions,
                                                    Iterable<Integer> ranked, Received r, int wanted, int maxPerKey) {
        Map<RangeKey, List<UrlHash>> out = new LinkedHashMap<>();
        double bar = bar(words, ranked, r, wanted);
        for (int p : partitions) {
            Partition s = state(words, p, r);
            Map<RangeKey, List<UrlHash>> here = new LinkedHashMap<>();
            for (var e : s.open().entrySet()) {
                if (e.getValue() < bar) continue;
                for (WordHash w : words) {
                    RangeKey k = new RangeKey(w, p);
                    if (!r.of(k).containsKey(e.getKey())) here.computeIfAbsent(k, x -> new ArrayList<>()).add(e.getKey());
                }
            }
            if (here.values().stream().allMatch(l -> l.size() <= maxPerKey)) out.putAll(here);
        }
        return out;
    }

    /** What the top lookups settled: the candidates of the partitions they decided, and the partitions left. */
    record Outcome(List<RemoteCandidate> candidates, Set<Integer> undecided) {}

    /**
     * After the completions: each partition whose best {@code wanted} are certain gives every URL found with all the
     * words as a candidate (postings in the query's word order); the others are undecided.
     */
    static Outcome decide(List<WordHash> words, Iterable<Integer> partitions, Received r, int wanted,
                          Map<UrlHash, PeerId> answeredBy) {
        return decide(words, partitions, partitions, r, wanted, answeredBy);
    }

    /**
     * As {@link #decide(List, Iterable, Received, int, Map)}, a partition being certain when nothing left there can
     * pass the {@code wanted}-th best sum found over all of {@code ranked} together (a superset of {@code partitions}).
     */
    static Outcome decide(List<WordHash> words, Iterable<Integer> partitions, Iterable<Integer> ranked, Received r,
                          int wanted, Map<UrlHash, PeerId> answeredBy) {
        List<RemoteCandidate> out = new ArrayList<>();
        Set<Integer> undecided = new TreeSet<>();
        double bar = bar(words, ranked, r, wanted);
        for (int p : partitions) {
            Partition s = state(words, p, r);
            boolean certain = s.unseen() <= bar && s.open().values().stream().allMatch(v -> v <= bar);
            if (!certain) {
                undecided.add(p);
                continue;
            }
            out.addAll(candidates(words, p, s.complete().keySet(), r, answeredBy));
        }
        return new Outcome(out, undecided);
    }

    /** Every URL found with all the words in these partitions, certain or not. */
    static List<RemoteCandidate> found(List<WordHash> words, Iterable<Integer> partitions, Received r,
                                       Map<UrlHash, PeerId> answeredBy) {
        List<RemoteCandidate> out = new ArrayList<>();
        for (int p : partitions) out.addAll(candidates(words, p, state(words, p, r).complete().keySet(), r, answeredBy));
        return out;
    }

    private static List<RemoteCandidate> candidates(List<WordHash> words, int p, Iterable<UrlHash> urls, Received r,
                                                    Map<UrlHash, PeerId> answeredBy) {
        List<RemoteCandidate> out = new ArrayList<>();
        for (UrlHash u : urls) {
            List<Posting> ps = new ArrayList<>(words.size());
            for (WordHash w : words) ps.add(r.of(new RangeKey(w, p)).get(u));
            out.add(new RemoteCandidate(u, ps, null, answeredBy.get(u)));
        }
        return out;
    }
}
