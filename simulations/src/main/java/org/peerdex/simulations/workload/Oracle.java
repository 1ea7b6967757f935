package org.peerdex.simulations.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.peerdex.actors.dht.PartialScore;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.rwi.Posting;

/**
 * The central index over the whole corpus, as if one machine held every document: gives the true top-k of a
 * conjunctive query by the same per-posting score the DHT lookup ranks by (sum of PartialScore over the query
 * words; ties by URL hash), and numbers every posting so replica counts can be kept in a flat array.
 */
public final class Oracle {
    private final Map<WordHash, Integer> wordIds = new HashMap<>();
    private final List<WordHash> words = new ArrayList<>();
    private final Map<UrlHash, Integer> docIds = new HashMap<>();
    private final List<UrlHash> urls = new ArrayList<>();
    private final List<int[]> docWords = new ArrayList<>();
    private final List<double[]> docScores = new ArrayList<>();
    private final List<Integer> offsets = new ArrayList<>();
    private int[][] postingsOf; // word id -> doc ids, ascending
    private int totalPostings;
    private boolean dirty = true;

    /** Adds one document's postings (call in document order, then {@link #seal()}). */
    public void add(UrlHash url, List<Posting> postings) {
        int d = urls.size();
        docIds.put(url, d);
        urls.add(url);
        int[] ws = new int[postings.size()];
        double[] ss = new double[postings.size()];
        Integer[] order = new Integer[postings.size()];
        int[] raw = new int[postings.size()];
        for (int i = 0; i < postings.size(); i++) {
            raw[i] = wordIds.computeIfAbsent(postings.get(i).word(), w -> {
                words.add(w);
                return words.size() - 1;
            });
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt(i -> raw[i]));
        for (int i = 0; i < order.length; i++) {
            ws[i] = raw[order[i]];
            ss[i] = PartialScore.of(postings.get(order[i]));
        }
        docWords.add(ws);
        docScores.add(ss);
        offsets.add(totalPostings);
        totalPostings += ws.length;
        dirty = true;
    }

    public void seal() {
        dirty = false;
        int[] counts = new int[words.size()];
        for (int[] ws : docWords) for (int w : ws) counts[w]++;
        postingsOf = new int[words.size()][];
        for (int w = 0; w < counts.length; w++) postingsOf[w] = new int[counts[w]];
        int[] fill = new int[words.size()];
        for (int d = 0; d < docWords.size(); d++) for (int w : docWords.get(d)) postingsOf[w][fill[w]++] = d;
    }

    public int documents() {
        return urls.size();
    }

    public int totalPostings() {
        return totalPostings;
    }

    public int[] wordsOf(int doc) {
        return docWords.get(doc);
    }

    /** The id of a word, or -1 if no document has it. */
    public int wordId(WordHash w) {
        return wordIds.getOrDefault(w, -1);
    }

    /** The document number of a URL, or -1. */
    public int docId(UrlHash u) {
        return docIds.getOrDefault(u, -1);
    }

    public WordHash word(int id) {
        return words.get(id);
    }

    public UrlHash url(int doc) {
        return urls.get(doc);
    }

    /** The flat id of posting (word, url), or -1 if the corpus has no such posting. */
    public int postingId(WordHash word, UrlHash url) {
        Integer w = wordIds.get(word);
        Integer d = docIds.get(url);
        if (w == null || d == null) return -1;
        int i = Arrays.binarySearch(docWords.get(d), w);
        return i < 0 ? -1 : offsets.get(d) + i;
    }

    /** The true top {@code k} URLs of documents containing every word, best first. */
    public List<UrlHash> top(List<Integer> queryWords, int k) {
        if (dirty) seal();
        int rarest = queryWords.get(0);
        for (int w : queryWords) if (postingsOf[w].length < postingsOf[rarest].length) rarest = w;
        record Hit(UrlHash url, double score) {}
        List<Hit> hits = new ArrayList<>();
        next:
        for (int d : postingsOf[rarest]) {
            double s = 0;
            for (int w : queryWords) {
                int i = Arrays.binarySearch(docWords.get(d), w);
                if (i < 0) continue next;
                s += docScores.get(d)[i];
            }
            hits.add(new Hit(urls.get(d), s));
        }
        hits.sort(Comparator.comparingDouble(Hit::score).reversed().thenComparing(Hit::url));
        List<UrlHash> out = new ArrayList<>();
        for (int i = 0; i < Math.min(k, hits.size()); i++) out.add(hits.get(i).url());
        return out;
    }
}
