package org.peerdex.actors.crawl;

import com.fasterxml.jackson.annotation.JsonProperty;
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
 * {@code hosts} lists the hosts with URLs dispatched and not done (most first, at most 100); {@code fetching} the
 * requests on the wire now (at most 50); {@code history} the pages fetched so far at moments over this run of the
 * crawl (at most {@link #MAX_HISTORY} samples, evenly spaced), from which the console plots pages/min;
 * {@code recentErrors} the last errors of this run ("URL: detail", at most {@link #RECENT_ERRORS}). A crawl
 * that indexed nothing for a reason of its own (its start URL failed, its host was unreachable, ...) ends
 * {@code failed} with the reason in {@code message}.
 */
public record CrawlProgress(String id, String state, String url, long queued, long fetched, long indexed,
                            long skipped, long errors, double pagesPerMinute, Map<String, Long> skippedBy,
                            Map<String, Long> errorsBy, Map<String, Long> linksRejected, List<HostProgress> hosts,
                            long startedAt, long finishedAt, String message, CrawlProfile profile,
                            Map<String, Long> timingMs, boolean paused, String error, int hostQueues,
                            List<Fetching> fetching, List<Sample> history, List<String> recentErrors) {
    /** Errors kept in {@code recentErrors} ("URL: detail", the latest last). */
    public static final int RECENT_ERRORS = 10;

    public CrawlProgress {
        recentErrors = recentErrors == null ? List.of() : List.copyOf(recentErrors);
    }

    /** Samples kept in {@code history}: when full, every other one is dropped and the spacing doubles. */
    public static final int MAX_HISTORY = 240;

    /** One host of a running crawl: URLs dispatched and not done, its politeness delay, where its rules came from. */
    public record HostProgress(String site, long pending, long delayMs, String robots) {}

    /** A request on the wire: its URL and since when (epoch ms). */
    public record Fetching(String url, long since) {}

    /** Pages fetched by this run of the crawl up to a moment (epoch ms). */
    public record Sample(long at, long fetched) {}

    /** The progress of a crawl that is not running, from its stored record. */
    public static CrawlProgress of(CrawlRecord r) {
        long ran = Math.max(1, (r.finishedAt() > 0 ? r.finishedAt() : System.currentTimeMillis()) - r.createdAt());
        double ppm = Math.round(r.fetched() * 60_000.0 / ran * 10) / 10.0;
        return new CrawlProgress(r.id(), r.state(), r.profile().url(), 0, r.fetched(), r.indexed(), r.skipped(),
                r.errors(), r.state().equals(CrawlRecord.RUNNING) ? 0 : ppm, r.skippedBy(), r.errorsBy(), Map.of(),
                List.of(), r.createdAt(), r.finishedAt(), r.message(), r.profile(), Map.of(), false, "", 0, List.of(),
                List.of(), List.of());
    }

    /** Milliseconds the crawl has run (to its end, or to now). */
    @JsonProperty("durationMs")
    public long durationMs() {
        return Math.max(0, (finishedAt > 0 ? finishedAt : System.currentTimeMillis()) - startedAt);
    }

    /**
     * Milliseconds until what is queued now is fetched at the rate of the last minute; -1 when not running or
     * there is no rate yet. Links found meanwhile are not foreseen: the estimate grows while a crawl discovers.
     */
    @JsonProperty("etaMs")
    public long etaMs() {
        if (!CrawlRecord.RUNNING.equals(state) || pagesPerMinute <= 0) return -1;
        return Math.round(queued * 60_000.0 / pagesPerMinute);
    }
}
