package org.peerdex.actors.search;

import java.util.Set;
import org.peerdex.storage.text.Tokenizer;

/**
 * Builds a snippet from a document's stored text: the window of about {@link #WINDOW} characters that holds the
 * most distinct query words (then the most occurrences), cut at word boundaries.
 */
public final class Snippets {
    public static final int WINDOW = 220;

    private Snippets() {}

    public static String build(String text, Set<String> words, String fallback) {
        if (text == null || text.isBlank()) return fallback == null ? "" : fallback;
        String t = text.replaceAll("\\s+", " ").trim();
        if (t.length() <= WINDOW) return t;
        String lower = Tokenizer.normalize(t);
        if (lower.length() != t.length()) lower = t.toLowerCase(java.util.Locale.ROOT);
        if (lower.length() != t.length()) return cut(t, 0);
        // hits: start offsets of query words at word boundaries
        int best = -1;
        int bestDistinct = 0;
        int bestCount = 0;
        java.util.List<int[]> hits = new java.util.ArrayList<>(); // {offset, wordIndex}
        String[] ws = words.toArray(new String[0]);
        for (int w = 0; w < ws.length; w++) {
            String word = ws[w];
            if (word.isEmpty()) continue;
            int from = 0;
            int found = 0;
            while ((from = lower.indexOf(word, from)) >= 0 && found < 200) {
                boolean startOk = from == 0 || !Character.isLetterOrDigit(lower.charAt(from - 1));
                int end = from + word.length();
                boolean endOk = end >= lower.length() || !Character.isLetterOrDigit(lower.charAt(end));
                if (startOk && endOk) {
                    hits.add(new int[] {from, w});
                    found++;
                }
                from = end;
            }
        }
        if (hits.isEmpty()) return cut(t, 0);
        hits.sort((a, b) -> Integer.compare(a[0], b[0]));
        int j = 0;
        int[] inWindow = new int[ws.length];
        int distinct = 0;
        for (int i = 0; i < hits.size(); i++) {
            // window [hits[i].offset, +WINDOW)
            while (j < hits.size() && hits.get(j)[0] < hits.get(i)[0] + WINDOW - 20) {
                if (inWindow[hits.get(j)[1]]++ == 0) distinct++;
                j++;
            }
            int count = j - i;
            if (distinct > bestDistinct || (distinct == bestDistinct && count > bestCount)) {
                best = hits.get(i)[0];
                bestDistinct = distinct;
                bestCount = count;
            }
            if (--inWindow[hits.get(i)[1]] == 0) distinct--;
        }
        return cut(t, Math.max(0, best - 40));
    }

    private static String cut(String t, int start) {
        int s = start;
        if (s > 0) {
            int space = t.indexOf(' ', s);
            s = space < 0 || space - s > 30 ? s : space + 1;
        }
        int e = Math.min(t.length(), s + WINDOW);
        if (e < t.length()) {
            int space = t.lastIndexOf(' ', e);
            if (space > s + WINDOW / 2) e = space;
        }
        return (s > 0 ? "… " : "") + t.substring(s, e).trim() + (e < t.length() ? " …" : "");
    }
}
