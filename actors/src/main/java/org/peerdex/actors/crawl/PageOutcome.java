package org.peerdex.actors.crawl;

import java.util.List;
import org.peerdex.actors.parse.ParsedDocument;

/** What fetching and parsing one URL came to. */
public sealed interface PageOutcome {
    /** HTTP status of the final response, 0 if there was none. */
    int status();

    /** Parsed and ready for the indexer (unless noindex). */
    record Fetched(String url, int status, List<String> redirects, ParsedDocument doc, long bytes, boolean truncated,
                   long lastModified, long fetchMs, long parseMs) implements PageOutcome {}

    /** The host asked us to come back later (429/503). */
    record RetryLater(int status, long retryAfterMs, String detail) implements PageOutcome {}

    /** Fetched (or not) and deliberately not indexed: robots, content type, binary, noindex, duplicate, ... */
    record Skipped(String reason, int status, String detail, List<String> redirects) implements PageOutcome {}

    /** An error: timeout, connect, http-404, redirect-loop, refused-address, ... */
    record Failed(String kind, int status, String detail, List<String> redirects) implements PageOutcome {}
}
