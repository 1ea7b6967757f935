package org.peerdex.storage.text;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.peerdex.storage.rwi.Posting;

/**
 * Turns a document's text into per-word features: hit counts, positions in the body, and where else the word
 * appears (title, URL, anchors, headings, emphasis, description, keywords, author). A plain class: no I/O.
 */
public final class Condenser {
    /** Words beyond this many body words are not indexed (bounds work on huge pages). */
    public static final int MAX_BODY_WORDS = 200_000;
    /** Distinct words per document beyond which rare words are dropped. */
    public static final int MAX_DISTINCT_WORDS = 20_000;

    /** The features of one word in one document. */
    public static final class WordFeatures {
        int flags;
        int hits;
        int[] positions = new int[4];
        int positionCount;

        void addPosition(int p) {
            if (positionCount < Posting.MAX_POSITIONS) {
                if (positionCount == positions.length) positions = Arrays.copyOf(positions, positions.length * 2);
                positions[positionCount++] = p;
            }
        }

        public int flags() {
            return flags;
        }

        public int hits() {
            return hits;
        }

        public int[] positions() {
            return Arrays.copyOf(positions, positionCount);
        }
    }

    /** The result: words with features, and document-level counts. */
    public record Condensed(Map<String, WordFeatures> words, int wordsInText, int wordsInTitle, int urlLength,
                            int urlComponents) {}

    private Condenser() {}

    public static Condensed condense(DocumentText doc) {
        Map<String, WordFeatures> words = new LinkedHashMap<>();
        List<Tokenizer.Token> body = Tokenizer.tokens(doc.body(), 0);
        int wordsInText = 0;
        for (Tokenizer.Token t : body) {
            if (!t.compound()) wordsInText++;
            if (t.position() >= MAX_BODY_WORDS) break;
            WordFeatures f = words.computeIfAbsent(t.word(), w -> new WordFeatures());
            f.hits++;
            f.addPosition(t.position());
        }
        List<Tokenizer.Token> title = Tokenizer.tokens(doc.title(), 0);
        int wordsInTitle = (int) title.stream().filter(t -> !t.compound()).count();
        mark(words, title, Posting.IN_TITLE);
        mark(words, Tokenizer.tokens(doc.description(), 0), Posting.IN_DESCRIPTION);
        mark(words, Tokenizer.tokens(doc.author(), 0), Posting.IN_AUTHOR);
        for (String k : doc.keywords()) mark(words, Tokenizer.tokens(k, 0), Posting.IN_KEYWORDS);
        for (String h : doc.headings()) mark(words, Tokenizer.tokens(h, 0), Posting.IN_HEADING);
        for (String e : doc.emphasized()) mark(words, Tokenizer.tokens(e, 0), Posting.IN_EMPHASIS);
        for (String a : doc.anchors()) mark(words, Tokenizer.tokens(a, 0), Posting.IN_ANCHOR);
        String urlText = urlWords(doc.url());
        mark(words, Tokenizer.tokens(urlText, 0), Posting.IN_URL);
        if (words.size() > MAX_DISTINCT_WORDS) {
            List<Map.Entry<String, WordFeatures>> all = new ArrayList<>(words.entrySet());
            all.sort((a, b) -> Integer.compare(b.getValue().hits + Integer.bitCount(b.getValue().flags),
                    a.getValue().hits + Integer.bitCount(a.getValue().flags)));
            Map<String, WordFeatures> kept = new LinkedHashMap<>();
            for (int i = 0; i < MAX_DISTINCT_WORDS; i++) kept.put(all.get(i).getKey(), all.get(i).getValue());
            words = kept;
        }
        return new Condensed(words, wordsInText, wordsInTitle, doc.url().length(), urlComponents(doc.url()));
    }

    private static void mark(Map<String, WordFeatures> words, List<Tokenizer.Token> tokens, int flag) {
        Set<String> seen = new HashSet<>();
        for (Tokenizer.Token t : tokens) {
            WordFeatures f = words.computeIfAbsent(t.word(), w -> new WordFeatures());
            f.flags |= flag;
            if (seen.add(t.word())) f.hits++;
        }
    }

    /** The host and path of a URL as text: its words are indexed with the IN_URL flag. */
    public static String urlWords(String url) {
        try {
            URI u = URI.create(url);
            String host = u.getHost() == null ? "" : u.getHost();
            String path = u.getPath() == null ? "" : u.getPath();
            int dot = path.lastIndexOf('.');
            if (dot > path.lastIndexOf('/')) path = path.substring(0, dot); // drop the extension
            return host.replace('.', ' ') + " " + path.replace('/', ' ');
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    static int urlComponents(String url) {
        try {
            URI u = URI.create(url);
            int n = 0;
            if (u.getPath() != null) for (String s : u.getPath().split("/")) if (!s.isEmpty()) n++;
            if (u.getQuery() != null) n += u.getQuery().split("&").length;
            return n;
        } catch (IllegalArgumentException e) {
            return 0;
        }
    }
}
