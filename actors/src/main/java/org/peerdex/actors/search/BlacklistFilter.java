package org.peerdex.actors.search;

import java.util.Optional;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.blacklist.Blacklist;
import org.peerdex.storage.blacklist.BlacklistRule;
import org.peerdex.storage.meta.UrlMetadata;

/**
 * A {@link MetadataSource} that hides URLs the blacklist blocks in the search scope: the coordinator then drops
 * them like any URL without metadata, so they are neither shown nor counted.
 */
public final class BlacklistFilter implements MetadataSource {
    private final MetadataSource inner;
    private final Blacklist blacklist;

    public BlacklistFilter(MetadataSource inner, Blacklist blacklist) {
        this.inner = inner;
        this.blacklist = blacklist;
    }

    @Override
    public Optional<UrlMetadata> metadata(UrlHash url) {
        return inner.metadata(url).filter(m -> !blacklist.blocks(BlacklistRule.Scope.SEARCH, m.url()));
    }

    @Override
    public boolean shows(UrlMetadata m) {
        return !blacklist.blocks(BlacklistRule.Scope.SEARCH, m.url()) && inner.shows(m);
    }

    @Override
    public Optional<String> text(UrlHash url) {
        return inner.text(url);
    }
}
