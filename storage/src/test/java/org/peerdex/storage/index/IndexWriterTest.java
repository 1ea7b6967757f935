package org.peerdex.storage.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.LevelDbStore;
import org.peerdex.storage.kv.MemoryStore;
import org.peerdex.storage.meta.PageImage;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.testing.TestPostings;
import org.peerdex.storage.text.DocumentText;

class IndexWriterTest {
    @TempDir
    Path dir;

    private static IndexedDocument doc(String url, String body) {
        UrlMetadata m = TestPostings.metadata(url, "title");
        return PostingFactory.build(m, new DocumentText(url, "", "", List.of(), "", List.of(), List.of(), List.of(),
                body));
    }

    @Test
    void documentsAreInvisibleUntilFlushedAndThenCounted() {
        try (PeerStorage s = new PeerStorage(new MemoryStore(), new Partitions(4), 1 << 20, false)) {
            IndexedDocument d = TestPostings.document(1);
            assertFalse(s.writer().add(d));
            assertEquals(1, s.writer().pendingDocuments());
            assertEquals(0, s.rwi().count(WordHash.of("peerdex")));
            assertEquals(0, s.stats().documents());
            s.writer().flush();
            assertEquals(0, s.writer().pendingDocuments());
            assertEquals(1, s.rwi().count(WordHash.of("peerdex")));
            assertEquals(1, s.stats().documents());
            assertEquals(d.postings().size(), s.stats().postings());
            assertEquals(d.metadata(), s.metadata().get(d.metadata().urlHash()).orElseThrow());
            assertEquals(d.text(), s.metadata().text(d.metadata().urlHash()).orElseThrow());
        }
    }

    @Test
    void aFullBufferFlushesByItself() {
        try (PeerStorage s = new PeerStorage(new MemoryStore(), new Partitions(4), 20_000, false)) {
            int flushes = 0;
            for (int i = 0; i < 200; i++) if (s.writer().add(TestPostings.document(i))) flushes++;
            assertTrue(flushes > 3, "flushes " + flushes);
            assertTrue(s.writer().pendingDocuments() < 200);
            s.writer().flush();
            assertEquals(200, s.rwi().count(WordHash.of("manual")));
            assertEquals(200, s.stats().documents());
        }
    }

    @Test
    void reIndexingAUrlReplacesItsPostings() {
        String url = "https://docs.example.org/guide.html";
        try (PeerStorage s = new PeerStorage(new MemoryStore(), new Partitions(4), 1 << 20, false)) {
            s.writer().add(doc(url, "alpha beta gamma"));
            s.writer().flush();
            s.writer().add(doc(url, "beta delta"));
            s.writer().flush();
            assertReplaced(s, UrlHash.of(url));
        }
    }

    @Test
    void reIndexingAUrlTwiceWithinOneBufferReplacesToo() {
        String url = "https://docs.example.org/guide.html";
        try (PeerStorage s = new PeerStorage(new MemoryStore(), new Partitions(4), 1 << 20, false)) {
            s.writer().add(doc(url, "alpha beta gamma"));
            s.writer().add(doc(url, "beta delta"));
            s.writer().flush();
            assertReplaced(s, UrlHash.of(url));
        }
    }

    private static void assertReplaced(PeerStorage s, UrlHash u) {
        assertEquals(0, s.rwi().count(WordHash.of("alpha")), "a dropped word loses its posting");
        assertEquals(0, s.rwi().count(WordHash.of("gamma")));
        assertEquals(1, s.rwi().count(WordHash.of("beta")));
        assertEquals(1, s.rwi().count(WordHash.of("delta")));
        assertEquals(1, s.stats().documents());
        assertEquals(s.rwi().totalPostings(), s.stats().postings());
        assertEquals(s.rwi().wordsOf(u).size(), s.stats().postings());
    }

    @Test
    void statsAreCountedAgainWhenTheStoreIsReopened() {
        long postings;
        try (PeerStorage s = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            for (int i = 0; i < 30; i++) s.writer().add(TestPostings.document(i));
            s.writer().flush();
            postings = s.stats().postings();
            s.putSetting("peer.id", "AbCdEfGhIjKl");
        }
        try (PeerStorage s = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            assertEquals(30, s.stats().documents());
            assertEquals(postings, s.stats().postings());
            assertEquals(postings, s.rwi().totalPostings());
            assertEquals("AbCdEfGhIjKl", s.setting("peer.id").orElseThrow());
            assertTrue(s.setting("missing").isEmpty());
        }
    }

