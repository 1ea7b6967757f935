package org.peerdex.actors.dht.search;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToIntFunction;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.search.RemoteSearch.RemoteCandidate;
import org.peerdex.actors.dht.shard.ScoreList;
import org.peerdex.actors.dht.shard.WordPart;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.rwi.Posting;

/**
 * The top lookups of a multi-word search, partition by partition, without the actor (docs/protocol.md, "Top
 * lookups"). Each word's holder sent its best URLs of the partition by partial score, best first, as scores
 * ({@link ScoreList}) or postings, and whether it had more; a URL it did not send scores at most its last one's (the
 * word's frontier; 0 when it sent them all). A URL's sum over the words, each weighted, is what the lookups rank by.
 * Then, as in Fagin's threshold algorithm: every URL some word's best had is completed with the other words'
 * scores (exact URL sets), unless even with the frontiers for its missing words it cannot reach the query's best
 * {@code wanted}; a URL no word's best had sums to at most the frontiers' sum, and to nothing when some word sent
 * all (it cannot have that word). When neither that nor any URL left uncompleted can pass the {@code wanted}-th best
 * sum found over all the partitions together, less the scores' rounding, the partition's best are certain;
 * otherwise it is undecided (RemoteSearch asks it once more, deeper, then takes what was found).
 */
final class TopJoin {
    private TopJoin() {}

    /**
     * A score as the lists carry it (rounded up to 1/{@value ScoreList#UNITS}), whichever way it came, under the
     * query's shape for the word ({@link WordPart}; NONE: the partial score).
     */
    static double listed(Posting p, int part) {
        return ScoreList.score(ScoreList.units(WordPart.score(p, part)));
    }

    /** Per key: the scores received (the first per URL), the postings received, and the frontier. */
    static final class Received {
        final Map<RangeKey, Map<UrlHash, Double>> scores = new HashMap<>();
        final Map<RangeKey, Map<UrlHash, Posting>> postings = new HashMap<>();
        final Map<RangeKey, Double> frontier = new HashMap<>();
        /** per word, what its partial score weighs in a URL's sum (absent: 1) */
        private Map<WordHash, Double> weights = Map.of();

        /** per word, the query's shape its lookups name ({@link WordPart}; absent: none, the partial score) */
        private Map<WordHash, Integer> parts = Map.of();

        /** whether URLs are keyed by their prefixes' stand-ins ({@link ScoreList#byPrefix}) */
        private boolean byPrefix;
        /** with {@link #byPrefix}: per stand-in, the whole hashes seen of it (in postings, or in lists that name them) */
        private final Map<UrlHash, Set<UrlHash>> whole = new HashMap<>();

        /**
         * Keys every URL by its prefix's stand-in from now on: the holders' lists name URLs by prefix
         * ({@link ScoreList#readPrefixed}), and what comes with whole hashes is keyed so too. Call before any answer.
         */
        void byPrefix() {
            byPrefix = true;
        }

        boolean keyedByPrefix() {
            return byPrefix;
        }

        /** The key a URL is held under: itself, or its prefix's stand-in. */
        UrlHash id(UrlHash url) {
            if (!byPrefix) return url;
            UrlHash id = ScoreList.byPrefix(url);
            if (!id.equals(url)) whole.computeIfAbsent(id, x -> new TreeSet<>()).add(url);
            return id;
        }

        /** The whole hashes seen of a URL as it is keyed (itself when not keyed by prefix). */
        Set<UrlHash> wholeOf(UrlHash id) {
            return !byPrefix ? Set.of(id) : whole.getOrDefault(id, Set.of());
        }

        /** The searcher's weights of the words (null: all 1). */
        void weigh(Map<WordHash, Double> w) {
            weights = w == null ? Map.of() : Map.copyOf(w);
        }

        /**
         * The shapes the words' lookups name: their scores are parts of the query's score, each weighing 1 in a sum
         * (any weights given are dropped).
         */
        void parts(Map<WordHash, Integer> p) {
            parts = Map.copyOf(p);
            weights = Map.of();
        }

