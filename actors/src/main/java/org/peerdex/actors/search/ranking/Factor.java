package org.peerdex.actors.search.ranking;

import java.util.Locale;

/**
 * The named ranking factors. Most are YaCy's pre-ranking coefficients (appearance of the query words in title,
 * URL, anchor text, emphasis, headings, description; domain length, URL components, URL length, date, words in
 * title/text, local/other links, hit count, term frequency, position, word distance, language, media); BM25 is a
 * first-class factor; LINK_RANK and FEEDBACK are the post-ranking stage.
 */
public enum Factor {
    TITLE("query words in the title (share of terms)"),
    TITLE_EXACTNESS("how much of the title the query words cover"),
    URL("query words in the URL"),
    ANCHOR("query words in anchor texts of links to the page"),
    EMPHASIS("query words in bold/italic/emphasized text"),
    HEADING("query words in headings"),
    DESCRIPTION("query words in the meta description"),
    KEYWORDS("query words in the meta keywords"),
    AUTHOR("query words in the author"),
    DOMAIN_LENGTH("short domain names (YaCy's domain-length class of the URL hash)"),
    URL_COMPONENTS("few path segments and query parameters"),
    URL_LENGTH("short URLs"),
    DATE("recent documents"),
    WORDS_IN_TITLE("short titles"),
    WORDS_IN_TEXT("short texts"),
    LINKS_LOCAL("many links to the same host"),
    LINKS_OTHER("many links to other hosts"),
    HIT_COUNT("occurrences of the query words"),
    TERM_FREQUENCY("occurrences relative to text length"),
    POSITION("query words early in the text"),
    WORD_DISTANCE("query words close to each other"),
    LANGUAGE("the preferred language"),
    MEDIA("the wanted media category (text, image)"),
    BM25("Okapi BM25 of the body (k1 1.2, b 0.75; df from posting lists, N = documents)"),
    LINK_RANK("post-ranking: PageRank of the host in the crawl's link graph"),
    FEEDBACK("post-ranking: the user's promote (+1 each), demote (-1 each) and bookmark (+1)");

    private final String description;

    Factor(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }

    /** The JSON name: lower camel case, e.g. {@code titleExactness}. */
    public String key() {
        String[] parts = name().toLowerCase(Locale.ROOT).split("_");
        StringBuilder b = new StringBuilder(parts[0]);
        for (int i = 1; i < parts.length; i++) b.append(Character.toUpperCase(parts[i].charAt(0))).append(parts[i], 1, parts[i].length());
        return b.toString();
    }

    public static Factor fromKey(String key) {
        for (Factor f : values()) if (f.key().equals(key) || f.name().equalsIgnoreCase(key)) return f;
        throw new IllegalArgumentException("unknown ranking factor '" + key + "'");
    }

    /** Post-ranking factors are added as they are, not mapped to [0, 1]. */
    public boolean post() {
        return this == LINK_RANK || this == FEEDBACK;
    }
}