    @Test
    void closeFlushesWhatIsBuffered() {
        try (PeerStorage s = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            s.writer().add(TestPostings.document(1));
        }
        try (PeerStorage s = new PeerStorage(LevelDbStore.open(dir.resolve("index"), 1 << 20), new Partitions(4),
                1 << 20, false)) {
            assertEquals(1, s.stats().documents());
            Posting p = s.rwi().postings(WordHash.of("doc1word")).get(0);
            assertEquals(TestPostings.url(1), p.url());
        }
    }

    @Test
    void aPagesImagesAreStoredMarkedInItsPostingsReplacedOnReindexAndDeletedWithIt() {
        try (PeerStorage s = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            String url = "http://example.org/gallery.html";
            UrlMetadata m = TestPostings.metadata(url, "Gallery");
            DocumentText text = new DocumentText(url, "Gallery", "", List.of(), "", List.of(), List.of(), List.of(),
                    "a lighthouse at dusk");
            List<PageImage> images = List.of(
                    new PageImage("http://example.org/a.jpg", "Lighthouse", "at dusk"));
            IndexedDocument withImages = PostingFactory.build(m, text, images);
            for (Posting p : withImages.postings()) assertTrue(p.has(Posting.HAS_IMAGE), p.toString());
            s.writer().add(withImages);
            s.writer().flush();
            assertEquals(images, s.metadata().images(m.urlHash()));
            // a page indexed before images were kept, or without images, has none (and its postings no flag)
            IndexedDocument plain = PostingFactory.build(m, text);
            for (Posting p : plain.postings()) assertFalse(p.has(Posting.HAS_IMAGE));
            s.writer().add(plain);
            s.writer().flush();
            assertEquals(List.of(), s.metadata().images(m.urlHash()), "a re-index replaces the images");
            s.writer().add(withImages);
            s.writer().flush();
            s.metadata().delete(m.urlHash());
            assertEquals(List.of(), s.metadata().images(m.urlHash()), "a delete removes them");
        }
    }

    /**
     * A flush of many documents goes to LevelDB in several writes (reads get the engine's lock in between), and
     * after every one of them each document is either wholly in the store (metadata and every posting) or not at all.
     */
    @Test
    void aLargeFlushIsWrittenInPartsThatNeverSplitADocument() {
        List<IndexedDocument> docs = new java.util.ArrayList<>();
        for (int i = 0; i < 300; i++) docs.add(TestPostings.document(i));
        List<Integer> writes = new java.util.ArrayList<>();
        List<String> torn = new java.util.ArrayList<>();
        try (LevelDbStore level = LevelDbStore.open(dir.resolve("db"), 8 << 20)) {
            PeerStorage[] storage = new PeerStorage[1];
            KeyValueStore recording = new KeyValueStore() {
                public java.util.Optional<byte[]> get(byte[] key) {
                    return level.get(key);
                }

                public void put(byte[] key, byte[] value) {
                    level.put(key, value);
                }

                public void delete(byte[] key) {
                    level.delete(key);
                }

                public void write(Batch batch, boolean sync) {
                    level.write(batch, sync);
                    if (storage[0] == null) return; // the store's layout stamp, written as it opens
                    writes.add(batch.size());
                    for (IndexedDocument d : docs) {
                        UrlHash h = d.metadata().urlHash();
                        if (storage[0].metadata().get(h).isEmpty()) continue;
                        if (storage[0].rwi().wordsOf(h).size() != d.postings().size()) torn.add(h.value());
                    }
                }

                public Cursor scan(byte[] from, byte[] to) {
                    return level.scan(from, to);
                }

                public long approximateSize() {
                    return level.approximateSize();
                }

                public void close() {
                }

                public Batch newBatch() {
                    return level.newBatch();
                }

                public Batch newQuietBatch() {
                    return level.newQuietBatch();
                }

                public <T> T exclusive(java.util.function.Supplier<T> work) {
                    return level.exclusive(work);
                }
            };
            storage[0] = new PeerStorage(recording, new Partitions(4), 1L << 30, false);
            for (IndexedDocument d : docs) storage[0].writer().add(d);
            storage[0].writer().flush();
            assertTrue(writes.size() > 1, "one flush, several writes: " + writes);
            int perDoc = docs.stream().mapToInt(d -> d.postings().size() * 2 + 2).max().orElseThrow();
            for (int n : writes) assertTrue(n < IndexWriter.MAX_ENTRIES_PER_WRITE + perDoc, "write of " + n);
            assertEquals(List.of(), torn, "documents half written");
            assertEquals(300, storage[0].rwi().count(WordHash.of("manual")));
            assertEquals(300, storage[0].stats().documents());
        }
    }
}
