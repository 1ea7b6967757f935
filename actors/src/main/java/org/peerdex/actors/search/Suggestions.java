package org.peerdex.actors.search;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.peerdex.actors.search.query.StopWords;
import org.peerdex.storage.text.Tokenizer;

/**
 * Query completions from the index's titles: single words by how many titles contain them, and phrases of two or
 * three words that titles use (within one part of a title: "json — JSON encoder and decoder" gives "json encoder"
 * and "encoder and decoder", never the whole title), each offered when it starts with what was typed. A phrase
 * neither starts nor ends with a function word, and holds no bare number. Built from a snapshot; immutable.
 */
public final class Suggestions {
    /** Title parts: a phrase does not run across a dash, colon, bar, bracket or other separator. */
    private static final Pattern SEPARATORS = Pattern.compile("[\\u2014\\u2013|:;,!?()\\[\\]{}<>\"/\\\\]| - ");
    private final TreeMap<String, Integer> words = new TreeMap<>();
    private final TreeMap<String, Integer> phrases = new TreeMap<>();

    public Suggestions(List<String> allTitles) {
        this(allTitles, 1, List.of());
    }

    /**
     * @param minFrequency a title word or phrase is offered when at least this many titles contain it
     * @param wordList     the operator's dictionary: offered whatever the index holds, each counting one title more
     */
    public Suggestions(List<String> allTitles, int minFrequency, Collection<String> wordList) {
        Map<String, Integer> counts = new HashMap<>();
        Map<String, Integer> phraseCounts = new HashMap<>();
        for (String t : allTitles) {
            for (String w : new LinkedHashSet<>(Tokenizer.words(t))) if (w.length() > 1) counts.merge(w, 1, Integer::sum);
            for (String p : phrasesOf(t)) phraseCounts.merge(p, 1, Integer::sum);
        }
        counts.values().removeIf(n -> n < minFrequency);
        phraseCounts.values().removeIf(n -> n < minFrequency);
        for (String w : wordList) {
            String n = Tokenizer.normalize(w).trim();
            if (!n.isEmpty()) counts.merge(n, 1, Integer::sum);
        }
        words.putAll(counts);
        phrases.putAll(phraseCounts);
    }

    /** The distinct two- and three-word phrases of one title. */
    static Set<String> phrasesOf(String title) {
        Set<String> out = new LinkedHashSet<>();
        for (String part : SEPARATORS.split(title)) {
            List<String> ws = Tokenizer.plainWords(part);
            for (int n = 2; n <= 3; n++) {
                for (int i = 0; i + n <= ws.size(); i++) {
                    List<String> p = ws.subList(i, i + n);
                    if (StopWords.contains(p.get(0)) || StopWords.contains(p.get(n - 1))) continue;
                    if (p.stream().anyMatch(w -> w.chars().allMatch(Character::isDigit))) continue;
                    if (p.get(0).equals(p.get(1))) continue; // "json json" from "json — JSON ..."
                    out.add(String.join(" ", p));
                }
            }
        }
        return out;
    }

    /**
     * Up to {@code max} completions of {@code typed}: its last word completed to single words (the first half of
     * the list at most), then phrases that continue its last one or two words, then more words; the words typed
     * before are kept, each list is ordered by how many titles hold it, and what was typed is not offered back.
     */
    public List<String> complete(String typed, int max) {
        String q = Tokenizer.normalize(typed == null ? "" : typed).stripLeading().replaceAll("\\s+", " ");
        if (q.isBlank()) return List.of();
        String[] tokens = q.split(" ", -1);
        String last = tokens[tokens.length - 1];
        String before = q.substring(0, q.length() - last.length());
        List<String> wordCompletions = new ArrayList<>();
        if (!last.isEmpty()) for (String w : best(words, last, max)) wordCompletions.add(before + w);
        List<String> phraseCompletions = new ArrayList<>();
        for (int k = Math.min(2, tokens.length); k >= 1; k--) {
            String head = String.join(" ", Arrays.copyOfRange(tokens, 0, tokens.length - k));
            String tail = String.join(" ", Arrays.copyOfRange(tokens, tokens.length - k, tokens.length)).strip();
            if (tail.isEmpty()) continue;
            for (String p : best(phrases, tail, max)) phraseCompletions.add(head.isEmpty() ? p : head + " " + p);
        }
        Set<String> out = new LinkedHashSet<>();
        String typedForm = q.strip();
        int firstWords = (max + 1) / 2;
        for (String w : wordCompletions) if (out.size() < firstWords && !w.equals(typedForm)) out.add(w);
        for (String p : phraseCompletions) if (out.size() < max && !p.equals(typedForm)) out.add(p);
        for (String w : wordCompletions) if (out.size() < max && !w.equals(typedForm)) out.add(w);
        return new ArrayList<>(out);
    }

    /** Entries of {@code map} that start with {@code prefix}, most frequent first, at most {@code max}. */
    private static List<String> best(TreeMap<String, Integer> map, String prefix, int max) {
        List<Map.Entry<String, Integer>> cands = new ArrayList<>(
                map.subMap(prefix, true, prefix + Character.MAX_VALUE, true).entrySet());
        cands.sort(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        List<String> out = new ArrayList<>();
        for (var e : cands) {
            if (out.size() >= max) break;
            out.add(e.getKey());
        }
        return out;
    }

    public int size() {
        return words.size();
    }
}
