package org.peerdex.storage.index;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.meta.UrlMetadataStore;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * A bounded in-memory write buffer in front of the store: documents are collected and written as one sorted
 * batch when the buffer passes its byte bound or {@link #flush()} is called. A document counts as indexed
 * (acknowledged) only once the flush that carries it has returned; LevelDB has then logged it, so it survives
 * kill -9. Thread-safe.
 */
public final class IndexWriter {
    private final KeyValueStore store;
    private final ReverseWordIndex rwi;
    private final UrlMetadataStore meta;
    private final long maxBufferedBytes;
    private final boolean sync;
    private final List<IndexedDocument> pending = new ArrayList<>();
    private long pendingBytes;
    private final IndexStats stats;

    public IndexWriter(KeyValueStore store, ReverseWordIndex rwi, UrlMetadataStore meta, IndexStats stats,
                       long maxBufferedBytes, boolean sync) {
        this.store = store;
        this.rwi = rwi;
        this.meta = meta;
        this.stats = stats;
        this.maxBufferedBytes = maxBufferedBytes;
        this.sync = sync;
    }

    /** Buffers a document; flushes first if the buffer is full. Returns true if a flush happened. */
    public synchronized boolean add(IndexedDocument doc) {
        // a full buffer here means the last flush failed (disk full): retry it before taking more, so the buffer
        // stays bounded while writes fail (the exception reaches the caller; the document is not taken)
        if (pendingBytes >= maxBufferedBytes) flush();
        pending.add(doc);
        pendingBytes += estimate(doc);
        if (pendingBytes >= maxBufferedBytes) {
            flush();
            return true;
        }
        return false;
    }

    public synchronized int pendingDocuments() {
        return pending.size();
    }

    /**
     * Entries of one LevelDB write at most (a document is never split). iq80 holds its database lock while it logs
     * a write and puts it into the memtable, and every read (the crawler's recrawl checks and anchor lookups on the
     * fetch threads) waits for that lock: one write of a whole flush (tens of thousands of postings) held them for
     * as long as its memtable inserts took. Writes of a few thousand entries let the reads in between.
     */
    static final int MAX_ENTRIES_PER_WRITE = 4096;

    /**
     * Writes every buffered document, each document's entries in one atomic write (several documents share one, up
     * to {@link #MAX_ENTRIES_PER_WRITE} entries); when it returns they are all durable. If a write fails, the
     * documents written before stay written, and all stay buffered for the next flush (which writes them again).
     */
    public synchronized void flush() {
        if (pending.isEmpty()) return;
        // a URL buffered twice (re-crawled before the flush): only its newest version is written
        Map<UrlHash, IndexedDocument> latest = new LinkedHashMap<>();
        for (IndexedDocument d : pending) {
            latest.remove(d.metadata().urlHash());
            latest.put(d.metadata().urlHash(), d);
        }
        KeyValueStore.Batch batch = store.newBatch();
        long newDocs = 0;
        long postings = 0;
        for (IndexedDocument d : latest.values()) {
            if (batch.size() >= MAX_ENTRIES_PER_WRITE) {
                store.write(batch, sync);
                stats.add(newDocs, postings);
                batch = store.newBatch();
                newDocs = 0;
                postings = 0;
            }
            boolean existed = meta.contains(d.metadata().urlHash());
            if (existed) {
                // a re-index may drop words: remove the old postings in the same batch
                var oldWords = rwi.wordsOf(d.metadata().urlHash());
                for (var w : oldWords) rwi.deleteTo(batch, w, d.metadata().urlHash());
                postings -= oldWords.size();
            } else {
                newDocs++;
            }
            meta.putTo(batch, d.metadata());
            meta.putTextTo(batch, d.metadata().urlHash(), d.text());
            meta.putImagesTo(batch, d.metadata().urlHash(), d.images());
            rwi.addDocumentTo(batch, d.metadata().urlHash(), d.postings());
            postings += d.postings().size();
        }
        store.write(batch, sync);
        stats.add(newDocs, postings);
        pending.clear();
        pendingBytes = 0;
    }

    private static long estimate(IndexedDocument d) {
        return 256L + d.text().length() * 2L + d.postings().size() * 64L + d.images().size() * 256L;
    }
}
