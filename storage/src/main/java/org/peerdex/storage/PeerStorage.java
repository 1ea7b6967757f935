package org.peerdex.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.blacklist.Blacklist;
import org.peerdex.storage.index.IndexStats;
import org.peerdex.storage.index.IndexWriter;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.kv.LevelDbStore;
import org.peerdex.storage.kv.MemoryStore;
import org.peerdex.storage.meta.UrlMetadataStore;
import org.peerdex.storage.rwi.PostingFolder;
import org.peerdex.storage.rwi.ReverseWordIndex;

/** Everything a peer keeps on disk, over one key-value store: RWI, URL metadata, settings. */
public final class PeerStorage implements AutoCloseable {
    private final KeyValueStore store;
    private final ReverseWordIndex rwi;
    private final UrlMetadataStore metadata;
    private final IndexWriter writer;
    private final IndexStats stats = new IndexStats();
    private final Blacklist blacklist;
    /** Folds fresh postings into blocks in the background on disk; null in memory (whoever wants blocks folds) */
    private final PostingFolder folder;

    public PeerStorage(KeyValueStore store, Partitions partitions, long writeBufferBytes, boolean syncWrites) {
        this.store = store;
        try {
            StoreLayout.check(store);
        } catch (RuntimeException e) {
            store.close(); // refused: its lock is not kept
            throw e;
        }
        this.rwi = new ReverseWordIndex(store, partitions);
        this.metadata = new UrlMetadataStore(store);
        this.writer = new IndexWriter(store, rwi, metadata, stats, writeBufferBytes, syncWrites);
        stats.set(metadata.count(), rwi.totalPostings());
        this.blacklist = new Blacklist(store);
        this.folder = store instanceof LevelDbStore ? PostingFolder.start(rwi, stats::postings) : null;
    }

    /** Opens (or creates) the LevelDB store under {@code dataDir/index}. */
    public static PeerStorage openLevelDb(Path dataDir, Partitions partitions) {
        return new PeerStorage(LevelDbStore.open(dataDir.resolve("index"), 32L << 20), partitions, 8L << 20, false);
    }

    public static PeerStorage inMemory(Partitions partitions) {
        return new PeerStorage(new MemoryStore(), partitions, 8L << 20, false);
    }

    public KeyValueStore store() {
        return store;
    }

    public ReverseWordIndex rwi() {
        return rwi;
    }

    public UrlMetadataStore metadata() {
        return metadata;
    }

    public IndexWriter writer() {
        return writer;
    }

    public IndexStats stats() {
        return stats;
    }

    /** The blacklist every part of the peer consults (crawler, DHT, search, proxy). */
    public Blacklist blacklist() {
        return blacklist;
    }

    public Optional<String> setting(String name) {
        return store.get(settingKey(name)).map(b -> new String(b, StandardCharsets.UTF_8));
    }

    public void putSetting(String name, String value) {
        KeyValueStore.Batch b = store.newBatch();
        b.put(settingKey(name), value.getBytes(StandardCharsets.UTF_8));
        store.write(b, true);
    }

    private static byte[] settingKey(String name) {
        return Keys.of(Keyspace.SETTINGS, name.getBytes(StandardCharsets.UTF_8));
    }

    /** How folding fresh postings into blocks goes: for the status page (a migration from layout 1 shows here). */
    public record FoldStatus(int layout, boolean folding, long foldedPostings, long freshWritesSinceRound) {}

    public FoldStatus foldStatus() {
        return new FoldStatus(StoreLayout.CURRENT, rwi.folding(), rwi.foldedEntries(),
                rwi.freshWrites());
    }

    /** Fresh postings folded into blocks since this storage opened (in memory only by explicit folds). */
    public long foldedPostings() {
        return rwi.foldedEntries();
    }

    @Override
    public void close() {
        try {
            if (folder != null) folder.close();
            writer.flush();
        } finally {
            store.close();
        }
    }
}