        int part(WordHash w) {
            return parts.getOrDefault(w, WordPart.NONE);
        }

        double weight(WordHash w) {
            return weights.getOrDefault(w, 1.0);
        }

        /** per key, the URLs its completions asked for: one not among its scores lacks the word */
        final Map<RangeKey, Set<UrlHash>> asked = new HashMap<>();

        /** Completions about to be asked. */
        void asking(Map<RangeKey, List<UrlHash>> urls) {
            urls.forEach((k, us) -> asked.computeIfAbsent(k, x -> new TreeSet<>()).addAll(us));
        }

        /** A completion's answer was cut: of the URLs asked, those it did not give are not known to lack the word. */
        void unasked(RangeKey key) {
            Set<UrlHash> a = asked.get(key);
            if (a != null) a.retainAll(of(key).keySet());
        }

        /** Whether the key's holders were asked for this URL and did not have it. */
        boolean lacks(RangeKey key, UrlHash url) {
            Set<UrlHash> a = asked.get(key);
            return a != null && a.contains(url) && !of(key).containsKey(url);
        }

        /** One holder's best of a key as postings, best first; {@code more}: it has postings it did not send. */
        void best(RangeKey key, List<Posting> best, boolean more) {
            add(key, best);
            List<ScoreList.Entry> entries = new ArrayList<>(best.size());
            int part = part(key.word());
            for (Posting p : best) entries.add(new ScoreList.Entry(id(p.url()), listed(p, part)));
            frontier(key, entries, more);
        }

        /** One holder's best of a key as scores, best first; {@code more}: it has postings it did not send. */
        void bestScores(RangeKey key, List<ScoreList.Entry> best, boolean more) {
            addScores(key, best);
            frontier(key, best, more);
        }

        private void frontier(RangeKey key, List<ScoreList.Entry> best, boolean more) {
            double last = Double.MAX_VALUE;
            for (ScoreList.Entry e : best) last = Math.min(last, e.score());
            // during hand-off two holders answer: a posting either of them left out scores at most its frontier
            double f = !more ? 0 : best.isEmpty() ? Double.MAX_VALUE : last;
            frontier.merge(key, f, Math::max);
        }

        /** Postings of exactly the URLs asked (a completion, or the postings of the best). */
        void add(RangeKey key, List<Posting> ps) {
            Map<UrlHash, Posting> m = postings.computeIfAbsent(key, k -> new HashMap<>());
            Map<UrlHash, Double> s = scores.computeIfAbsent(key, k -> new HashMap<>());
            int part = part(key.word());
            for (Posting p : ps) {
                UrlHash id = id(p.url());
                m.putIfAbsent(id, p);
                s.putIfAbsent(id, listed(p, part));
            }
        }

        /** Scores of exactly the URLs asked (a completion). */
        void addScores(RangeKey key, List<ScoreList.Entry> es) {
            Map<UrlHash, Double> s = scores.computeIfAbsent(key, k -> new HashMap<>());
            for (ScoreList.Entry e : es) s.putIfAbsent(id(e.url()), e.score());
        }

        double frontier(RangeKey key) {
            return frontier.getOrDefault(key, Double.MAX_VALUE);
        }

        /** The URLs known to have the key's word, with their listed scores. */
        Map<UrlHash, Double> of(RangeKey key) {
            return scores.getOrDefault(key, Map.of());
        }

        Posting posting(RangeKey key, UrlHash url) {
            return postings.getOrDefault(key, Map.of()).get(url);
        }
    }

    /** A partition's state once the best are in: its sums and what is left open. */
    private record Partition(Map<UrlHash, Double> complete, Map<UrlHash, Double> open, double unseen) {}

