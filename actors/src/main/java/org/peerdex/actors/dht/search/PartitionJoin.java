package org.peerdex.actors.dht.search;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.search.RemoteSearch.RemoteCandidate;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.rwi.Posting;

/**
 * The join of a multi-word remote search, partition by partition, without the actor: {@link RemoteSearch} asks
 * the holders and keeps their answers; this decides what to ask next and which URLs have every word. A URL lives in
 * one vertical partition, so the words of a query meet only inside a partition: a partition where some word has no
 * postings cannot hold a match, and the rarest word of a partition is the one whose holder checks the others'
 * candidates.
 */
final class PartitionJoin {
    private PartitionJoin() {}

    /**
     * The rarest word of each partition where every word has at least one posting (by the holders' counts; ties go
     * to the earlier word of the query). Partitions missing from the result cannot hold a match.
     */
    static Map<Integer, WordHash> rarestPerPartition(List<WordHash> words, int partitions, Map<RangeKey, Integer> counts) {
        Map<Integer, WordHash> rarest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            WordHash rare = null;
            int min = Integer.MAX_VALUE;
            boolean all = true;
            for (WordHash w : words) {
                Integer c = counts.get(new RangeKey(w, p));
                if (c == null || c == 0) {
                    all = false;
                    break;
                }
                if (c < min) {
                    min = c;
                    rare = w;
                }
            }
            if (all) rarest.put(p, rare);
        }
        return rarest;
    }

    /**
     * Per partition, the URLs that every word but the rarest has a posting for (from the filtered lookups), at most
     * {@code maxPerKey}: the rarest word's holder is asked for exactly these. Keyed by the rarest word's range.
     */
    static Map<RangeKey, List<UrlHash>> candidateUrls(List<WordHash> words, Map<Integer, WordHash> rarest,
                                                      Map<RangeKey, List<Posting>> postings, int maxPerKey) {
        Map<RangeKey, List<UrlHash>> urlSets = new HashMap<>();
        rarest.forEach((p, rare) -> {
            Set<UrlHash> common = null;
            for (WordHash w : words) {
                if (w.equals(rare)) continue;
                Set<UrlHash> s = new HashSet<>();
                for (Posting x : postings.getOrDefault(new RangeKey(w, p), List.of())) s.add(x.url());
                if (common == null) common = s;
                else common.retainAll(s);
            }
            if (common != null && !common.isEmpty()) {
                List<UrlHash> urls = new ArrayList<>(common);
                if (urls.size() > maxPerKey) urls = urls.subList(0, maxPerKey);
                urlSets.put(new RangeKey(rare, p), urls);
            }
        });
        return urlSets;
    }

    /**
     * The matches: each URL asked of a rarest word's holder that has a posting for every word of the query, with
     * those postings in the query's word order. A URL the rarest holder did not return was a Bloom filter's false
     * positive and is left out.
     */
    static List<RemoteCandidate> join(List<WordHash> words, Map<Integer, WordHash> rarest,
                                      Map<RangeKey, List<UrlHash>> asked, Map<RangeKey, List<Posting>> postings,
                                      Map<UrlHash, PeerId> answeredBy) {
        List<RemoteCandidate> out = new ArrayList<>();
        for (var e : asked.entrySet()) {
            int p = e.getKey().partition();
            List<Map<UrlHash, Posting>> byWord = byWord(words, p, postings, HashMap::new);
            int rareIndex = words.indexOf(rarest.get(p));
            for (UrlHash u : e.getValue()) {
                if (rareIndex >= 0 && !byWord.get(rareIndex).containsKey(u)) continue; // a Bloom false positive
                RemoteCandidate c = candidate(u, byWord, answeredBy);
                if (c != null) out.add(c);
            }
        }
        return out;
    }

    /**
     * The matches of join lookups: per partition, each URL with a posting of every word (in the query's word order),
     * in URL order within a partition.
     */
    static List<RemoteCandidate> joined(List<WordHash> words, Iterable<Integer> partitions,
                                        Map<RangeKey, List<Posting>> postings, Map<UrlHash, PeerId> answeredBy) {
        List<RemoteCandidate> out = new ArrayList<>();
        for (int p : partitions) {
            List<Map<UrlHash, Posting>> byWord = byWord(words, p, postings, java.util.TreeMap::new);
            for (UrlHash u : byWord.get(0).keySet()) {
                RemoteCandidate c = candidate(u, byWord, answeredBy);
                if (c != null) out.add(c);
            }
        }
        return out;
    }

    /** Per word of the query (in its order), the postings received for partition {@code p}, the first per URL. */
    private static List<Map<UrlHash, Posting>> byWord(List<WordHash> words, int p, Map<RangeKey, List<Posting>> postings,
                                                      java.util.function.Supplier<Map<UrlHash, Posting>> map) {
        List<Map<UrlHash, Posting>> byWord = new ArrayList<>(words.size());
        for (WordHash w : words) {
            Map<UrlHash, Posting> m = map.get();
            for (Posting x : postings.getOrDefault(new RangeKey(w, p), List.of())) m.putIfAbsent(x.url(), x);
            byWord.add(m);
        }
        return byWord;
    }

    /** The candidate of URL {@code u} with a posting of every word, in the query's order; null if a word has none. */
    private static RemoteCandidate candidate(UrlHash u, List<Map<UrlHash, Posting>> byWord,
                                             Map<UrlHash, PeerId> answeredBy) {
        List<Posting> ps = new ArrayList<>(byWord.size());
        for (Map<UrlHash, Posting> m : byWord) {
            Posting found = m.get(u);
            if (found == null) return null;
            ps.add(found);
        }
        return new RemoteCandidate(u, ps, null, answeredBy.get(u));
    }
}
