package org.peerdex.actors.search;

import java.util.Optional;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.meta.UrlMetadataStore;

/** URL metadata and stored text for results. Blocking: call it on the search dispatcher. */
public interface MetadataSource {
    Optional<UrlMetadata> metadata(UrlHash url);

    Optional<String> text(UrlHash url);

    /** Whether a result with this metadata may be shown (the search-scope blacklist says no to some). */
    default boolean shows(UrlMetadata m) {
        return true;
    }

    static MetadataSource of(UrlMetadataStore store) {
        return new MetadataSource() {
            @Override
            public Optional<UrlMetadata> metadata(UrlHash url) {
                return store.get(url);
            }

            @Override
            public Optional<String> text(UrlHash url) {
                return store.text(url);
            }
        };
    }
}
