package org.peerdex.actors.importer;

import java.net.URI;
import java.util.List;
import org.peerdex.actors.parse.LanguageDetector;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.url.UrlNormalizer;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.meta.UrlMetadataStore;
import org.peerdex.storage.text.DocumentText;
import org.peerdex.storage.text.Tokenizer;

/**
 * Turns imported documents into metadata, text and postings in the peer's storage (the same path as
 * {@code PageIndexer}), records an "imported" event in each URL's history, and flushes every {@code flushEvery}
 * documents so that what was imported before a failure is durable. Blocking; one per job.
 */
public final class DocumentSink {
    private static final int MAX_BODY_CHARS = 1 << 20;
    private final PeerStorage storage;
    private final String origin;
    private final int flushEvery;
    private final Runnable onFlush;
    private int sinceFlush;

    /**
     * @param origin  what the history events say the document came from ("rss import imp-3 of http://...")
     * @param onFlush called after each flush (the node offers new postings to their DHT holders)
     */
    public DocumentSink(PeerStorage storage, String origin, int flushEvery, Runnable onFlush) {
        this.storage = storage;
        this.origin = origin;
        this.flushEvery = Math.max(1, flushEvery);
        this.onFlush = onFlush == null ? () -> { } : onFlush;
    }

    /** Buffers one document; returns its URL hash. @throws IllegalArgumentException if the URL is not http(s) */
    public synchronized UrlHash index(ImportedDocument d) {
        String normal = UrlNormalizer.normalize(d.url())
                .orElseThrow(() -> new IllegalArgumentException("not an http(s) URL: " + d.url()));
        UrlHash hash = UrlHash.ofNormalized(normal);
        String body = d.body().length() > MAX_BODY_CHARS ? d.body().substring(0, MAX_BODY_CHARS) : d.body();
        String language = d.language().isEmpty() ? LanguageDetector.detect(d.title() + " " + body) : d.language();
        DocumentText text = new DocumentText(normal, d.title(), d.description(), d.keywords(), d.author(),
                d.headings().size() > 200 ? d.headings().subList(0, 200) : d.headings(),
                d.emphasized().size() > 500 ? d.emphasized().subList(0, 500) : d.emphasized(), List.of(), body);
        String host = hostOf(normal);
        int local = 0;
        int other = 0;
        for (String l : d.links()) {
            if (host.equals(hostOf(l))) local++;
            else other++;
        }
        long now = System.currentTimeMillis();
        UrlMetadata meta = new UrlMetadata(hash, normal, d.title(), d.description(), d.author(), d.keywords(),
                language, String.valueOf(d.doctype()), d.mimeType(), d.size() > 0 ? d.size() : body.length(),
                d.lastModified(), now, local, other, Tokenizer.plainWords(body).size(), null,
                Integer.toHexString((d.title() + body).hashCode()),
                d.headings().size() > 20 ? d.headings().subList(0, 20) : d.headings());
        IndexedDocument doc = PostingFactory.build(meta, text);
        storage.writer().add(doc);
        storage.metadata().appendHistory(hash, new UrlMetadataStore.HistoryEvent(now, "imported", 200,
                origin + " (" + doc.postings().size() + " postings)"));
        if (++sinceFlush >= flushEvery) flush();
        return hash;
    }

    /** Makes everything buffered so far durable and searchable. */
    public synchronized void flush() {
        if (storage.writer().pendingDocuments() > 0 || sinceFlush > 0) {
            storage.writer().flush();
            sinceFlush = 0;
            onFlush.run();
        }
    }

    /** True if the URL is indexed already with this date (a re-read feed or harvest skips it). */
    public boolean unchanged(String url, long lastModified) {
        return UrlNormalizer.normalize(url).flatMap(n -> storage.metadata().get(UrlHash.ofNormalized(n)))
                .map(m -> lastModified != 0 && m.lastModified() == lastModified).orElse(false);
    }

    static String hostOf(String url) {
        try {
            String h = URI.create(url).getHost();
            return h == null ? "" : h;
        } catch (IllegalArgumentException e) {
            return "";
        }
    }
}
