package org.peerdex.actors.crawl;

import java.util.List;
import org.peerdex.actors.parse.ParsedDocument;
import org.peerdex.storage.index.IndexedDocument;

/** What fetching and parsing one URL came to. */
public sealed interface PageOutcome {
    /** HTTP status of the final response, 0 if there was none. */
    int status();

    /**
     * Parsed and ready for the indexer (unless noindex); {@code prepared} is the index entry built on the fetch
     * worker (so condensing runs in parallel), or null.
     */
    record Fetched(String url, int status, List<String> redirects, ParsedDocument doc, long bytes, boolean truncated,
                   long lastModified, long fetchMs, long parseMs, IndexedDocument prepared) implements PageOutcome {
        public Fetched withPrepared(IndexedDocument d) {
            return new Fetched(url, status, redirects, doc, bytes, truncated, lastModified, fetchMs, parseMs, d);
        }

        public Fetched withLastModified(long date) {
            return new Fetched(url, status, redirects, doc, bytes, truncated, date, fetchMs, parseMs, prepared);
        }
    }

    /** The host asked us to come back later (429/503). */
    record RetryLater(int status, long retryAfterMs, String detail) implements PageOutcome {}

    /** Fetched (or not) and deliberately not indexed: robots, content type, binary, noindex, duplicate, ... */
    record Skipped(String reason, int status, String detail, List<String> redirects) implements PageOutcome {}

    /** An error: timeout, connect, http-404, redirect-loop, refused-address, ... */
    record Failed(String kind, int status, String detail, List<String> redirects) implements PageOutcome {}
}
