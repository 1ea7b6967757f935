package org.peerdex.actors.crawl;

import crawlercommons.sitemaps.AbstractSiteMap;
import crawlercommons.sitemaps.SiteMap;
import crawlercommons.sitemaps.SiteMapIndex;
import crawlercommons.sitemaps.SiteMapParser;
import crawlercommons.sitemaps.SiteMapURL;
import java.net.URL;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.peerdex.protocol.url.UrlNormalizer;

/**
 * Reads sitemaps (those a robots.txt lists, or a crawl's start sitemaps) with crawler-commons, sitemap indexes
 * included, bounded in files and URLs. Blocking.
 */
public final class Sitemaps {
    private static final int MAX_SITEMAP_FILES = 50;
    private final Fetcher fetcher;

    /** The page URLs read, and why a sitemap could not be read ("URL: HTTP 404"), one entry a sitemap. */
    public record Read(List<String> urls, List<String> problems) {}

    public Sitemaps(Fetcher fetcher) {
        this.fetcher = fetcher;
    }

    /** Page URLs of the given sitemaps, at most {@code max}; unreadable sitemaps are passed over. */
    public List<String> urls(List<String> sitemaps, int max) {
        return read(sitemaps, max).urls();
    }

    /** Page URLs of the given sitemaps, at most {@code max}, and the sitemaps that could not be read. */
    public Read read(List<String> sitemaps, int max) {
        List<String> out = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Deque<String> todo = new ArrayDeque<>(sitemaps);
        SiteMapParser parser = new SiteMapParser(false);
        int files = 0;
        while (!todo.isEmpty() && out.size() < max && files++ < MAX_SITEMAP_FILES) {
            String loc = todo.poll();
            try {
                Fetcher.Response r = fetcher.fetch(UrlNormalizer.normalize(loc).orElse(loc));
                if (r.status() != 200) {
                    problems.add(loc + ": HTTP " + r.status());
                    continue;
                }
                AbstractSiteMap map = parser.parseSiteMap(r.contentType(), r.body(), new URL(r.url()));
                if (map instanceof SiteMapIndex index) {
                    for (AbstractSiteMap child : index.getSitemaps()) todo.add(child.getUrl().toString());
                } else if (map instanceof SiteMap sm) {
                    for (SiteMapURL u : sm.getSiteMapUrls()) {
                        if (out.size() >= max) break;
                        out.add(u.getUrl().toString());
                    }
                }
            } catch (Fetcher.FetchException e) {
                problems.add(loc + ": " + (e.kind().equals("connect") ? "host unreachable (" + e.getMessage() + ")"
                        : e.getMessage()));
            } catch (Exception e) {
                // a broken sitemap only costs its URLs
                problems.add(loc + ": not a readable sitemap (" + e.getClass().getSimpleName() + ")");
            }
        }
        return new Read(List.copyOf(out), List.copyOf(problems));
    }
}
