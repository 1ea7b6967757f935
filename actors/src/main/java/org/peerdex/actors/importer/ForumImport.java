package org.peerdex.actors.importer;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * A forum crawl under {@link ForumRules}: breadth first from the board's start page, on its host only, following
 * only forum, topic and page links and never the trap variants, up to a page bound. The crawler takes this over
 * when merged (the rules are its "phpbb" profile preset).
 */
public final class ForumImport {
    private ForumImport() {}

    public static ImportSource source(String startUrl, PageImport pages, ForumRules rules, int maxPages) {
        return ctx -> {
            String start = rules.canonical(startUrl).orElseThrow(() ->
                    new IOException("the start URL is no forum page under the " + rules.name() + " rules: " + startUrl));
            String host = URI.create(start).getRawAuthority();
            Deque<String> queue = new ArrayDeque<>();
            Set<String> seen = new HashSet<>();
            queue.add(start);
            seen.add(start);
            int fetched = 0;
            long trapsSkipped = 0;
            while (!queue.isEmpty() && fetched < maxPages && !ctx.stopped()) {
                String url = queue.removeFirst();
                fetched++;
                Optional<ImportedDocument> d = pages.fetchAndIndex(ctx, url, 0);
                if (d.isEmpty()) continue;
                for (String link : d.get().links()) {
                    URI u;
                    try {
                        u = URI.create(link);
                    } catch (IllegalArgumentException e) {
                        continue;
                    }
                    if (!host.equalsIgnoreCase(u.getRawAuthority())) continue;
                    Optional<String> c = rules.canonical(link);
                    if (c.isEmpty()) {
                        trapsSkipped++;
                        continue;
                    }
                    if (seen.add(c.get())) queue.add(c.get());
                }
                ctx.detail("linksSkippedByRules", trapsSkipped);
                ctx.detail("queued", queue.size());
            }
            ctx.detail("pagesFetched", fetched);
        };
    }
}
