package org.peerdex.actors.search.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded random queries (quotes anywhere, operators with and without values, Unicode of every awkward kind, empty
 * and over-long inputs) through {@link QueryParser}: the parser either answers or throws its own
 * {@link QuerySyntaxException} (HTTP 400), never anything else. A failure names the seed and the input.
 */
class QueryParserFuzzTest {
    private static final int QUERIES_PER_SEED = 4_000;
    private static final long[] SEEDS = {1, 2, 3, 42, 20240615};

    /** Pieces a query is built from: words, operators, quotes and Unicode that trips naive string handling. */
    private static final String[] PIECES = {
            "linux", "kernel", "json", "decoder", "pg_dump", "os.path.join", "std::vector", "C++", "a", "x",
            "\"", "\"\"", "\" \"", "-", "--", "-\"", "\"-", ":", "::", "/", "/language/", "/language/de",
            "/language/", "site:", "site:example.org", "site:https://www.Example.org/path", "filetype:", "filetype:.pdf",
            "filetype:pdf", "lang:", "lang:de", "lang:english", "language:fr", "inurl:", "inurl:docs", "author:",
            "author:smith", "-site:x.org", "-word", "-\"a phrase\"", "SITE:Foo", "site:\"quoted host\"", "*:*",
            // surrogate pairs, lone surrogates (both halves), combining marks, RTL text and controls
            "\uD83D\uDE00", "\uD835\uDD18\uD835\uDD2B", "\uD800", "\uDC00", "e\u0301", "\u0301", "\u0301\u0301\u0301",
            "\u05E9\u05DC\u05D5\u05DD", "\u0645\u0631\u062D\u0628\u0627", "\u202E", "\u202Dtext\u202C", "\u200B",
            "\u200D", "\uFEFF", "\u0000", "\u0007", "\u001F", "\u007F", "\uFFFD", "\uFFFF", "\u00A0", "\u3000",
            "\t", "\n", "\r\n", "\u201Csmart\u201D", "\uFF02", "\u6F22\u5B57", "\u0130stanbul", "stra\u00DFe",
            "\u1E9E", "\u0391\u03A9", "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67", "\uD83C\uDDE9\uD83C\uDDEA",
    };

    @Test
    void randomQueriesParseOrFailWithTheParsersOwnException() {
        int answered = 0;
        int refused = 0;
        List<String> failures = new ArrayList<>();
        for (long seed : SEEDS) {
            Random rnd = new Random(seed);
            for (int i = 0; i < QUERIES_PER_SEED; i++) {
                String q = randomQuery(rnd);
                Boolean ok = check(seed, q, failures);
                if (ok == Boolean.TRUE) answered++;
                else if (ok == Boolean.FALSE) refused++;
            }
        }
        System.out.printf("query parser fuzz: %d queries answered, %d refused with a 400, %d failed otherwise%n",
                answered, refused, failures.size());
        assertTrue(failures.isEmpty(), failures.size() + " queries failed, the first: "
                + failures.subList(0, Math.min(3, failures.size())));
        // most random queries carry a word: a parser that refused everything would pass the loop above
        assertTrue(answered > refused, answered + " answered, " + refused + " refused");
    }

    @Test
    void edgeInputsParseOrFailWithTheParsersOwnException() {
        List<String> edges = new ArrayList<>(List.of("", " ", "\"", "\"\"", "\"\"\"", "-", "-\"", "\"-", "- \"",
                "json\" decoder\"\" \"", "a\"", "\"a", "a \"", "\" a", "-\"a", "a -\"", "/language/", "lang:",
                "site:", "\uD800", "\uDC00", "\u0301", "\u202E", "a".repeat(QueryParser.MAX_QUERY_CHARS),
                "a".repeat(QueryParser.MAX_QUERY_CHARS + 1), "\"".repeat(QueryParser.MAX_QUERY_CHARS),
                "\"".repeat(QueryParser.MAX_QUERY_CHARS - 1) + "a", "w ".repeat(256), "\uD83D\uDE00".repeat(256),
                "-".repeat(QueryParser.MAX_QUERY_CHARS), "x" + "\u0301".repeat(QueryParser.MAX_QUERY_CHARS - 1),
                "a".repeat(100_000)));
        List<String> failures = new ArrayList<>();
        for (String q : edges) check(0, q, failures);
        assertTrue(failures.isEmpty(), failures.toString());
    }

    /**
     * Parses {@code q}: true if it was answered, false if refused with a QuerySyntaxException, null (and the
     * failure added to {@code failures}) if anything else was thrown.
     */
    private static Boolean check(long seed, String q, List<String> failures) {
        Query parsed;
        try {
            parsed = QueryParser.parse(q);
        } catch (QuerySyntaxException e) {
            assertFalse(e.getMessage() == null || e.getMessage().isBlank(), "a 400 without a message for " + show(q));
            return false;
        } catch (RuntimeException | StackOverflowError e) {
            failures.add("seed " + seed + ": " + e + " for the query " + show(q));
            return null;
        }
        assertFalse(parsed.terms().isEmpty(), "answered without terms: " + show(q));
        assertTrue(parsed.terms().size() + parsed.exclusions().size() <= QueryParser.MAX_TERMS, show(q));
        assertEquals(q, parsed.raw());
        // the normal form is used for caching and navigator links: it must parse under the same contract
        try {
            QueryParser.parse(parsed.canonical());
        } catch (QuerySyntaxException e) {
            // a refused normal form is a 400 like any other
        } catch (RuntimeException e) {
            failures.add("seed " + seed + ": " + e + " for the normal form " + show(parsed.canonical()) + " of "
                    + show(q));
            return null;
        }
        return true;
    }

    private static String randomQuery(Random rnd) {
        int shape = rnd.nextInt(10);
        if (shape == 0) return randomChars(rnd, rnd.nextInt(40));
        if (shape == 1) return randomChars(rnd, QueryParser.MAX_QUERY_CHARS - 20 + rnd.nextInt(40));
        StringBuilder b = new StringBuilder();
        int pieces = rnd.nextInt(12);
        for (int i = 0; i < pieces; i++) {
            b.append(PIECES[rnd.nextInt(PIECES.length)]);
            // pieces glued together as often as separated, so quotes and operators land inside words
            if (rnd.nextBoolean()) b.append(rnd.nextInt(8) == 0 ? "  " : " ");
        }
        return b.toString();
    }

    /** Any UTF-16 code units, biased towards the ones that matter to the parser. */
    private static String randomChars(Random rnd, int length) {
        StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            switch (rnd.nextInt(8)) {
                case 0 -> b.append('"');
                case 1 -> b.append(' ');
                case 2 -> b.append("-:/".charAt(rnd.nextInt(3)));
                case 3 -> b.append((char) ('a' + rnd.nextInt(26)));
                case 4 -> b.append((char) (0xD800 + rnd.nextInt(0x800))); // surrogate halves, paired or not
                case 5 -> b.append((char) (0x0300 + rnd.nextInt(0x70))); // combining marks
                case 6 -> b.append((char) (0x0590 + rnd.nextInt(0x200))); // Hebrew and Arabic
                default -> b.append((char) rnd.nextInt(0x10000));
            }
        }
        return b.toString();
    }

    private static String show(String q) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : (q.length() > 80 ? q.substring(0, 80) + "..." : q).toCharArray()) {
            if (c >= 0x20 && c < 0x7F && c != '\\') b.append(c);
            else b.append(String.format("\\u%04X", (int) c));
        }
        return b.append("\" (").append(q.length()).append(" chars)").toString();
    }
}
