package org.peerdex.actors.importer;

import java.util.Locale;
import java.util.Optional;

/** The sources that feed the indexer besides the crawler, by the name the API uses. */
public enum ImportKind {
    RSS("rss"), SITEMAP("sitemap"), OAI_PMH("oai-pmh"), MEDIAWIKI("mediawiki"), PHPBB("phpbb"),
    DOCUMENT("document"), SCAN("scan"), PROXY("proxy");

    private final String key;

    ImportKind(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }

    public static Optional<ImportKind> parse(String key) {
        String k = key == null ? "" : key.trim().toLowerCase(Locale.ROOT);
        for (ImportKind kind : values()) if (kind.key.equals(k)) return Optional.of(kind);
        return Optional.empty();
    }
}
