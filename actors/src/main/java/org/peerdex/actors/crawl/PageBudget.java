package org.peerdex.actors.crawl;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Pages one peer's crawls have in flight at once, between dispatch and the indexer's verdict (fetching, parsing,
 * waiting to be indexed), whatever the number of crawls: each crawl's dispatch window bounds only its own, so
 * crawls started faster than they finish (a client that gives up waiting and starts another) would otherwise
 * multiply the pages, parsed documents and postings held in heap. {@code peerdex.crawler.max-pages-in-flight}.
 */
public final class PageBudget {
    private final int max;
    private final AtomicInteger used = new AtomicInteger();

    public PageBudget(int max) {
        if (max < 1) throw new IllegalArgumentException("max-pages-in-flight must be at least 1");
        this.max = max;
    }

    /** Takes up to {@code wanted} pages of the budget; returns how many were granted (0 when it is spent). */
    public int acquireUpTo(int wanted) {
        while (true) {
            int now = used.get();
            int granted = Math.min(wanted, max - now);
            if (granted <= 0) return 0;
            if (used.compareAndSet(now, now + granted)) return granted;
        }
    }

    public void release(int pages) {
        if (pages > 0) used.addAndGet(-pages);
    }

    public int inFlight() {
        return used.get();
    }

    public int max() {
        return max;
    }
}
