package org.peerdex.actors.dht.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.TestCorpus;
import org.peerdex.actors.dht.search.RemoteSearch.RemoteCandidate;
import org.peerdex.actors.dht.shard.PartialScore;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.rwi.Posting;

/**
 * The top lookups' decision against the whole join: whenever a partition is judged certain, its candidates hold the
 * exhaustive best {@code wanted} by the sum of partial scores, whatever the depth asked; and both outcomes occur.
 */
class TopJoinTest {
    private static final Partitions PARTITIONS = new Partitions(4);
    private static final Comparator<Posting> BEST_FIRST =
            Comparator.comparingDouble(PartialScore::of).reversed().thenComparing(Posting::url);

    /** Per word, its postings in one partition, as its holder keeps them. */
    private static Map<WordHash, List<Posting>> lists(List<IndexedDocument> docs, List<WordHash> words, int p) {
        Map<WordHash, List<Posting>> out = new HashMap<>();
        for (WordHash w : words) out.put(w, new ArrayList<>());
        for (IndexedDocument d : docs) {
            for (Posting x : d.postings()) {
                if (out.containsKey(x.word()) && PARTITIONS.partitionOf(x.url()) == p) out.get(x.word()).add(x);
            }
        }
        out.values().forEach(l -> l.sort(BEST_FIRST));
        return out;
    }

    /** The sums of the exhaustive best {@code n} URLs having every word, best first. */
    private static List<Double> exhaustive(Map<WordHash, List<Posting>> lists, List<WordHash> words, int n) {
        Map<UrlHash, double[]> sums = new HashMap<>();
        for (int i = 0; i < words.size(); i++) {
            for (Posting x : lists.get(words.get(i))) {
                double[] s = sums.computeIfAbsent(x.url(), u -> new double[] {0, 0});
                s[0] += PartialScore.of(x);
                s[1]++;
            }
        }
        return sums.values().stream().filter(s -> s[1] == words.size()).map(s -> s[0])
                .sorted(Comparator.reverseOrder()).limit(n).toList();
    }

    @Test
    void aPartitionJudgedCertainHoldsTheExhaustiveBestAndShallowListsAreLeftOpen() {
        List<IndexedDocument> docs = TestCorpus.documents(3_000, 7);
        int certain = 0;
        int open = 0;
        List<List<String>> queries = List.of(List.of("linux", "kernel"), List.of("alpha", "bravo"),
                List.of("kernel", "charlie", "delta"));
        for (List<String> q : queries) {
            List<WordHash> words = q.stream().map(WordHash::of).toList();
            for (int p = 0; p < PARTITIONS.count(); p += 3) {
                Map<WordHash, List<Posting>> lists = lists(docs, words, p);
                for (int wanted : new int[] {2, 6}) {
                    for (int depth : new int[] {2, 6, 12, 48}) {
                      // keyed by whole hashes, and by prefix (what a search that reads lists by prefix does: its
                      // completions name stand-ins, answered with every URL of the key that has such a prefix)
                      for (boolean byPrefix : new boolean[] {false, true}) {
                        TopJoin.Received r = new TopJoin.Received();
                        if (byPrefix) r.byPrefix();
                        for (WordHash w : words) {
                            List<Posting> all = lists.get(w);
                            r.best(new RangeKey(w, p), all.subList(0, Math.min(depth, all.size())), all.size() > depth);
                        }
                        Map<RangeKey, List<UrlHash>> ask = TopJoin.completions(words, List.of(p), r, wanted, 1000);
                        r.asking(ask);
                        ask.forEach((k, urls) -> r.add(k, lists.get(k.word()).stream()
                                .filter(x -> urls.contains(r.id(x.url()))).toList()));
                        TopJoin.Outcome o = TopJoin.decide(words, List.of(p), r, wanted);
                        if (o.undecided().contains(p)) {
                            open++;
                            continue;
                        }
                        certain++;
                        List<RemoteCandidate> cs = TopJoin.candidates(words, List.copyOf(o.found().keySet()), r,
                                PARTITIONS::partitionOf, Map.of());
                        assertEquals(o.found().size(), cs.size(), "every URL found has every word's posting");
                        List<Double> found = cs.stream().map(RemoteCandidate::partialScore)
                                .sorted(Comparator.reverseOrder()).limit(wanted).toList();
                        assertEquals(exhaustive(lists, words, wanted), found,
                                q + " partition " + p + " wanted " + wanted + " depth " + depth + " by prefix " + byPrefix);
                        // candidates are pages: their whole hashes, every word's posting of that page
                        for (RemoteCandidate c : cs) {
                            assertTrue(c.postings().stream().allMatch(x -> x.url().equals(c.url())), c.toString());
                        }
                      }
                    }
                }
            }
        }
        assertTrue(certain > 10 && open > 10, "both outcomes were checked: " + certain + " certain, " + open + " open");
    }

