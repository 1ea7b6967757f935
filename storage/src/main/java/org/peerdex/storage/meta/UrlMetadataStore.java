package org.peerdex.storage.meta;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.rwi.HashBytes;

/** URL hash → metadata, extracted text (for snippets and phrase checks), images and crawl/parse history. */
public final class UrlMetadataStore {
    /** Text kept per document for snippets: enough for every snippet, bounded so a huge page costs little. */
    public static final int MAX_TEXT_CHARS = 64 * 1024;
    private static final int MAX_HISTORY = 20;
    private final KeyValueStore store;
    private final LongAdder scanned = new LongAdder();

    public UrlMetadataStore(KeyValueStore store) {
        this.store = store;
    }

    private static byte[] key(byte space, UrlHash url) {
        return Keys.of(space, HashBytes.pack(url.value()));
    }

    /** A record this peer holds (crawled, or stored by a peer that replicated it here); replaces a learned one. */
    public void putTo(KeyValueStore.Batch batch, UrlMetadata meta) {
        batch.put(key(Keyspace.META, meta.urlHash()), Cbor.write(meta));
        batch.delete(key(Keyspace.LEARNED_META, meta.urlHash()));
    }

    /**
     * A record learned from a search answer: read by {@link #get} like a held one, but not by {@link #getHeld},
     * {@link #scanAll} or {@link #count}, so this peer never vouches for it to others.
     */
    public void putLearnedTo(KeyValueStore.Batch batch, UrlMetadata meta) {
        batch.put(key(Keyspace.LEARNED_META, meta.urlHash()), Cbor.write(meta));
    }

    public void putTextTo(KeyValueStore.Batch batch, UrlHash url, String text) {
        String t = text.length() > MAX_TEXT_CHARS ? text.substring(0, MAX_TEXT_CHARS) : text;
        batch.put(key(Keyspace.TEXT, url), t.getBytes(StandardCharsets.UTF_8));
    }

    /** The images of a page's main content, as a list record (an empty list removes the entry). */
    record Images(List<PageImage> images) {
        Images {
            images = images == null ? List.of() : List.copyOf(images);
        }
    }

    /** Replaces the images recorded for {@code url} (none: the entry goes, so a re-crawl drops old ones). */
    public void putImagesTo(KeyValueStore.Batch batch, UrlHash url, List<PageImage> images) {
        if (images.isEmpty()) batch.delete(key(Keyspace.IMAGES, url));
        else batch.put(key(Keyspace.IMAGES, url), Cbor.write(new Images(images)));
    }

    /** The images of the page's main content recorded when it was indexed here (none for older records). */
    public List<PageImage> images(UrlHash url) {
        return store.get(key(Keyspace.IMAGES, url)).map(b -> Cbor.read(b, Images.class).images()).orElse(List.of());
    }

    public void put(UrlMetadata meta) {
        KeyValueStore.Batch b = store.newBatch();
        putTo(b, meta);
        store.write(b, false);
    }

    /** The record held here, else one learned from a search answer (for this peer's own results). */
    public Optional<UrlMetadata> get(UrlHash url) {
        Optional<UrlMetadata> held = getHeld(url);
        return held.isPresent() ? held
                : store.get(key(Keyspace.LEARNED_META, url)).map(b -> Cbor.read(b, UrlMetadata.class));
    }

    /** Only a record held here (crawled or stored by replication): what this peer may serve to other peers. */
    public Optional<UrlMetadata> getHeld(UrlHash url) {
        return store.get(key(Keyspace.META, url)).map(b -> Cbor.read(b, UrlMetadata.class));
    }

    public Optional<String> text(UrlHash url) {
        return store.get(key(Keyspace.TEXT, url)).map(b -> new String(b, StandardCharsets.UTF_8));
    }

    /** Held or learned. */
    public boolean contains(UrlHash url) {
        return store.get(key(Keyspace.META, url)).isPresent() || store.get(key(Keyspace.LEARNED_META, url)).isPresent();
    }

    /** Removes metadata and text (the history stays: it tells why the URL is gone). */
    public void delete(UrlHash url) {
        KeyValueStore.Batch b = store.newBatch();
        b.delete(key(Keyspace.META, url));
        b.delete(key(Keyspace.LEARNED_META, url));
        b.delete(key(Keyspace.TEXT, url));
        b.delete(key(Keyspace.IMAGES, url));
        store.write(b, false);
    }

    public void scanAll(Consumer<UrlMetadata> sink) {
        scanAll(position -> true, sink);
    }

    /** The records whose URL's ring position passes {@code positions}, judged on the key: others are not decoded. */
    public void scanAll(java.util.function.LongPredicate positions, Consumer<UrlMetadata> sink) {
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.META})) {
            while (c.next()) {
                if (positions.test(HashBytes.position(c.key(), 1))) sink.accept(decode(c.value()));
            }
        }
    }

    /**
     * Decodes records in key order into {@code sink} until {@code limit} were decoded or the sink returns false, and
     * stops reading there: a scan that serves a request costs at most {@code limit} records whatever the index
     * holds. Returns how many records were decoded.
     */
    public int scan(int limit, Predicate<UrlMetadata> sink) {
        int n = 0;
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.META})) {
            while (n < limit && c.next()) {
                n++;
                if (!sink.test(decode(c.value()))) break;
            }
        }
        return n;
    }

    /** Records decoded by scans of this store since it was opened: what scans cost (tests and benchmarks read it). */
    public long recordsScanned() {
        return scanned.sum();
    }

    private UrlMetadata decode(byte[] value) {
        scanned.increment();
        return Cbor.read(value, UrlMetadata.class);
    }

    public long count() {
        long n = 0;
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.META})) {
            while (c.next()) n++;
        }
        return n;
    }

    /** One event in a URL's crawl/parse history. */
    public record HistoryEvent(long at, String event, int status, String detail) {}

    /** A URL's history, newest last, at most 20 events. */
    public record History(List<HistoryEvent> events) {
        public History {
            events = events == null ? List.of() : List.copyOf(events);
        }
    }

    public void appendHistory(UrlHash url, HistoryEvent event) {
        byte[] k = key(Keyspace.HISTORY, url);
        List<HistoryEvent> events = new ArrayList<>(history(url));
        events.add(event);
        if (events.size() > MAX_HISTORY) events = events.subList(events.size() - MAX_HISTORY, events.size());
        store.put(k, Cbor.write(new History(events)));
    }

    public List<HistoryEvent> history(UrlHash url) {
        return store.get(key(Keyspace.HISTORY, url)).map(b -> Cbor.read(b, History.class).events())
                .orElse(List.of());
    }
}
