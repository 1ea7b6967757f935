package org.peerdex.actors.importer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.peerdex.storage.PeerStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of an {@link ImportSource}: counts what was imported, skipped and failed, holds the state the API shows,
 * and can be stopped. Runs on the import dispatcher (see {@link ImportJobs}); its counters are read from any
 * thread.
 */
public final class ImportJob {
    private static final Logger log = LoggerFactory.getLogger(ImportJob.class);
    private static final int RECENT_ERRORS = 10;
    private final String id;
    private final ImportKind kind;
    private final String source;
    private final ImportSource body;
    private final PeerStorage storage;
    private final DocumentSink sink;
    private final AtomicLong imported = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final Deque<String> recent = new ArrayDeque<>();
    private final Map<String, Object> details = new LinkedHashMap<>();
    /** What the crawl this import handed its pages to has done so far (see {@link CrawledImport}). */
    private volatile long crawlImported;
    private volatile long crawlSkipped;
    private volatile long crawlErrors;
    private volatile List<String> crawlRecent = List.of();
    private volatile String state = "running";
    private volatile String error;
    private volatile boolean stopRequested;
    /** The peer is shutting down (not a stop asked for): work handed on, such as a crawl, is left to resume. */
    private volatile boolean shutdown;
    private volatile long startedAt = System.currentTimeMillis();
    private volatile long finishedAt;

    public ImportJob(String id, ImportKind kind, String source, ImportSource body, PeerStorage storage,
                     int flushEvery, Runnable onFlush) {
        this.id = id;
        this.kind = kind;
        this.source = source;
        this.body = body;
        this.storage = storage;
        this.sink = new DocumentSink(storage, kind.key() + " import " + id + " of " + source, flushEvery, onFlush);
    }

    /** What a source sees of its job. */
    public final class Context {
        /** True once the job was asked to stop; sources check it between documents. */
        public boolean stopped() {
            return stopRequested;
        }

        /** True once the job was stopped because the peer shuts down, not because someone asked for it. */
        public boolean shuttingDown() {
            return shutdown;
        }

        /** Indexes one document; a document the indexer refuses counts as an error, not a failure. */
        public void document(ImportedDocument d) {
            try {
                sink.index(d);
                imported.incrementAndGet();
            } catch (IllegalArgumentException e) {
                error(e.getMessage());
            }
        }

        /** True if this URL is indexed with this date already (re-read feeds, repeated harvests). */
        public boolean unchanged(String url, long lastModified) {
            return sink.unchanged(url, lastModified);
        }

        public void skipped(String reason) {
            skipped.incrementAndGet();
            log.debug("import {} skipped: {}", id, reason);
        }

        public void error(String message) {
            errors.incrementAndGet();
            synchronized (recent) {
                if (recent.size() >= RECENT_ERRORS) recent.removeFirst();
                recent.addLast(message);
            }
        }

        public void detail(String key, Object value) {
            synchronized (details) {
                details.put(key, value);
            }
        }

        /**
         * The counters of the crawl this import's pages were handed to, as of now: they add to what the import
         * counted itself (pages skipped before the hand-over, a sitemap that could not be read).
         */
        public void crawled(long indexed, long skipped, long errors, List<String> recentErrors) {
            crawlImported = indexed;
            crawlSkipped = skipped;
            crawlErrors = errors;
            crawlRecent = List.copyOf(recentErrors);
        }

        public void count(String key) {
            synchronized (details) {
                details.merge(key, 1L, (a, b) -> ((Number) a).longValue() + 1);
            }
        }

        public PeerStorage storage() {
            return storage;
        }

        public String id() {
            return id;
        }

        /** Makes what was imported so far durable and searchable (sources that run long call it now and then). */
        public void flush() {
            sink.flush();
        }
    }

    /** Runs the source to its end on the calling thread. */
    public void run() {
        startedAt = System.currentTimeMillis();
        state = "running";
        try {
            body.run(new Context());
            sink.flush();
            state = stopRequested ? "stopped" : "finished";
        } catch (Exception | StackOverflowError e) {
            String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            error = msg;
            try {
                sink.flush(); // what was imported before the failure stays
            } catch (RuntimeException flushFailed) {
                log.warn("import {}: flush after failure failed", id, flushFailed);
            }
            state = "failed";
            log.info("import {} ({} of {}) failed after {} documents: {}", id, kind.key(), source, imported.get(), msg);
        } finally {
            finishedAt = System.currentTimeMillis();
        }
    }

    /** Sets a detail before or while the job runs (the proxy's port is known before its first request). */
    public void detail(String key, Object value) {
        synchronized (details) {
            details.put(key, value);
        }
    }

    /** Stops the job because the peer shuts down (see {@link Context#shuttingDown()}). */
    public void stopForShutdown() {
        shutdown = true;
        stop();
    }

    public void stop() {
        stopRequested = true;
        if (!"running".equals(state)) state = "stopped"; // an idle scheduled import
    }

    public String id() {
        return id;
    }

    public ImportKind kind() {
        return kind;
    }

    public String source() {
        return source;
    }

    public ImportProgress progress() {
        long end = finishedAt == 0 ? System.currentTimeMillis() : finishedAt;
        double seconds = Math.max(0.001, (end - startedAt) / 1000.0);
        List<String> errs;
        synchronized (recent) {
            errs = new ArrayList<>(recent);
        }
        errs.addAll(crawlRecent);
        if (errs.size() > RECENT_ERRORS) errs = new ArrayList<>(errs.subList(errs.size() - RECENT_ERRORS, errs.size()));
        Map<String, Object> d;
        synchronized (details) {
            d = new LinkedHashMap<>(details);
        }
        long in = imported.get() + crawlImported;
        return new ImportProgress(id, kind.key(), source, state, in, skipped.get() + crawlSkipped,
                errors.get() + crawlErrors, Math.round(in / seconds * 10) / 10.0, startedAt, finishedAt, error, errs, d);
    }
}
