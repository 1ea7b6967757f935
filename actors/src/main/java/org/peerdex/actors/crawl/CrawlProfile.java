package org.peerdex.actors.crawl;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.peerdex.protocol.url.UrlNormalizer;

/**
 * What one crawl job does (the JSON body of {@code POST /api/crawl}). Absent fields take defaults; the compact
 * constructor validates and throws IllegalArgumentException with a message fit for the client.
 *
 * @param url             the start URL (or the first of {@code urls})
 * @param urls            all start URLs
 * @param depth           link hops from a start URL (0 = the start pages only); default 3
 * @param range           {@code site} (the start URLs' hosts), {@code subpath} (below the start URLs'
 *                        directories) or {@code wide}; default site
 * @param mustMatch       regex the whole normalized URL must match; default {@code .*}
 * @param mustNotMatch    regex the URL must not match (empty = none)
 * @param maxPages        URLs admitted to the crawl at most (0 = no limit); default 10000
 * @param maxPagesPerHost URLs per host at most (0 = no limit)
 * @param recrawlAfter    ISO-8601 duration: a URL indexed more recently than this is not fetched again (empty =
 *                        always fetch)
 * @param minDelayMs      politeness for this crawl in ms (-1 = the node's floor); below the floor only for
 *                        unpolite hosts (loopback by default)
 * @param followQuery     follow URLs with a query string; default true
 * @param contentTypes    media types that are parsed (others are skipped); {@code type/*} allowed
 * @param sitemaps        read sitemaps listed in robots.txt as further start URLs (at depth 1); default true
 * @param startFrom       {@code pages} (the start URLs are pages; the default) or {@code sitemap} (the start URLs
 *                        are sitemaps, or sitemap indexes: the pages they list are the crawl's start pages, at
 *                        depth 0)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CrawlProfile(String url, List<String> urls, Integer depth, String range, String mustMatch,
                           String mustNotMatch, Long maxPages, Long maxPagesPerHost, String recrawlAfter,
                           Long minDelayMs, Boolean followQuery, List<String> contentTypes, Boolean sitemaps,
                           String startFrom, String preset) {
    public static final List<String> DEFAULT_CONTENT_TYPES = List.of("text/html", "application/xhtml+xml",
            "text/plain");
    private static final int MAX_URLS = 1000;

    public CrawlProfile {
        String named = preset == null ? "" : preset.trim().toLowerCase(Locale.ROOT);
        preset = named;
        ForumRules rules = named.isEmpty() ? null : ForumRules.preset(named).orElseThrow(() ->
                new IllegalArgumentException("no crawl profile preset '" + named + "'; there is phpbb"));
        List<String> all = new ArrayList<>();
        if (url != null && !url.isBlank()) all.add(url);
        if (urls != null) for (String u : urls) if (u != null && !u.isBlank() && !all.contains(u)) all.add(u);
        if (all.isEmpty()) throw new IllegalArgumentException("a crawl needs a start 'url'");
        if (all.size() > MAX_URLS) throw new IllegalArgumentException("at most " + MAX_URLS + " start URLs");
        List<String> normal = new ArrayList<>();
        for (String u : all) {
            String n = UrlNormalizer.normalize(u)
                    .orElseThrow(() -> new IllegalArgumentException("not an absolute http(s) URL: '" + u + "'"));
            if (rules != null) {
                n = rules.canonical(n).orElseThrow(() -> new IllegalArgumentException("'" + u
                        + "' is no page the " + rules.name() + " preset crawls"));
            }
            if (!normal.contains(n)) normal.add(n);
        }
        urls = List.copyOf(normal);
        url = urls.get(0);
        depth = depth == null ? 3 : depth;
        if (depth < 0 || depth > 1000) throw new IllegalArgumentException("depth must be 0..1000, not " + depth);
        range = range == null || range.isBlank() ? "site" : range.trim().toLowerCase(Locale.ROOT);
        if (!List.of("site", "subpath", "wide").contains(range)) {
            throw new IllegalArgumentException("range must be site, subpath or wide, not '" + range + "'");
        }
        mustMatch = mustMatch == null || mustMatch.isEmpty() ? rules != null ? rules.mustMatch() : ".*" : mustMatch;
        mustNotMatch = mustNotMatch == null ? rules != null ? rules.mustNotMatch() : "" : mustNotMatch;
        compile("mustMatch", mustMatch);
        compile("mustNotMatch", mustNotMatch);
        maxPages = maxPages == null ? 10_000L : maxPages;
        maxPagesPerHost = maxPagesPerHost == null ? 0L : maxPagesPerHost;
        if (maxPages < 0 || maxPagesPerHost < 0) throw new IllegalArgumentException("maxPages must not be negative");
        recrawlAfter = recrawlAfter == null ? "" : recrawlAfter.trim();
        if (!recrawlAfter.isEmpty()) {
            try {
                if (Duration.parse(recrawlAfter).isNegative()) throw new IllegalArgumentException("negative");
            } catch (DateTimeParseException | IllegalArgumentException e) {
                throw new IllegalArgumentException("recrawlAfter must be an ISO-8601 duration like P7D or PT12H, not '"
                        + recrawlAfter + "'");
            }
        }
        minDelayMs = minDelayMs == null ? -1L : minDelayMs;
        if (minDelayMs < -1 || minDelayMs > 3_600_000) throw new IllegalArgumentException("minDelayMs must be 0..3600000");
        followQuery = followQuery == null || followQuery;
        contentTypes = contentTypes == null || contentTypes.isEmpty() ? DEFAULT_CONTENT_TYPES
                : contentTypes.stream().map(s -> s.trim().toLowerCase(Locale.ROOT)).toList();
        sitemaps = sitemaps == null || sitemaps;
        startFrom = startFrom == null || startFrom.isBlank() ? "pages" : startFrom.trim().toLowerCase(Locale.ROOT);
        if (!List.of("pages", "sitemap").contains(startFrom)) {
            throw new IllegalArgumentException("startFrom must be pages or sitemap, not '" + startFrom + "'");
        }
    }

    /** True when the start URLs are sitemaps whose pages start the crawl. */
    public boolean startsFromSitemaps() {
        return startFrom.equals("sitemap");
    }

    public CrawlProfile withStartFrom(String from) {
        return new CrawlProfile(url, urls, depth, range, mustMatch, mustNotMatch, maxPages, maxPagesPerHost,
                recrawlAfter, minDelayMs, followQuery, contentTypes, sitemaps, from, preset);
    }

    public CrawlProfile withContentTypes(List<String> types) {
        return new CrawlProfile(url, urls, depth, range, mustMatch, mustNotMatch, maxPages, maxPagesPerHost,
                recrawlAfter, minDelayMs, followQuery, types, sitemaps, startFrom, preset);
    }

    public CrawlProfile withPreset(String p) {
        return new CrawlProfile(url, urls, depth, range, null, null, maxPages, maxPagesPerHost, recrawlAfter,
                minDelayMs, followQuery, contentTypes, sitemaps, startFrom, p);
    }

    /** The preset's URL rules, or null. */
    public ForumRules rules() {
        return preset.isEmpty() ? null : ForumRules.preset(preset).orElse(null);
    }

    /** A profile with defaults for everything but the start URL. */
    public static CrawlProfile of(String url) {
        return new CrawlProfile(url, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
    }

    public CrawlProfile withDepth(int d) {
        return new CrawlProfile(url, urls, d, range, mustMatch, mustNotMatch, maxPages, maxPagesPerHost, recrawlAfter,
                minDelayMs, followQuery, contentTypes, sitemaps, startFrom, preset);
    }

    public CrawlProfile withRange(String r) {
        return new CrawlProfile(url, urls, depth, r, mustMatch, mustNotMatch, maxPages, maxPagesPerHost, recrawlAfter,
                minDelayMs, followQuery, contentTypes, sitemaps, startFrom, preset);
    }

    public CrawlProfile withFilters(String must, String mustNot) {
        return new CrawlProfile(url, urls, depth, range, must, mustNot, maxPages, maxPagesPerHost, recrawlAfter,
                minDelayMs, followQuery, contentTypes, sitemaps, startFrom, preset);
    }

    public CrawlProfile withMaxPages(long total, long perHost) {
        return new CrawlProfile(url, urls, depth, range, mustMatch, mustNotMatch, total, perHost, recrawlAfter,
                minDelayMs, followQuery, contentTypes, sitemaps, startFrom, preset);
    }

    public CrawlProfile withMinDelayMs(long ms) {
        return new CrawlProfile(url, urls, depth, range, mustMatch, mustNotMatch, maxPages, maxPagesPerHost,
                recrawlAfter, ms, followQuery, contentTypes, sitemaps, startFrom, preset);
    }

    public CrawlProfile withFollowQuery(boolean q) {
        return new CrawlProfile(url, urls, depth, range, mustMatch, mustNotMatch, maxPages, maxPagesPerHost,
                recrawlAfter, minDelayMs, q, contentTypes, sitemaps, startFrom, preset);
    }

    public CrawlProfile withRecrawlAfter(String iso) {
        return new CrawlProfile(url, urls, depth, range, mustMatch, mustNotMatch, maxPages, maxPagesPerHost, iso,
                minDelayMs, followQuery, contentTypes, sitemaps, startFrom, preset);
    }

    public CrawlProfile withSitemaps(boolean s) {
        return new CrawlProfile(url, urls, depth, range, mustMatch, mustNotMatch, maxPages, maxPagesPerHost,
                recrawlAfter, minDelayMs, followQuery, contentTypes, s, startFrom, preset);
    }

    private static void compile(String name, String regex) {
        try {
            Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(name + " is not a valid regex: " + e.getDescription());
        }
    }
}
