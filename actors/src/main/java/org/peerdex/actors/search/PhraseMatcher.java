package org.peerdex.actors.search;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.text.Tokenizer;

/**
 * Phrase checks in two steps: the postings' word positions rule a document out cheaply when they are complete
 * (fewer than {@link Posting#MAX_POSITIONS} occurrences recorded); otherwise, and to confirm, the stored text
 * is searched for the words in sequence.
 */
public final class PhraseMatcher {
    private PhraseMatcher() {}

    /**
     * False only if the positions prove the phrase absent from the body; the phrase may still appear in the
     * title or another field, so the caller checks the text when this is true.
     *
     * @param postings the postings of the phrase words, in phrase order (null where unknown)
     */
    public static boolean possibleByPositions(List<Posting> postings) {
        for (Posting p : postings) {
            if (p == null || p.positions().length >= Posting.MAX_POSITIONS) return true;
            // a word seen in other fields (title, headings...) may carry the phrase there
            if ((p.flags() & ~(Posting.CACHED | Posting.HAS_IMAGE)) != 0) return true;
        }
        int[] first = postings.get(0).positions();
        for (int start : first) {
            boolean all = true;
            for (int i = 1; i < postings.size() && all; i++) {
                all = contains(postings.get(i).positions(), start + i);
            }
            if (all) return true;
        }
        return false;
    }

    private static boolean contains(int[] sorted, int v) {
        return Arrays.binarySearch(sorted, v) >= 0;
    }

    /** True if the plain words of {@code text} contain {@code phrase} as a consecutive run. */
    public static boolean inText(String text, List<String> phrase) {
        if (phrase.isEmpty()) return true;
        List<String> words = Tokenizer.plainWords(text);
        int n = phrase.size();
        for (int i = 0; i + n <= words.size(); i++) {
            boolean match = true;
            for (int j = 0; j < n && match; j++) match = words.get(i + j).equals(phrase.get(j));
            if (match) return true;
        }
        return false;
    }

    /** True if every term occurs in the text (as a word or compound, tokenized like the index). */
    public static boolean containsAll(String text, List<String> terms) {
        Set<String> words = new HashSet<>(Tokenizer.words(text));
        return words.containsAll(terms);
    }
}
