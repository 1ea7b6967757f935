package org.peerdex.actors.importer;

import java.io.IOException;
import java.util.List;
import org.peerdex.actors.crawl.CrawlProfile;
import org.peerdex.actors.crawl.ForumRules;

/**
 * A forum import: a crawl of the board from its start page under the {@link ForumRules} preset (on its host only,
 * forum, topic and page links only, session ids stripped, never the trap variants), up to a page bound, run by
 * the peer's crawler ({@link CrawledImport}).
 */
public final class ForumImport {
    private ForumImport() {}

    public static ImportSource source(String startUrl, CrawledImport.Crawls crawls, ForumRules rules, int maxPages) {
        return ctx -> {
            CrawlProfile profile;
            try {
                profile = CrawlProfile.of(startUrl).withPreset(rules.name()).withDepth(1000)
                        .withMaxPages(maxPages, 0).withSitemaps(false);
            } catch (IllegalArgumentException e) {
                throw new IOException("the start URL is no forum page under the " + rules.name() + " rules: "
                        + startUrl, e);
            }
            var p = CrawledImport.run(ctx, crawls, profile, List.of(), 0);
            ctx.detail("linksSkippedByRules", p.linksRejected().getOrDefault("preset-" + rules.name(), 0L));
        };
    }
}
