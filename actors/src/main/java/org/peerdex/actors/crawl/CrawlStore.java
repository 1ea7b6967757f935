package org.peerdex.actors.crawl;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.meta.Cbor;

/** Crawl records in keyspace {@code 'c'} ({@code 'c' ‖ crawl id} → CBOR {@link CrawlRecord}). Blocking. */
public final class CrawlStore {
    private final KeyValueStore store;

    public CrawlStore(KeyValueStore store) {
        this.store = store;
    }

    private static byte[] key(String id) {
        return Keys.of(Keyspace.CRAWLS, id.getBytes(StandardCharsets.US_ASCII));
    }

    /** Writes a record durably (synced: a state change must survive kill -9). */
    public void put(CrawlRecord r) {
        KeyValueStore.Batch b = store.newBatch();
        b.put(key(r.id()), Cbor.write(r));
        store.write(b, true);
    }

    public Optional<CrawlRecord> get(String id) {
        return store.get(key(id)).map(v -> Cbor.read(v, CrawlRecord.class));
    }

    /** Every stored crawl, oldest first. */
    public List<CrawlRecord> all() {
        List<CrawlRecord> out = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.CRAWLS})) {
            while (c.next()) out.add(Cbor.read(c.value(), CrawlRecord.class));
        }
        out.sort(Comparator.comparingLong(CrawlRecord::createdAt));
        return out;
    }
}
