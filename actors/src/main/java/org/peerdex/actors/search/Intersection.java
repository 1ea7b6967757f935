package org.peerdex.actors.search;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.rwi.Posting;

/**
 * Joins posting lists sorted by URL hash: a merge join that walks the smallest list and gallops through the
 * others (exponential then binary search), so the cost follows the rarest word, not the most common one.
 * Exclusion lists remove their URLs the same way.
 */
public final class Intersection {
    private Intersection() {}

    /** Sorts a list by URL hash (remote sources may deliver in any order); returns a new sorted list. */
    public static List<Posting> sorted(List<Posting> list) {
        List<Posting> out = new ArrayList<>(list);
        out.sort(Comparator.comparing(Posting::url));
        return out;
    }

    /**
     * The candidates that appear in every list of {@code terms} (each sorted by URL hash) and in no list of
     * {@code exclusions}; each candidate's postings are in the order of {@code terms}.
     */
    public static List<Candidate> intersect(List<List<Posting>> terms, List<List<Posting>> exclusions) {
        if (terms.isEmpty()) return List.of();
        int k = terms.size();
        Integer[] order = new Integer[k];
        for (int i = 0; i < k; i++) order[i] = i;
        Arrays.sort(order, Comparator.comparingInt(i -> terms.get(i).size()));
        List<Posting> smallest = terms.get(order[0]);
        if (smallest.isEmpty()) return List.of();
        int[] cursor = new int[k];
        int[] exCursor = new int[exclusions.size()];
        List<Candidate> out = new ArrayList<>(Math.min(smallest.size(), 4096));
        Posting[] row = new Posting[k];
        outer:
        for (Posting p : smallest) {
            UrlHash url = p.url();
            row[order[0]] = p;
            for (int j = 1; j < k; j++) {
                int t = order[j];
                List<Posting> list = terms.get(t);
                int at = gallop(list, cursor[t], url);
                cursor[t] = at;
                if (at >= list.size()) break outer; // this list is exhausted: no later URL can match
                if (!list.get(at).url().equals(url)) continue outer;
                row[t] = list.get(at);
            }
            for (int e = 0; e < exclusions.size(); e++) {
                List<Posting> list = exclusions.get(e);
                int at = gallop(list, exCursor[e], url);
                exCursor[e] = at;
                if (at < list.size() && list.get(at).url().equals(url)) continue outer;
            }
            out.add(new Candidate(url, Arrays.asList(row.clone())));
        }
        return out;
    }

    /** The first index at or after {@code from} whose URL is not less than {@code url}. */
    static int gallop(List<Posting> list, int from, UrlHash url) {
        int n = list.size();
        if (from >= n || list.get(from).url().compareTo(url) >= 0) return from;
        int step = 1;
        int lo = from;
        int hi = from + 1;
        while (hi < n && list.get(hi).url().compareTo(url) < 0) {
            lo = hi;
            step <<= 1;
            hi = from + step;
        }
        if (hi > n) hi = n;
        // invariant: list[lo] < url, and list[hi] >= url or hi == n
        while (lo + 1 < hi) {
            int mid = (lo + hi) >>> 1;
            if (list.get(mid).url().compareTo(url) < 0) lo = mid;
            else hi = mid;
        }
        return hi;
    }
}
