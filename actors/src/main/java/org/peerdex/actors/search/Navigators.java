package org.peerdex.actors.search;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.text.Tokenizer;

/**
 * Counts facets over result metadata: host, filetype, language, author, date (year) and topics (frequent words of
 * titles and snippets, minus stopwords and the query's own words). Each entry carries the query modifier that
 * narrows the search to it, where one exists.
 */
public final class Navigators {
    /** The facets, in display order. */
    public static final List<String> ALL = List.of("host", "filetype", "language", "author", "date", "topics");
    private static final int MAX_ENTRIES = 10;
    private static final Set<String> STOPWORDS = Set.of(
            "a", "an", "and", "are", "as", "at", "be", "by", "can", "for", "from", "has", "have", "how", "in", "is",
            "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "will", "with", "you", "your",
            "not", "but", "all", "any", "if", "into", "no", "one", "so", "such", "than", "then", "there", "these",
            "they", "which", "when", "who", "what", "use", "used", "using", "may", "also", "more", "other", "only",
            "der", "die", "das", "und", "le", "la", "les", "de", "des", "et", "en", "el", "los", "y");

    /** One entry: a value, how many results have it, and the query modifier that selects it ("" = none). */
    public record Entry(String value, int count, String modifier) {}

    private final Set<String> wanted;
    private final Set<String> queryWords;
    private final Map<String, Map<String, Integer>> counts = new LinkedHashMap<>();

    /** {@code wanted}: facet names to count (empty = none). */
    public Navigators(Set<String> wanted, Set<String> queryWords) {
        this.wanted = wanted;
        this.queryWords = queryWords;
        for (String f : ALL) if (wanted.contains(f)) counts.put(f, new HashMap<>());
    }

    /** Parses the {@code nav=} parameter: "all" (default), "none", or a comma list of facet names. */
    public static Set<String> parse(String nav) {
        if (nav == null || nav.isBlank() || nav.equals("all")) return Set.copyOf(ALL);
        if (nav.equals("none")) return Set.of();
        Set<String> out = new LinkedHashSet<>();
        for (String s : nav.split(",")) {
            String f = s.trim().toLowerCase(Locale.ROOT);
            if (f.equals("hosts")) f = "host";
            if (f.equals("topic")) f = "topics";
            if (!ALL.contains(f)) throw new IllegalArgumentException("unknown navigator '" + s + "'; known: " + ALL);
            out.add(f);
        }
        return out;
    }

    public void add(UrlMetadata m, String snippet) {
        count("host", m.host());
        count("filetype", m.filetype());
        count("language", m.language());
        count("author", m.author());
        if (m.lastModified() > 0) {
            count("date", String.valueOf(Instant.ofEpochMilli(m.lastModified()).atOffset(ZoneOffset.UTC).getYear()));
        }
        if (counts.containsKey("topics")) {
            Set<String> seen = new HashSet<>();
            for (String w : Tokenizer.plainWords(m.title() + " " + (snippet == null ? "" : snippet))) {
                if (w.length() < 3 || w.chars().allMatch(Character::isDigit) || STOPWORDS.contains(w)
                        || queryWords.contains(w) || !seen.add(w)) {
                    continue;
                }
                count("topics", w);
            }
        }
    }

    private void count(String facet, String value) {
        Map<String, Integer> m = counts.get(facet);
        if (m == null || value == null || value.isBlank()) return;
        m.merge(value, 1, Integer::sum);
    }

    /** The facets with their top entries, most frequent first. */
    public Map<String, List<Entry>> result() {
        Map<String, List<Entry>> out = new LinkedHashMap<>();
        counts.forEach((facet, m) -> {
            List<Map.Entry<String, Integer>> es = new ArrayList<>(m.entrySet());
            es.sort(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
            List<Entry> list = new ArrayList<>();
            for (var e : es) {
                if (list.size() >= MAX_ENTRIES) break;
                if (facet.equals("topics") && e.getValue() < 2 && es.size() > MAX_ENTRIES) continue;
                list.add(new Entry(e.getKey(), e.getValue(), modifier(facet, e.getKey())));
            }
            out.put(facet, list);
        });
        return out;
    }

    private static String modifier(String facet, String value) {
        return switch (facet) {
            case "host" -> "site:" + value;
            case "filetype" -> "filetype:" + value;
            case "language" -> "lang:" + value;
            case "author" -> value.contains(" ") ? "" : "author:" + value;
            case "topics" -> value;
            default -> "";
        };
    }
}