    /**
     * The query's bar over every partition together (as RemoteSearch judges them): every partition judged certain
     * holds each of the whole join's best {@code wanted} URLs that lives there; both outcomes occur.
     */
    @Test
    void aBarOverEveryPartitionMissesNoneOfTheQuerysBestWhereItIsCertain() {
        List<IndexedDocument> docs = TestCorpus.documents(3_000, 11);
        List<Integer> all = List.of(0, 1, 2, 3);
        int certain = 0;
        int open = 0;
        for (List<String> q : List.of(List.of("linux", "kernel"), List.of("alpha", "bravo"),
                List.of("kernel", "charlie", "delta"))) {
            List<WordHash> words = q.stream().map(WordHash::of).toList();
            Map<Integer, Map<WordHash, List<Posting>>> byPartition = new HashMap<>();
            for (int p : all) byPartition.put(p, lists(docs, words, p));
            // the whole join's best, over every partition
            Map<UrlHash, double[]> sums = new HashMap<>();
            for (var lists : byPartition.values()) {
                for (WordHash w : words) {
                    for (Posting x : lists.get(w)) {
                        double[] s = sums.computeIfAbsent(x.url(), u -> new double[] {0, 0});
                        s[0] += PartialScore.of(x);
                        s[1]++;
                    }
                }
            }
            for (int wanted : new int[] {3, 8}) {
                List<UrlHash> best = sums.entrySet().stream().filter(e -> e.getValue()[1] == words.size())
                        .sorted(Comparator.<Map.Entry<UrlHash, double[]>>comparingDouble(e -> -e.getValue()[0])
                                .thenComparing(Map.Entry::getKey))
                        .limit(wanted).map(Map.Entry::getKey).toList();
                for (int depth : new int[] {2, 4, 8, 16, 32}) {
                    TopJoin.Received r = new TopJoin.Received();
                    for (int p : all) {
                        Map<WordHash, List<Posting>> lists = byPartition.get(p);
                        for (WordHash w : words) {
                            List<Posting> l = lists.get(w);
                            r.best(new RangeKey(w, p), l.subList(0, Math.min(depth, l.size())), l.size() > depth);
                        }
                    }
                    Map<RangeKey, List<UrlHash>> ask = TopJoin.completions(words, all, all, r, wanted, 1000);
                    r.asking(ask);
                    ask.forEach((k, urls) -> r.add(k, byPartition.get(k.partition()).get(k.word()).stream()
                            .filter(x -> urls.contains(x.url())).toList()));
                    TopJoin.Outcome together = TopJoin.decide(words, all, all, r, wanted);
                    Set<UrlHash> found = new HashSet<>(together.found().keySet());
                    for (UrlHash u : best) {
                        if (together.undecided().contains(PARTITIONS.partitionOf(u))) continue;
                        assertTrue(found.contains(u), q + " wanted " + wanted + " depth " + depth + ": " + u);
                    }
                    certain += all.size() - together.undecided().size();
                    open += together.undecided().size();
                }
            }
        }
        assertTrue(certain > 10 && open > 10, "both outcomes were checked: " + certain + " certain, " + open + " open");
    }
}
