package org.peerdex.actors.importer;

import java.io.IOException;
import java.util.Optional;

/**
 * Fetches one page for an importer and hands it to the job: HTML, text and PDF through the
 * {@link DocumentExtractor}; a non-200 answer or a refused address is an error, a type no parser reads is
 * skipped, and so is a page the site's robots.txt (crawler-commons) disallows. Only a document import by URL (one
 * page the user named) fetches through this; sitemap, forum and scanner imports hand their pages to the crawler
 * ({@link CrawledImport}).
 */
public final class PageImport {
    private static final String AGENT = "peerdex";
    private final PageFetcher fetcher;
    private final DocumentExtractor extractor;
    private static final long ROBOTS_TTL_MS = 3_600_000;
    private record Robots(crawlercommons.robots.BaseRobotRules rules, long readAt) {}
    private final java.util.Map<String, Robots> robots =
            java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(java.util.Map.Entry<String, Robots> e) {
                    return size() > 1000;
                }
            });

    public PageImport(PageFetcher fetcher, DocumentExtractor extractor) {
        this.fetcher = fetcher;
        this.extractor = extractor;
    }

    public PageFetcher fetcher() {
        return fetcher;
    }

    public DocumentExtractor extractor() {
        return extractor;
    }

    /** True unless the host's robots.txt disallows the URL for us (read once an hour per host; unreachable = allow). */
    boolean robotsAllow(String url) {
        java.net.URI u = java.net.URI.create(url);
        String origin = u.getScheme() + "://" + u.getRawAuthority();
        long now = System.currentTimeMillis();
        Robots cached = robots.get(origin);
        if (cached != null && now - cached.readAt() < ROBOTS_TTL_MS) return cached.rules().isAllowed(url);
        crawlercommons.robots.BaseRobotRules rules = readRobots(origin);
        robots.put(origin, new Robots(rules, now));
        return rules.isAllowed(url);
    }

    private crawlercommons.robots.BaseRobotRules readRobots(String o) {
        {
            crawlercommons.robots.SimpleRobotRulesParser parser = new crawlercommons.robots.SimpleRobotRulesParser();
            try {
                PageFetcher.Fetched f = fetcher.get(o + "/robots.txt");
                if (f.status() >= 200 && f.status() < 300) {
                    return parser.parseContent(o + "/robots.txt", f.body(), f.contentType(), java.util.List.of(AGENT));
                }
                return parser.failedFetch(f.status());
            } catch (IOException | RuntimeException e) {
                return parser.failedFetch(404); // no robots.txt to be had: no rules
            }
        }
    }

    /** Fetches and indexes the page; returns the document (for its links) if it was indexed. */
    public Optional<ImportedDocument> fetchAndIndex(ImportJob.Context ctx, String url, long knownLastModified) {
        if (knownLastModified != 0 && ctx.unchanged(url, knownLastModified)) {
            ctx.skipped("unchanged: " + url);
            return Optional.empty();
        }
        try {
            if (!robotsAllow(url)) {
                ctx.skipped("disallowed by robots.txt: " + url);
                ctx.count("robotsDisallowed");
                return Optional.empty();
            }
            PageFetcher.Fetched f = fetcher.get(url);
            if (f.status() != 200) {
                ctx.error("HTTP " + f.status() + " from " + url);
                return Optional.empty();
            }
            long date = knownLastModified != 0 ? knownLastModified : f.lastModified();
            ImportedDocument d = extractor.extract(f.url(), f.body(), f.contentType(), date);
            ctx.document(d);
            return Optional.of(d);
        } catch (DocumentExtractor.UnsupportedTypeException e) {
            ctx.skipped(e.getMessage());
        } catch (FetchPolicy.RefusedException e) {
            ctx.error("refused: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            ctx.error(url + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        }
        return Optional.empty();
    }
}
