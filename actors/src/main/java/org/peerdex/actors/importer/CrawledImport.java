package org.peerdex.actors.importer;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import org.peerdex.actors.crawl.CrawlProfile;
import org.peerdex.actors.crawl.CrawlProgress;
import org.peerdex.actors.crawl.CrawlRecord;
import org.peerdex.storage.frontier.Frontier;

/**
 * The pages of an import that names web pages (sitemap, phpBB forum, network scan) fetched by the peer's crawler,
 * not by the importer: the import starts a crawl of its pages, so per-host politeness, robots.txt, the seen-set,
 * resume after kill -9 and the crawl monitor apply to them, and follows it to its end. The import's progress shows
 * the crawl's id ({@code details.crawl}) and counts: indexed pages as imported, the crawl's skips (by reason in
 * {@code details.skippedBy}) and errors ({@code details.errorsBy}, the latest in {@code recentErrors}). Stopping the
 * import stops the crawl; a peer that shuts down leaves it running, and after the restart (or a kill -9) the crawl
 * resumes on its own; the import that started it does not run again.
 */
public final class CrawledImport {
    private static final long POLL_NANOS = 200_000_000L;

    private CrawledImport() {}

    /** The peer's crawler, as the importers see it. */
    public interface Crawls {
        /**
         * Starts a crawl of the profile with these further start URLs (admitted before it runs); returns its id.
         * @throws IOException when the crawler refuses it (a refused address, a full disk): the import fails with it
         */
        String start(CrawlProfile profile, List<Frontier.Candidate> seeds) throws IOException;

        /** The crawl's progress, empty if there is no such crawl. */
        Optional<CrawlProgress> progress(String id) throws IOException;

        void stop(String id) throws IOException;
    }

    /**
     * Hands the pages to a new crawl and waits for it to end, mirroring its counters into the import.
     * {@code upToDate} counts pages the import skipped itself as unchanged: with any, a crawl that indexed nothing
     * does not fail the import (its pages were current).
     * @throws IOException when the crawl cannot start or fails
     */
    public static CrawlProgress run(ImportJob.Context ctx, Crawls crawls, CrawlProfile profile,
                                    List<Frontier.Candidate> seeds, long upToDate) throws IOException {
        String id = crawls.start(profile, seeds);
        ctx.detail("crawl", id);
        boolean stopAsked = false;
        CrawlProgress last = null;
        int unanswered = 0;
        while (true) {
            CrawlProgress p;
            try {
                p = crawls.progress(id).orElseThrow(() -> new IOException("crawl " + id + " is gone"));
                unanswered = 0;
            } catch (IOException e) {
                // a peer shutting down stops its crawl manager before or beside its imports: not the import's failure
                if (ctx.shuttingDown() && last != null) {
                    ctx.detail("crawlState", "left running: it resumes when the peer starts again");
                    return last;
                }
                if (++unanswered >= 3) throw e;
                LockSupport.parkNanos(1_000_000_000L);
                continue;
            }
            last = p;
            mirror(ctx, p);
            if (!CrawlRecord.RUNNING.equals(p.state())) {
                if (CrawlRecord.FAILED.equals(p.state()) && !(upToDate > 0 && p.indexed() == 0)) {
                    throw new IOException("crawl " + id + " failed: " + p.message());
                }
                return p;
            }
            if (ctx.stopped() && ctx.shuttingDown()) {
                // the crawl stays running in the store and resumes with the peer; this import ends here
                ctx.detail("crawlState", "left running: it resumes when the peer starts again");
                return p;
            }
            if (ctx.stopped() && !stopAsked) {
                crawls.stop(id);
                stopAsked = true;
            }
            LockSupport.parkNanos(POLL_NANOS);
            if (Thread.interrupted()) {
                crawls.stop(id);
                throw new IOException("interrupted while crawl " + id + " ran (the crawl was stopped)");
            }
        }
    }

    /**
     * The profile of a crawl that fetches exactly the listed pages: each a start URL at depth 0 (links are not
     * followed), range {@code site} over the listed pages' hosts (up to 1000 hosts; more make it {@code wide}), no
     * robots.txt sitemaps, at most as many pages as listed, every content type (PDF and office documents are read
     * by {@link CrawlDocuments}; a type nothing reads is skipped), the node's politeness.
     */
    public static CrawlProfile pagesProfile(List<Frontier.Candidate> pages) {
        if (pages.isEmpty()) throw new IllegalArgumentException("no pages to crawl");
        java.util.Map<String, String> firstOfHost = new java.util.LinkedHashMap<>();
        for (Frontier.Candidate c : pages) {
            firstOfHost.putIfAbsent(java.net.URI.create(c.url()).getRawAuthority().toLowerCase(java.util.Locale.ROOT),
                    c.url());
        }
        List<String> starts = List.copyOf(firstOfHost.values());
        boolean wide = starts.size() > 1000;
        return new CrawlProfile(starts.get(0), wide ? null : starts, 0, wide ? "wide" : "site", null, null,
                (long) pages.size(), 0L, null, null, true, List.of("*/*"), false, "pages", null);
    }

    private static void mirror(ImportJob.Context ctx, CrawlProgress p) {
        ctx.crawled(p.indexed(), p.skipped(), p.errors(), p.recentErrors());
        ctx.detail("crawlState", p.state());
        ctx.detail("pagesFetched", p.fetched());
        ctx.detail("queued", p.queued());
        ctx.detail("skippedBy", p.skippedBy());
        ctx.detail("errorsBy", p.errorsBy());
        ctx.detail("linksRejected", p.linksRejected());
        Map<String, Long> by = p.skippedBy();
        if (by.containsKey("robots")) ctx.detail("robotsDisallowed", by.get("robots"));
    }
}
