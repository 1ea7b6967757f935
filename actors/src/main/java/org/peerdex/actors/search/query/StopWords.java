package org.peerdex.actors.search.query;

import java.util.Set;

/**
 * English function words: how the query side decides that a query holds nothing but them ("the of and a to",
 * "to be or not to be"), and which words not to highlight in a query that has real words besides. The index keeps
 * every word; nothing is dropped from documents or from the terms a result must contain.
 */
public final class StopWords {
    private static final Set<String> WORDS = Set.of("a", "about", "after", "all", "also", "am", "an", "and", "any",
            "are", "as", "at", "be", "because", "been", "before", "being", "but", "by", "can", "could", "did", "do",
            "does", "for", "from", "had", "has", "have", "he", "her", "him", "his", "how", "i", "if", "in", "into",
            "is", "it", "its", "me", "my", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our",
            "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their",
            "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
            "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
            "with", "would", "you", "your");

    private StopWords() {}

    /** True for a lower-case English function word. */
    public static boolean contains(String word) {
        return WORDS.contains(word);
    }
}
