package org.peerdex.actors.search.ranking;

import java.util.Map;

/**
 * What BM25 needs about the collection: N documents, the document frequency of each term (the length of its
 * posting list), and the average document length in words.
 */
public record CorpusStats(long documents, Map<String, Long> documentFrequency, double averageLength) {
    public CorpusStats {
        documentFrequency = Map.copyOf(documentFrequency);
        documents = Math.max(1, documents);
        averageLength = averageLength > 0 ? averageLength : 300;
    }

    public double idf(String term) {
        long df = Math.max(1, documentFrequency.getOrDefault(term, 1L));
        return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
    }
}
