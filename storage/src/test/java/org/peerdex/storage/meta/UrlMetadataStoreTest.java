package org.peerdex.storage.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.LevelDbStore;

class UrlMetadataStoreTest {
    @TempDir
    Path dir;

    private static UrlMetadata full() {
        String url = "https://www.postgresql.org/docs/current/app-pgdump.html";
        return new UrlMetadata(UrlHash.of(url), url, "pg_dump", "extract a PostgreSQL database into a script file",
                "The PostgreSQL Global Development Group", List.of("backup", "dump"), "en", "h", "text/html",
                67_537, 1_715_500_000_000L, 1_764_000_000_000L, 120, 7, 4_321, "AbCdEfGhIjKl", "c0ffee",
                List.of("Description", "Options"));
    }

    @Test
    void metadataRoundTripsThroughLevelDbAcrossAReopen() {
        UrlMetadata m = full();
        try (KeyValueStore store = LevelDbStore.open(dir, 1 << 20)) {
            UrlMetadataStore meta = new UrlMetadataStore(store);
            assertFalse(meta.contains(m.urlHash()));
            meta.put(m);
            KeyValueStore.Batch b = store.newBatch();
            meta.putTextTo(b, m.urlHash(), "pg_dump is a utility for backing up a PostgreSQL database.");
            store.write(b, true);
        }
        try (KeyValueStore store = LevelDbStore.open(dir, 1 << 20)) {
            UrlMetadataStore meta = new UrlMetadataStore(store);
            assertEquals(Optional.of(m), meta.get(m.urlHash()));
            assertTrue(meta.text(m.urlHash()).orElseThrow().startsWith("pg_dump is a utility"));
            assertEquals(1, meta.count());
            assertEquals("www.postgresql.org", m.host());
            assertEquals("html", m.filetype());
            meta.delete(m.urlHash());
            assertEquals(Optional.empty(), meta.get(m.urlHash()));
            assertEquals(Optional.empty(), meta.text(m.urlHash()));
            assertEquals(0, meta.count());
        }
    }

    /** A record learned from a search answer is read for this peer's results but never as one it holds. */
    @Test
    void aLearnedRecordIsReadButNotHeldScannedOrCountedUntilAHeldOneReplacesIt() {
        UrlMetadata m = full();
        try (KeyValueStore store = LevelDbStore.open(dir, 1 << 20)) {
            UrlMetadataStore meta = new UrlMetadataStore(store);
            KeyValueStore.Batch b = store.newBatch();
            meta.putLearnedTo(b, m);
            store.write(b, true);
            assertEquals(Optional.of(m), meta.get(m.urlHash()));
            assertTrue(meta.contains(m.urlHash()));
            assertEquals(Optional.empty(), meta.getHeld(m.urlHash()));
            assertEquals(0, meta.count());
            int[] scanned = {0};
            meta.scanAll(x -> scanned[0]++);
            assertEquals(0, scanned[0], "a learned record is never offered in replication scans");
            meta.put(m); // stored by replication, or crawled: held from now on
            assertEquals(Optional.of(m), meta.getHeld(m.urlHash()));
            assertEquals(1, meta.count());
            meta.delete(m.urlHash());
            assertFalse(meta.contains(m.urlHash()));
        }
    }

    @Test
    void missingFieldsGetDefaults() {
        UrlMetadata m = new UrlMetadata(UrlHash.of("http://example.com/a.pdf"), "http://example.com/a.pdf", null,
                null, null, null, null, null, null, 0, 0, 0, 0, 0, 0, null, null, null);
        assertEquals("", m.title());
        assertEquals("h", m.doctype());
        assertEquals("pdf", m.filetype());
        assertEquals(m, Cbor.read(Cbor.write(m), UrlMetadata.class));
    }

    @Test
    void textIsCutToTheBound() throws Exception {
        try (KeyValueStore store = LevelDbStore.open(dir, 1 << 20)) {
            UrlMetadataStore meta = new UrlMetadataStore(store);
            UrlHash u = UrlHash.of("http://example.com/huge");
            KeyValueStore.Batch b = store.newBatch();
            meta.putTextTo(b, u, "x".repeat(UrlMetadataStore.MAX_TEXT_CHARS + 1000));
            store.write(b, false);
            assertEquals(UrlMetadataStore.MAX_TEXT_CHARS, meta.text(u).orElseThrow().length());
        }
    }

    @Test
    void historyKeepsTheNewestTwentyEventsInOrder() {
        try (KeyValueStore store = LevelDbStore.open(dir, 1 << 20)) {
            UrlMetadataStore meta = new UrlMetadataStore(store);
            UrlHash u = UrlHash.of("http://example.com/page");
            assertEquals(List.of(), meta.history(u));
            for (int i = 0; i < 25; i++) {
                meta.appendHistory(u, new UrlMetadataStore.HistoryEvent(1000L + i, "fetched", 200, "try " + i));
            }
            List<UrlMetadataStore.HistoryEvent> h = meta.history(u);
            assertEquals(20, h.size());
            assertEquals("try 5", h.get(0).detail());
            assertEquals("try 24", h.get(19).detail());
            meta.delete(u);
            assertEquals(20, meta.history(u).size(), "the history outlives the metadata");
        }
    }

    @Test
    void aBoundedScanStopsReadingAtItsLimitOrWhenTheSinkSaysSo() {
        try (KeyValueStore store = LevelDbStore.open(dir, 1 << 20)) {
            UrlMetadataStore meta = new UrlMetadataStore(store);
            UrlMetadata m = full();
            for (int i = 0; i < 50; i++) {
                String url = "https://example.org/page" + i;
                meta.put(new UrlMetadata(UrlHash.of(url), url, "t" + i, "", "", List.of(), "en", "h", "text/html",
                        1, 0, 0, 0, 0, 1, m.holder(), "", List.of()));
            }
            List<String> seen = new java.util.ArrayList<>();
            assertEquals(10, meta.scan(10, x -> seen.add(x.url())));
            assertEquals(10, seen.size());
            assertEquals(10, meta.recordsScanned());
            assertEquals(3, meta.scan(10, x -> seen.size() < 12 && seen.add(x.url())));
            assertEquals(13, meta.recordsScanned());
            assertEquals(50, meta.scan(1000, x -> true));
            assertEquals(63, meta.recordsScanned());
        }
    }
}
