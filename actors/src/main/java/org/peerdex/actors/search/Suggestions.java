package org.peerdex.actors.search;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.peerdex.storage.text.Tokenizer;

/**
 * Query completions from the index's titles: words by how many titles contain them, and titles that start with
 * what was typed. Built from a snapshot; immutable.
 */
public final class Suggestions {
    private final TreeMap<String, Integer> words = new TreeMap<>();
    private final TreeMap<String, String> titles = new TreeMap<>();

    public Suggestions(List<String> allTitles) {
        this(allTitles, 1, List.of());
    }

    /**
     * @param minFrequency a title word is offered when at least this many titles contain it
     * @param wordList     the operator's dictionary: offered whatever the index holds, each counting one title more
     */
    public Suggestions(List<String> allTitles, int minFrequency, java.util.Collection<String> wordList) {
        Map<String, Integer> counts = new HashMap<>();
        for (String t : allTitles) {
            for (String w : new LinkedHashSet<>(Tokenizer.words(t))) if (w.length() > 1) counts.merge(w, 1, Integer::sum);
            String norm = Tokenizer.normalize(t).trim();
            if (!norm.isEmpty()) titles.putIfAbsent(norm, t.trim());
        }
        counts.values().removeIf(n -> n < minFrequency);
        for (String w : wordList) {
            String n = Tokenizer.normalize(w).trim();
            if (!n.isEmpty()) counts.merge(n, 1, Integer::sum);
        }
        words.putAll(counts);
    }

    /** Up to {@code max} completions of {@code typed}: the last word completed, then matching titles. */
    public List<String> complete(String typed, int max) {
        String q = Tokenizer.normalize(typed == null ? "" : typed).stripLeading();
        if (q.isBlank()) return List.of();
        Set<String> out = new LinkedHashSet<>();
        int space = q.lastIndexOf(' ');
        String head = space < 0 ? "" : q.substring(0, space + 1);
        String last = q.substring(space + 1);
        if (!last.isEmpty()) {
            List<Map.Entry<String, Integer>> cands = new ArrayList<>(
                    words.subMap(last, true, last + Character.MAX_VALUE, true).entrySet());
            cands.sort(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
            for (var e : cands) {
                if (out.size() >= max) break;
                out.add(head + e.getKey());
            }
        }
        for (var e : titles.subMap(q, true, q + Character.MAX_VALUE, true).entrySet()) {
            if (out.size() >= max) break;
            out.add(e.getValue().toLowerCase(Locale.ROOT));
        }
        return new ArrayList<>(out);
    }

    public int size() {
        return words.size();
    }
}
