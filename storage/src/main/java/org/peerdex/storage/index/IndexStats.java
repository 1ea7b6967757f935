package org.peerdex.storage.index;

import java.util.concurrent.atomic.AtomicLong;

/** Running counts of documents and postings, counted once at open and kept current by the writers. */
public final class IndexStats {
    private final AtomicLong documents = new AtomicLong();
    private final AtomicLong postings = new AtomicLong();

    public void set(long docs, long post) {
        documents.set(docs);
        postings.set(post);
    }

    public void add(long docs, long post) {
        documents.addAndGet(docs);
        postings.addAndGet(post);
    }

    public long documents() {
        return documents.get();
    }

    public long postings() {
        return postings.get();
    }
}
