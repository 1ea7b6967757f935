package org.peerdex.actors.crawl;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Map;
import java.util.TreeMap;

/**
 * A crawl job as stored in LevelDB (keyspace {@code 'c'}): its profile, its state and its counters as of the
 * last persist. A crawl whose stored state is {@code running} is resumed when the node starts.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CrawlRecord(String id, CrawlProfile profile, String state, long createdAt, long finishedAt,
                          long fetched, long indexed, long skipped, long errors, Map<String, Long> skippedBy,
                          Map<String, Long> errorsBy, String message) {
    public static final String RUNNING = "running";
    public static final String FINISHED = "finished";
    public static final String STOPPED = "stopped";
    public static final String FAILED = "failed";

    public CrawlRecord {
        skippedBy = skippedBy == null ? Map.of() : Map.copyOf(new TreeMap<>(skippedBy));
        errorsBy = errorsBy == null ? Map.of() : Map.copyOf(new TreeMap<>(errorsBy));
        message = message == null ? "" : message;
    }

    public static CrawlRecord started(String id, CrawlProfile profile, long now) {
        return new CrawlRecord(id, profile, RUNNING, now, 0, 0, 0, 0, 0, Map.of(), Map.of(), "");
    }

    public CrawlRecord withState(String s, long finished, String why) {
        return new CrawlRecord(id, profile, s, createdAt, finished, fetched, indexed, skipped, errors, skippedBy,
                errorsBy, why);
    }
}
