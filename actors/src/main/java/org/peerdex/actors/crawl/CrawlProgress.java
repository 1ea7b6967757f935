package org.peerdex.actors.crawl;

import java.util.List;
import java.util.Map;

/**
 * The progress of one crawl (the JSON of {@code GET /api/crawl/{id}}, DESIGN §6). {@code queued} counts URLs
 * admitted and not yet done (in flight included); {@code skipped} and {@code errors} are broken down by reason in
 * {@code skippedBy} and {@code errorsBy}; {@code linksRejected} counts links the profile did not follow;
 * {@code timingMs} sums where the time went (fetch, parse, index) over the pages of this run of the crawl;
 * {@code paused} is true while writes fail (a full disk) and {@code error} says why: the crawl stays running,
 * fetches nothing new and continues on its own when writes succeed again; {@code hostQueues} counts the host queue
 * actors alive now (queues of hosts without work are stopped, so it stays near the hosts being fetched).
 */
public record CrawlProgress(String id, String state, String url, long queued, long fetched, long indexed,
                            long skipped, long errors, double pagesPerMinute, Map<String, Long> skippedBy,
                            Map<String, Long> errorsBy, Map<String, Long> linksRejected, List<HostProgress> hosts,
                            long startedAt, long finishedAt, String message, CrawlProfile profile,
                            Map<String, Long> timingMs, boolean paused, String error, int hostQueues) {

    /** One host of a running crawl: URLs dispatched and not done, its politeness delay, where its rules came from. */
    public record HostProgress(String site, long pending, long delayMs, String robots) {}

    /** The progress of a crawl that is not running, from its stored record. */
    public static CrawlProgress of(CrawlRecord r) {
        long ran = Math.max(1, (r.finishedAt() > 0 ? r.finishedAt() : System.currentTimeMillis()) - r.createdAt());
        double ppm = Math.round(r.fetched() * 60_000.0 / ran * 10) / 10.0;
        return new CrawlProgress(r.id(), r.state(), r.profile().url(), 0, r.fetched(), r.indexed(), r.skipped(),
                r.errors(), r.state().equals(CrawlRecord.RUNNING) ? 0 : ppm, r.skippedBy(), r.errorsBy(), Map.of(),
                List.of(), r.createdAt(), r.finishedAt(), r.message(), r.profile(), Map.of(), false, "", 0);
    }
}
