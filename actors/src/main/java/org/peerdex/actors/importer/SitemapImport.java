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
import java.util.Set;

/**
 * Sitemaps and sitemap indexes (crawler-commons: XML, text, RSS/Atom sitemaps, gzip), followed to their leaf
 * sitemaps with bounds on depth, on the number of sitemaps and on URLs; then each listed page is fetched and
 * indexed. When the crawler is merged it takes the URLs as crawl starts instead (politeness, robots.txt, depth).
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

    /** Lists the sitemap tree, then fetches and indexes each page (skipping those indexed with the same lastmod). */
    public static ImportSource source(ImportInput input, PageImport pages, int maxUrls) {
        return ctx -> {
            Listing l = list(input, pages.fetcher(), maxUrls);
            ctx.detail("sitemaps", l.sitemaps().size());
            ctx.detail("urlsListed", l.entries().size());
            for (String e : l.errors()) ctx.error(e);
            for (Entry e : l.entries()) {
                if (ctx.stopped()) return;
                pages.fetchAndIndex(ctx, e.url(), e.lastModified());
            }
        };
    }
}
