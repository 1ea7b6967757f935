package org.peerdex.actors.parse;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Guesses the language of a text from its most frequent function words (en, de, fr, es, it, nl, pt, ru). Cheap and
 * good enough for the language navigator on a few hundred words; returns "" when the evidence is thin.
 */
public final class LanguageDetector {
    // a few hundred words decide the language as well as thousands, at a fraction of the cost
    private static final int MAX_WORDS = 500;
    private static final int MIN_HITS = 3;
    private static final Map<String, Set<String>> STOPWORDS = Map.of(
            "en", Set.of("the", "and", "of", "to", "is", "in", "that", "it", "for", "with", "as", "was", "on", "are",
                    "this", "be", "by", "not", "or", "from", "which", "have", "an", "you", "can", "if", "will"),
            "de", Set.of("der", "die", "und", "das", "ist", "nicht", "mit", "den", "ein", "eine", "auf", "sich", "des",
                    "dem", "zu", "im", "auch", "es", "wird", "oder", "sind", "wie", "bei", "für", "nach", "werden"),
            "fr", Set.of("le", "la", "les", "et", "des", "est", "une", "du", "dans", "que", "pour", "qui", "pas",
                    "sur", "au", "avec", "sont", "ce", "il", "par", "plus", "aux", "ou", "mais", "nous", "cette"),
            "es", Set.of("el", "los", "las", "y", "del", "que", "en", "una", "por", "para", "con", "es", "se", "no",
                    "su", "al", "lo", "como", "más", "pero", "sus", "este", "esta", "son", "ha", "también"),
            "it", Set.of("il", "di", "che", "della", "per", "non", "sono", "una", "gli", "del", "con", "nel", "alla",
                    "anche", "come", "questo", "si", "più", "dei", "delle", "ha", "è", "ma", "essere", "lo"),
            "nl", Set.of("de", "het", "een", "en", "van", "is", "dat", "niet", "op", "te", "zijn", "voor", "met",
                    "die", "ook", "aan", "er", "maar", "om", "worden", "wordt", "bij", "naar", "dan", "kan"),
            "pt", Set.of("o", "os", "as", "que", "do", "da", "em", "um", "uma", "para", "com", "não", "dos", "das",
                    "se", "por", "mais", "como", "mas", "foi", "ao", "ele", "à", "seu", "sua", "são", "também"),
            "ru", Set.of("и", "в", "не", "на", "что", "с", "по", "как", "это", "он", "к", "но", "из", "у", "за",
                    "от", "для", "так", "же", "все", "она", "был", "его", "или", "то", "мы", "вы"));
    /** Stop word → the languages it belongs to: one lookup per word of the text. */
    private static final Map<String, String[]> BY_WORD = byWord();

    private static Map<String, String[]> byWord() {
        Map<String, java.util.List<String>> m = new HashMap<>();
        STOPWORDS.forEach((lang, words) -> words.forEach(w -> m.computeIfAbsent(w, k -> new java.util.ArrayList<>())
                .add(lang)));
        Map<String, String[]> out = new HashMap<>();
        m.forEach((w, l) -> out.put(w, l.toArray(new String[0])));
        return out;
    }

    private LanguageDetector() {}

    /** ISO 639-1 code of the likeliest language, or "". */
    public static String detect(String text) {
        Map<String, Integer> hits = new HashMap<>();
        int words = 0;
        int i = 0;
        int n = text.length();
        StringBuilder w = new StringBuilder();
        while (i <= n && words < MAX_WORDS) {
            char c = i < n ? text.charAt(i) : ' ';
            if (Character.isLetter(c)) {
                if (w.length() < 32) w.append(Character.toLowerCase(c));
            } else if (w.length() > 0) {
                String word = w.toString();
                w.setLength(0);
                words++;
                String[] langs = BY_WORD.get(word);
                if (langs != null) for (String l : langs) hits.merge(l, 1, Integer::sum);
            }
            i++;
        }
        String best = "";
        int bestHits = 0;
        int second = 0;
        for (Map.Entry<String, Integer> e : hits.entrySet()) {
            if (e.getValue() > bestHits) {
                second = bestHits;
                bestHits = e.getValue();
                best = e.getKey();
            } else if (e.getValue() > second) {
                second = e.getValue();
            }
        }
        if (bestHits < MIN_HITS || bestHits * 10 < second * 12) return ""; // too few or too close to call
        return best;
    }

    /** The primary subtag of a language tag ("en-US" → "en"), lower case; "" if it does not look like one. */
    public static String normalizeTag(String tag) {
        if (tag == null) return "";
        String t = tag.trim().toLowerCase(Locale.ROOT);
        int dash = t.indexOf('-');
        if (dash < 0) dash = t.indexOf('_');
        if (dash > 0) t = t.substring(0, dash);
        return t.matches("[a-z]{2,3}") ? t : "";
    }
}
