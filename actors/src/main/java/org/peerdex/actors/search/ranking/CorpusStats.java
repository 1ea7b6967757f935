package org.peerdex.actors.search.ranking;

import java.util.HashMap;
import java.util.Map;

/**
 * What BM25 needs about the collection: N documents, the document frequency of each term (the length of its
 * posting list), and the average document length in words. No peer knows the collection's average length, and
 * every candidate of a query must be scored alike (by the querying peer and, at the cut, by the DHT holders), so
 * sources leave it at 0 and a nominal {@link #NOMINAL_LENGTH} is used.
 */
public record CorpusStats(long documents, Map<String, Long> documentFrequency, double averageLength) {
    /** The average document length used when a source gives none: a typical web page's words. */
    public static final double NOMINAL_LENGTH = 500;

    public CorpusStats {
        documentFrequency = Map.copyOf(documentFrequency);
        documents = Math.max(1, documents);
        averageLength = averageLength > 0 ? averageLength : NOMINAL_LENGTH;
    }

    public double idf(String term) {
        long df = Math.max(1, documentFrequency.getOrDefault(term, 1L));
        // N below df (a peer that estimates N low) must not make a term's weight negative
        long n = Math.max(documents, df);
        return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    }

    /**
     * The statistics of two views of the same collection (the local index, the DHT): each source sees a part of
     * it, so the larger N and the larger document frequency of each term are the better estimate of the whole;
     * the average length of this one.
     */
    public CorpusStats merge(CorpusStats other) {
        if (other == null) return this;
        Map<String, Long> df = new HashMap<>(documentFrequency);
        other.documentFrequency.forEach((t, n) -> df.merge(t, n, Math::max));
        return new CorpusStats(Math.max(documents, other.documents), df, averageLength);
    }
}
