package org.peerdex.actors.search.query;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.peerdex.protocol.hash.WordHash;

/**
 * A parsed query. {@code terms} are the words every result must contain (tokenized exactly like documents, so an
 * identifier such as {@code os.path.join} is one whole-word term); {@code exclusions} must not occur;
 * each phrase is a list of plain words that must appear in that order.
 *
 * @param site     host suffix filter ({@code site:example.org} also matches {@code www.example.org})
 * @param filetype file extension filter, lower case
 * @param inurl    substring the URL must contain
 * @param language ISO 639-1 language filter
 * @param author   substring the author must contain
 */
public record Query(String raw, List<String> terms, List<String> exclusions, List<List<String>> phrases,
                    Optional<String> site, Optional<String> filetype, Optional<String> inurl,
                    Optional<String> language, Optional<String> author) {
    public Query {
        terms = List.copyOf(terms);
        exclusions = List.copyOf(exclusions);
        phrases = phrases.stream().map(List::copyOf).toList();
    }

    public List<WordHash> termHashes() {
        return terms.stream().map(WordHash::of).toList();
    }

    public List<WordHash> exclusionHashes() {
        return exclusions.stream().map(WordHash::of).toList();
    }

    /** The terms plus the plain parts of compound terms: words a snippet or a topic list should look for. */
    public Set<String> highlightWords() {
        Set<String> out = new LinkedHashSet<>(terms);
        for (String t : terms) for (String p : t.split("[_.\\-:]+")) if (!p.isEmpty()) out.add(p);
        return out;
    }

    /**
     * What a result page should mark for the reader: each phrase (its words joined by a space) and the other query
     * words, except function words ("the", "of") when the query has content words or phrases besides; so "the of
     * and a to" marks only that run of words, not every "the" of a page. Never an exclusion.
     */
    public List<String> highlights() {
        List<String> out = new ArrayList<>();
        for (List<String> p : phrases) out.add(String.join(" ", p));
        Set<String> inPhrases = new LinkedHashSet<>();
        phrases.forEach(inPhrases::addAll);
        boolean content = !phrases.isEmpty() || terms.stream().anyMatch(t -> !StopWords.contains(t));
        for (String w : highlightWords()) {
            if (inPhrases.contains(w) || content && StopWords.contains(w)) continue;
            out.add(w);
        }
        return out;
    }

    /** True if a filter needs the URL metadata (site, filetype, inurl, author). */
    public boolean needsMetadataFilter() {
        return site.isPresent() || filetype.isPresent() || inurl.isPresent() || author.isPresent();
    }

    /** The query rebuilt from its parts (normal form, e.g. for caching and for navigator links). */
    public String canonical() {
        List<String> parts = new ArrayList<>();
        for (List<String> p : phrases) parts.add('"' + String.join(" ", p) + '"');
        Set<String> inPhrases = new LinkedHashSet<>();
        phrases.forEach(inPhrases::addAll);
        for (String t : terms) if (!inPhrases.contains(t)) parts.add(t);
        for (String e : exclusions) parts.add("-" + e);
        site.ifPresent(s -> parts.add("site:" + s));
        filetype.ifPresent(s -> parts.add("filetype:" + s));
        inurl.ifPresent(s -> parts.add("inurl:" + s));
        language.ifPresent(s -> parts.add("lang:" + s));
        author.ifPresent(s -> parts.add("author:" + s));
        return String.join(" ", parts);
    }
}
