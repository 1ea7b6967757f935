package org.peerdex.actors.search.query;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.peerdex.storage.text.Tokenizer;

/**
 * Parses the query language: words, {@code -exclusion}, {@code "a phrase"}, {@code site:}, {@code filetype:},
 * {@code inurl:}, {@code lang:} (and YaCy's {@code /language/xx}), {@code author:}. Words go through the same
 * {@link Tokenizer} as documents: a compound such as {@code pg_dump} becomes the one whole-word term, which the
 * index holds beside its parts. Quotes are read leniently: a quote inside a word is part of the word (the tokenizer
 * drops it), and a phrase without its closing quote runs to the end. The only failure is a
 * {@link QuerySyntaxException} (HTTP 400) for a query with nothing to look for or over the limits.
 */
public final class QueryParser {
    public static final int MAX_QUERY_CHARS = 512;
    public static final int MAX_TERMS = 32;
    private static final Pattern LANGUAGE = Pattern.compile("[a-z]{2,3}");

    private QueryParser() {}

    public static Query parse(String raw) {
        if (raw == null || raw.isBlank()) throw new QuerySyntaxException("the query is empty");
        if (raw.length() > MAX_QUERY_CHARS) {
            throw new QuerySyntaxException("the query is too long: " + raw.length() + " characters, at most "
                    + MAX_QUERY_CHARS);
        }
        Set<String> terms = new LinkedHashSet<>();
        Set<String> exclusions = new LinkedHashSet<>();
        List<List<String>> phrases = new ArrayList<>();
        // the plain words outside quotes, in order and with repeats: the phrase of a stop-word-only query
        List<String> sequence = new ArrayList<>();
        String site = null, filetype = null, inurl = null, language = null, author = null;

        int i = 0;
        int n = raw.length();
        while (i < n) {
            char c = raw.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            boolean negated = false;
            if (c == '-' && i + 1 < n && !Character.isWhitespace(raw.charAt(i + 1))) {
                negated = true;
                i++;
                c = raw.charAt(i);
            }
            if (c == '"') {
                // a phrase opened and never closed runs to the end of the query (YaCy reads it so); SearXNG and
                // other clients turn a 400 into an engine failure, so a stray quote must not fail the search
                int close = raw.indexOf('"', i + 1);
                if (close < 0) close = n;
                String inside = raw.substring(i + 1, close);
                i = Math.min(n, close + 1);
                List<String> words = Tokenizer.plainWords(inside);
                if (words.isEmpty()) continue;
                if (negated) {
                    // a negated phrase excludes documents with all its words (a conservative reading)
                    exclusions.addAll(termsOf(inside));
                } else {
                    if (words.size() > 1) phrases.add(words);
                    terms.addAll(termsOf(inside));
                }
                continue;
            }
            int end = i;
            while (end < n && !Character.isWhitespace(raw.charAt(end))) end++;
            String token = raw.substring(i, end);
            i = end;
            if (!negated && token.startsWith("/language/")) {
                language = checkLanguage(token.substring("/language/".length()));
                continue;
            }
            int colon = token.indexOf(':');
            if (!negated && colon > 0 && colon < token.length() - 1) {
                String op = token.substring(0, colon).toLowerCase(Locale.ROOT);
                String value = token.substring(colon + 1);
                switch (op) {
                    case "site" -> {
                        site = value.toLowerCase(Locale.ROOT).replaceFirst("^https?://", "").replaceAll("/.*$", "");
                        continue;
                    }
                    case "filetype" -> {
                        filetype = value.toLowerCase(Locale.ROOT).replaceFirst("^\\.", "");
                        continue;
                    }
                    case "inurl" -> {
                        inurl = value.toLowerCase(Locale.ROOT);
                        continue;
                    }
                    case "lang", "language" -> {
                        language = checkLanguage(value);
                        continue;
                    }
                    case "author" -> {
                        author = value.toLowerCase(Locale.ROOT);
                        continue;
                    }
                    default -> {
                        // not an operator (e.g. "std::vector"): a word like any other
                    }
                }
            }
            if (negated) {
                exclusions.addAll(termsOf(token));
            } else {
                terms.addAll(termsOf(token));
                sequence.addAll(Tokenizer.plainWords(token));
            }
        }
        terms.removeAll(exclusions);
        if (phrases.isEmpty() && sequence.size() > 1 && terms.stream().allMatch(StopWords::contains)) {
            // nothing but function words ("the of and a to", "to be or not to be"): every page of a language holds
            // each of them, so the only useful reading is the words in this order, as written
            phrases.add(List.copyOf(sequence));
        }
        if (terms.isEmpty()) {
            if (!exclusions.isEmpty()) {
                throw new QuerySyntaxException("a query of exclusions only matches nothing: add a word to look for");
            }
            throw new QuerySyntaxException("the query has no words to look for");
        }
        if (terms.size() + exclusions.size() > MAX_TERMS) {
            throw new QuerySyntaxException("the query has " + (terms.size() + exclusions.size())
                    + " words, at most " + MAX_TERMS);
        }
        return new Query(raw, new ArrayList<>(terms), new ArrayList<>(exclusions), phrases,
                Optional.ofNullable(site), Optional.ofNullable(filetype), Optional.ofNullable(inurl),
                Optional.ofNullable(language), Optional.ofNullable(author));
    }

    private static String checkLanguage(String value) {
        String v = value.toLowerCase(Locale.ROOT);
        if (!LANGUAGE.matcher(v).matches()) {
            throw new QuerySyntaxException("a language is a 2-letter ISO 639-1 code, not '" + value + "'");
        }
        return v;
    }

    /**
     * The terms of a piece of query text: each compound whole (its parts are then implied: the index holds the
     * compound for exactly the documents that contain it), each other word alone.
     */
    static List<String> termsOf(String text) {
        List<Tokenizer.Token> tokens = Tokenizer.tokens(text, 0);
        List<String> out = new ArrayList<>();
        Set<Integer> coveredPositions = new HashSet<>();
        for (Tokenizer.Token t : tokens) {
            if (t.compound()) {
                out.add(t.word());
                int parts = Tokenizer.plainWords(t.word()).size();
                for (int p = 0; p < parts; p++) coveredPositions.add(t.position() + p);
            }
        }
        for (Tokenizer.Token t : tokens) {
            if (!t.compound() && !coveredPositions.contains(t.position())) out.add(t.word());
        }
        return out;
    }
}
