package org.peerdex.actors.search;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.peerdex.storage.text.Tokenizer;

/**
 * Builds a snippet from a document's stored text: the window of about {@link #WINDOW} characters that holds the
 * most distinct query words (then the most occurrences), cut at word boundaries.
 */
public final class Snippets {
    public static final int WINDOW = 220;
    /** How much of a document is searched for the best window (Lucene's highlighter reads 50,000 by default). */
    static final int ANALYZED = 32 * 1024;

    private Snippets() {}

    public static String build(String text, Set<String> words, String fallback) {
        return build(text, words, List.of(), fallback);
    }

    /**
     * As {@link #build(String, Set, String)}, but a window that holds one of the {@code phrases} (its words in
     * order, separated by anything but letters and digits) wins: for "to be or not to be" the line itself, not the
     * densest cluster of "to" and "be".
     */
    public static String build(String text, Set<String> words, List<List<String>> phrases,
                               String fallback) {
        if (text == null || text.isBlank()) return fallback == null ? "" : fallback;
        // hits are searched in the first ANALYZED characters of the raw text and only the chosen window is
        // cleaned up: collapsing and lower-casing all 64 KB of stored text per result was most of a query's time
        String t = text.length() > ANALYZED ? text.substring(0, ANALYZED) : text;
        if (t.length() <= WINDOW) return collapseWhitespace(t);
        String lower = lowerCase(t);
        if (lower.length() != t.length()) return cut(t, 0);
        for (List<String> phrase : phrases) {
            int at = phraseAt(lower, phrase);
            if (at >= 0) return cut(t, Math.max(0, at - 40));
        }
        // hits: start offsets of query words at word boundaries
        int best = -1;
        int bestDistinct = 0;
        int bestCount = 0;
        List<int[]> hits = new ArrayList<>(); // {offset, wordIndex}
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

    /** Offset of the first occurrence of the phrase's words in order at word boundaries, or -1. */
    static int phraseAt(String lower, List<String> phrase) {
        if (phrase.isEmpty()) return -1;
        StringBuilder re = new StringBuilder("(?<![\\p{L}\\p{N}])");
        for (int i = 0; i < phrase.size(); i++) {
            if (i > 0) re.append("[^\\p{L}\\p{N}]+");
            re.append(Pattern.quote(phrase.get(i)));
        }
        re.append("(?![\\p{L}\\p{N}])");
        Matcher m = Pattern.compile(re.toString()).matcher(lower);
        return m.find() ? m.start() : -1;
    }

    /** Runs of whitespace become one space, trimmed; one pass (a regex over 64 KB of text per result was the cost). */
    static String collapseWhitespace(String text) {
        StringBuilder b = new StringBuilder(text.length());
        boolean space = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c) || c == '\u00a0') {
                space = b.length() > 0;
            } else {
                if (space) b.append(' ');
                space = false;
                b.append(c);
            }
        }
        return b.toString();
    }

    /**
     * The text as query words are written (NFKC, lower case) with offsets kept: char by char when the text is
     * already NFKC (the usual case, and much cheaper than normalizing), else normalized when that keeps the length.
     */
    private static String lowerCase(String t) {
        if (Normalizer.isNormalized(t, Normalizer.Form.NFKC)) {
            char[] cs = t.toCharArray();
            for (int i = 0; i < cs.length; i++) cs[i] = Character.toLowerCase(cs[i]);
            return new String(cs);
        }
        String lower = Tokenizer.normalize(t);
        return lower.length() == t.length() ? lower : t.toLowerCase(Locale.ROOT);
    }

    private static String cut(String raw, int rawStart) {
        // the raw slice may hold runs of whitespace: take enough of it that WINDOW characters remain once collapsed
        int rawEnd = rawStart;
        int visible = 0;
        while (rawEnd < raw.length() && visible < WINDOW + 40) {
            if (!Character.isWhitespace(raw.charAt(rawEnd))) visible++;
            rawEnd++;
        }
        boolean more = rawEnd < raw.length();
        String t = collapseWhitespace(raw.substring(rawStart, rawEnd));
        int s = 0;
        if (rawStart > 0) {
            int space = t.indexOf(' ');
            s = space < 0 || space > 30 ? 0 : space + 1;
        }
        int e = Math.min(t.length(), s + WINDOW);
        if (e < t.length()) {
            int space = t.lastIndexOf(' ', e);
            if (space > s + WINDOW / 2) e = space;
        }
        return (rawStart > 0 ? "… " : "") + t.substring(s, e).trim() + (e < t.length() || more ? " …" : "");
    }
}
