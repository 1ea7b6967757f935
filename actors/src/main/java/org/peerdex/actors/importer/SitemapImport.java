package org.peerdex.actors.importer;

import crawlercommons.sitemaps.AbstractSiteMap;
import crawlercommons.sitemaps.SiteMap;
import crawlercommons.sitemaps.SiteMapIndex;
import crawlercommons.sitemaps.SiteMapParser;
import crawlercommons.sitemaps.SiteMapURL;
import crawlercommons.sitemaps.UnknownFormatException;
import java.io.IOException;
import java.net.URL;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import org.peerdex.protocol.url.UrlNormalizer;
import org.peerdex.storage.frontier.Frontier;
import java.util.Set;

/**
 * Sitemaps and sitemap indexes (crawler-commons: XML, text, RSS/Atom sitemaps, gzip), followed to their leaf
 * sitemaps with bounds on depth, on the number of sitemaps and on URLs; then the listed pages are
 * handed to the crawler as the start pages of a crawl ({@link CrawledImport}: politeness, robots.txt, resume).
 */
public final class SitemapImport {
    static final int MAX_DEPTH = 3;
    static final int MAX_SITEMAPS = 200;
    static final long MAX_SITEMAP_BYTES = 50L << 20; // the protocol's own limit for one sitemap file

    private SitemapImport() {}

    /** One listed page. @param lastModified epoch ms of {@code <lastmod>}, 0 if absent */
    public record Entry(String url, long lastModified) {}

    /** What a sitemap (tree) lists. @param sitemaps the sitemap files read, index first */
    public record Listing(List<Entry> entries, List<String> sitemaps, List<String> errors) {}

    /** Reads the sitemap at {@code url} and every sitemap an index names, up to {@code maxUrls} page URLs. */
    public static Listing list(ImportInput root, PageFetcher fetcher, int maxUrls) throws IOException {
        SiteMapParser parser = new SiteMapParser(false); // not strict: a sitemap may list URLs outside its folder
        List<Entry> entries = new ArrayList<>();
        Set<String> seenUrls = new LinkedHashSet<>();
        List<String> read = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        record Pending(ImportInput input, int depth) {}
        Deque<Pending> queue = new ArrayDeque<>();
        queue.add(new Pending(root, 0));
        Set<String> seenMaps = new LinkedHashSet<>();
        boolean first = true;
        while (!queue.isEmpty() && read.size() < MAX_SITEMAPS && entries.size() < maxUrls) {
            Pending p = queue.removeFirst();
            if (!seenMaps.add(p.input().name())) continue;
            AbstractSiteMap map;
            try {
                byte[] body = p.input().read(MAX_SITEMAP_BYTES);
                String name = p.input().name();
                URL url = new URL(name.startsWith("file:") ? "http://localhost/sitemap.xml" : name);
                map = parser.parseSiteMap(body, url);
            } catch (UnknownFormatException | IOException e) {
                String msg = p.input().name() + ": " + (e instanceof UnknownFormatException
                        ? "not a sitemap (" + e.getMessage() + ")" : e.getMessage());
                if (first) throw new IOException(msg, e); // the sitemap asked for is unreadable: fail the import
                errors.add(msg);
                continue;
            } finally {
                first = false;
            }
            read.add(p.input().name());
            if (map instanceof SiteMapIndex index) {
                if (p.depth() >= MAX_DEPTH) {
                    errors.add(p.input().name() + ": sitemap indexes nested deeper than " + MAX_DEPTH);
                    continue;
                }
                for (AbstractSiteMap child : index.getSitemaps()) {
                    queue.add(new Pending(new ImportInput.Url(child.getUrl().toString(), fetcher), p.depth() + 1));
                }
            } else if (map instanceof SiteMap sm) {
                for (SiteMapURL u : sm.getSiteMapUrls()) {
                    if (entries.size() >= maxUrls) break;
                    String s = u.getUrl().toString();
                    if (seenUrls.add(s)) {
                        entries.add(new Entry(s, u.getLastModified() == null ? 0 : u.getLastModified().getTime()));
                    }
                }
            }
        }
        return new Listing(entries, read, errors);
    }

    /**
     * Lists the sitemap tree, then hands its pages to the crawler as the start URLs of one crawl (at depth 0, dated
     * by their {@code <lastmod>}); pages indexed with the same lastmod already are skipped before that.
     */
    public static ImportSource source(ImportInput input, PageFetcher fetcher, CrawledImport.Crawls crawls, int maxUrls) {
        return ctx -> {
            Listing l = list(input, fetcher, maxUrls);
            ctx.detail("sitemaps", l.sitemaps().size());
            ctx.detail("urlsListed", l.entries().size());
            for (String e : l.errors()) ctx.error(e);
            List<Frontier.Candidate> pages = new ArrayList<>();
            long unchanged = 0;
            for (Entry e : l.entries()) {
                Optional<String> n = UrlNormalizer.normalize(e.url());
                if (n.isEmpty()) {
                    ctx.error("not an http(s) URL: " + e.url());
                } else if (e.lastModified() != 0 && ctx.unchanged(n.get(), e.lastModified())) {
                    ctx.skipped("unchanged: " + n.get());
                    unchanged++;
                } else {
                    pages.add(new Frontier.Candidate(n.get(), 0, e.lastModified()));
                }
            }
            ctx.detail("unchanged", unchanged);
            if (pages.isEmpty() || ctx.stopped()) return;
            CrawledImport.run(ctx, crawls, CrawledImport.pagesProfile(pages), pages, unchanged);
        };
    }
}
