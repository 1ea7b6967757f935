package org.peerdex.actors.dht;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.meta.Cbor;
import org.peerdex.storage.meta.UrlMetadata;

/**
 * The Replicator's durable outbox ({@code Keyspace.OUTBOX}): a batch owed to a target peer stays here until the
 * target acknowledges a durable write, so a crash of the sender loses no replication it had promised.
 * Blocking (LevelDB): call it on the index dispatcher.
 */
public final class Outbox {
    private final KeyValueStore store;

    public Outbox(KeyValueStore store) {
        this.store = store;
    }

    /**
     * One batch for one target.
     *
     * @param purpose "replicate", "handoff" or "repair"
     */
    public record Entry(long id, String target, int count, byte[] postings, List<UrlMetadata> metadata,
                        String purpose) {
        public Entry {
            metadata = metadata == null ? List.of() : List.copyOf(metadata);
        }

        public PostingPack pack() {
            return new PostingPack(count, postings);
        }
    }

    private static byte[] key(long id) {
        return Keys.of(Keyspace.OUTBOX, ByteBuffer.allocate(8).putLong(id).array());
    }

    public void putAll(List<Entry> entries) {
        if (entries.isEmpty()) return;
        KeyValueStore.Batch b = store.newBatch();
        for (Entry e : entries) b.put(key(e.id()), Cbor.write(e));
        store.write(b, false);
    }

    public void delete(long id) {
        store.delete(key(id));
    }

    public List<Entry> loadAll() {
        List<Entry> out = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.OUTBOX})) {
            while (c.next()) out.add(Cbor.read(c.value(), Entry.class));
        }
        return out;
    }
}