    /**
     * Per partition whose words all have scores: the URLs found with every word with their sums, the upper bound of
     * every URL found with some but not all (its missing words at their frontiers), skipping a URL a completion
     * showed to lack a word, and the bound of a URL seen nowhere.
     */
    private static Partition state(List<WordHash> words, int p, Received r) {
        int n = words.size();
        double[] front = new double[n];
        List<Map<UrlHash, Double>> byWord = new ArrayList<>(n);
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
        for (Map<UrlHash, Double> m : byWord) seen.addAll(m.keySet());
        for (UrlHash u : seen) {
            double sum = 0;
            boolean all = true;
            boolean impossible = false;
            for (int i = 0; i < n; i++) {
                Double x = byWord.get(i).get(u);
                if (x != null) {
                    sum += r.weight(words.get(i)) * x;
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

    /** The state of every partition of {@code ranked} and {@code partitions}, each computed once. */
    private static Map<Integer, Partition> states(List<WordHash> words, Iterable<Integer> ranked,
                                                  Iterable<Integer> partitions, Received r) {
        Map<Integer, Partition> out = new HashMap<>();
        for (int p : ranked) out.computeIfAbsent(p, x -> state(words, x, r));
        for (int p : partitions) out.computeIfAbsent(p, x -> state(words, x, r));
        return out;
    }

    /**
     * The {@code wanted}-th best sum of URLs found with every word, over the partitions of {@code ranked} together,
     * less what the scores' rounding up may have added to it (a unit a word, weighted): a URL whose bound does not
     * pass it cannot pass the {@code wanted}-th best of the exact sums.
     */
    private static double bar(List<WordHash> words, Iterable<Integer> ranked, Map<Integer, Partition> states,
                              Received r, int wanted) {
        Map<UrlHash, Double> all = new HashMap<>();
        for (int p : ranked) all.putAll(states.get(p).complete());
        double rounding = 0;
        for (WordHash w : words) rounding += r.weight(w) / ScoreList.UNITS;
        return threshold(all, wanted) - rounding;
    }

    /** The {@code wanted}-th best of these sums, or minus infinity when there are fewer. */
    private static double threshold(Map<UrlHash, Double> sums, int wanted) {
        if (sums.size() < wanted || wanted <= 0) return Double.NEGATIVE_INFINITY;
        double[] xs = sums.values().stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(xs);
        return xs[xs.length - wanted];
    }

    /** {@link #completions(List, Iterable, Iterable, Received, int, int)}, each partition ranked alone. */
    static Map<RangeKey, List<UrlHash>> completions(List<WordHash> words, Iterable<Integer> partitions, Received r,
                                                    int wanted, int maxPerKey) {
        Map<RangeKey, List<UrlHash>> out = new LinkedHashMap<>();
        for (int p : partitions) out.putAll(completions(words, List.of(p), List.of(p), r, wanted, maxPerKey));
        return out;
    }

    /**
     * The URLs to complete, per key: of every open URL that can still reach the query's best {@code wanted} (the
     * {@code wanted}-th best sum found over all of {@code ranked}, a superset of {@code partitions}), the words it
     * lacks. A partition asking a key for more than {@code maxPerKey} URLs asks nothing (it stays open).
     */
    static Map<RangeKey, List<UrlHash>> completions(List<WordHash> words, Iterable<Integer> partitions,
                                                    Iterable<Integer> ranked, Received r, int wanted, int maxPerKey) {
        Map<RangeKey, List<UrlHash>> out = new LinkedHashMap<>();
        Map<Integer, Partition> states = states(words, ranked, partitions, r);
        double bar = bar(words, ranked, states, r, wanted);
        for (int p : partitions) {
            Partition s = states.get(p);
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

    /**
     * What the top lookups settled: the URLs found with every word in the partitions they decided, with their
     * sums, and the partitions left.
     */
    record Outcome(Map<UrlHash, Double> found, Set<Integer> undecided) {}

    /** {@link #decide(List, Iterable, Iterable, Received, int)}, each partition ranked alone. */
    static Outcome decide(List<WordHash> words, Iterable<Integer> partitions, Received r, int wanted) {
        Map<UrlHash, Double> found = new LinkedHashMap<>();
        Set<Integer> undecided = new TreeSet<>();
        for (int p : partitions) {
            Outcome o = decide(words, List.of(p), List.of(p), r, wanted);
            found.putAll(o.found());
            undecided.addAll(o.undecided());
        }
        return new Outcome(found, undecided);
    }

    /**
     * After the completions: each partition where nothing left can pass the {@code wanted}-th best sum found over
     * all of {@code ranked} together (a superset of {@code partitions}) gives every URL found there with all the
     * words; the others are undecided.
     */
    static Outcome decide(List<WordHash> words, Iterable<Integer> partitions, Iterable<Integer> ranked, Received r,
                          int wanted) {
        Map<UrlHash, Double> found = new LinkedHashMap<>();
        Set<Integer> undecided = new TreeSet<>();
        Map<Integer, Partition> states = states(words, ranked, partitions, r);
        double bar = bar(words, ranked, states, r, wanted);
        for (int p : partitions) {
            Partition s = states.get(p);
            boolean certain = s.unseen() <= bar && s.open().values().stream().allMatch(v -> v <= bar);
            if (!certain) {
                undecided.add(p);
                continue;
            }
            found.putAll(s.complete());
        }
        return new Outcome(found, undecided);
    }

    /** Every URL found with all the words in these partitions, certain or not, with its sum. */
    static Map<UrlHash, Double> found(List<WordHash> words, Iterable<Integer> partitions, Received r) {
        Map<UrlHash, Double> out = new LinkedHashMap<>();
        for (int p : partitions) out.putAll(state(words, p, r).complete());
        return out;
    }

    /** The best {@code n} of these URLs by their sums (ties: the smaller hash first). */
    static List<UrlHash> best(Map<UrlHash, Double> sums, int n) {
        return sums.entrySet().stream()
                .sorted(Comparator.<Map.Entry<UrlHash, Double>>comparingDouble(e -> -e.getValue())
                        .thenComparing(Map.Entry::getKey))
                .limit(n).map(Map.Entry::getKey).toList();
    }

    /** Per key, the URLs of {@code urls} whose posting of its word is not in yet (their scores are). */
    static Map<RangeKey, List<UrlHash>> postingsMissing(List<WordHash> words, List<UrlHash> urls, Received r,
                                                        ToIntFunction<UrlHash> partitionOf) {
        Map<RangeKey, List<UrlHash>> out = new LinkedHashMap<>();
        for (UrlHash u : urls) {
            int p = partitionOf.applyAsInt(u);
            for (WordHash w : words) {
                RangeKey k = new RangeKey(w, p);
                if (r.posting(k, u) == null) out.computeIfAbsent(k, x -> new ArrayList<>()).add(u);
            }
        }
        return out;
    }

    /** The candidates of these URLs that have every word's posting in (postings in the query's word order). */
    static List<RemoteCandidate> candidates(List<WordHash> words, List<UrlHash> urls, Received r,
                                            ToIntFunction<UrlHash> partitionOf,
                                            Map<UrlHash, PeerId> answeredBy) {
        List<RemoteCandidate> out = new ArrayList<>();
        for (UrlHash u : urls) {
            int p = partitionOf.applyAsInt(u);
            List<Posting> ps = new ArrayList<>(words.size());
            for (WordHash w : words) {
                Posting x = r.posting(new RangeKey(w, p), u);
                // keyed by prefix, two URLs of a key may share one: every word's posting must be of the same page
                if (x == null || !ps.isEmpty() && !x.url().equals(ps.get(0).url())) break;
                ps.add(x);
            }
            if (ps.size() == words.size()) {
                UrlHash url = ps.get(0).url();
                out.add(new RemoteCandidate(url, ps, null, answeredBy.get(url)));
            }
        }
        return out;
    }
}
