package org.peerdex.actors.dht.shard;

import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.storage.rwi.Posting;

/**
 * The shape of a query a score lookup names so that its holder scores one word's postings by their part of the
 * query's score ({@link Scorer#wordPartDefault}) instead of the one-word score: the query's word count and the
 * word's share of its BM25 (its idf over the sum of the query's), packed in an int as
 * {@code terms << 16 | ceil(share × 65535)}; 0 names none. The share is rounded up, so a part computed from the
 * packed shape is never below the exact one and the searcher's sums stay bounds of its scores. A shape outside the
 * ranges (2 to 64 words) reads as none: the holder scores by the one-word score, which is never below a part.
 */
public final class WordPart {
    /** No shape: the one-word score. */
    public static final int NONE = 0;
    private static final int SHARE_UNITS = 0xffff;
    private static final int MAX_TERMS = 64;

    private WordPart() {}

    /** The shape of a word of a {@code terms}-word query with this share of its BM25; NONE for one word. */
    public static int of(int terms, double bm25Share) {
        if (terms < 2 || terms > MAX_TERMS) return NONE;
        double s = Double.isNaN(bm25Share) ? 1 : Math.max(0, Math.min(1, bm25Share));
        int units = (int) Math.min(SHARE_UNITS, Math.ceil(s * SHARE_UNITS));
        return terms << 16 | units;
    }

    /** Whether a shape names a query (else the one-word score is used). */
    public static boolean valid(int part) {
        return part > 0 && terms(part) >= 2 && terms(part) <= MAX_TERMS;
    }

    public static int terms(int part) {
        return part >>> 16;
    }

    /** The word's share of the query's BM25, as packed (rounded up). */
    public static double share(int part) {
        return (double) (part & SHARE_UNITS) / SHARE_UNITS;
    }

    /** A posting's score under a shape: its part of the query's score, or the one-word score without one. */
    public static double score(Posting p, int part) {
        return valid(part) ? Scorer.wordPartDefault(p, terms(part), share(part)) : PartialScore.of(p);
    }
}
