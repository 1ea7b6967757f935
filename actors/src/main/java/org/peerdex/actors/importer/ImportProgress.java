package org.peerdex.actors.importer;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

/**
 * The state of one import, shaped like a crawl's progress (DESIGN.md §6).
 *
 * @param state        running, finished, stopped or failed
 * @param error        why it failed, or null
 * @param recentErrors the last few per-document errors (a bad entry does not fail the job)
 * @param details      source-specific figures (pages read, resumption tokens followed, servers found, ...)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ImportProgress(String id, String kind, String source, String state, long imported, long skipped,
                             long errors, double docsPerSecond, long startedAt, long finishedAt, String error,
                             List<String> recentErrors, Map<String, Object> details) {
    public ImportProgress {
        recentErrors = recentErrors == null ? List.of() : List.copyOf(recentErrors);
        details = details == null ? Map.of() : Map.copyOf(details);
    }

    public boolean running() {
        return "running".equals(state);
    }
}
