package org.peerdex.actors.dht.replication;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.peerdex.actors.dht.shard.PostingPack;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.meta.Cbor;
import org.peerdex.storage.meta.UrlMetadata;

/**
 * The Replicator's durable outbox ({@code Keyspace.OUTBOX}): a batch owed to a target peer stays here until the
 * target acknowledges a durable write, so a crash of the sender loses no replication it had promised. The store
 * is the truth; the Replicator holds only a bounded window of it in heap and reads the next batches (in id order)
 * as the window drains. Blocking (LevelDB): call it on the index dispatcher.
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

    /** One stored batch and its encoded size (what holding it in heap costs, roughly). */
    public record Stored(Entry entry, int bytes) {}

    /** Batches read in id order; {@code end} if the scan reached the last, else the next starts at {@code nextId}. */
    public record Window(List<Stored> entries, long nextId, boolean end) {}

    /** How many batches, and postings in them, the store holds. */
    public record Totals(long entries, long postings) {}

    /** Writes the batches in one atomic write; returns their encoded sizes, in the same order. */
    public List<Stored> putAll(List<Entry> entries) {
        if (entries.isEmpty()) return List.of();
        List<Stored> out = new ArrayList<>(entries.size());
        KeyValueStore.Batch b = store.newBatch();
        for (Entry e : entries) {
            byte[] value = Cbor.write(e);
            b.put(key(e.id()), value);
            out.add(new Stored(e, value.length));
        }
        store.write(b, false);
        return out;
    }

    public void delete(long id) {
        store.delete(key(id));
    }

    /**
     * The batches with ids from {@code fromId} on, in id order, leaving out {@code skip}, until about
     * {@code maxBytes} are read (at least one batch, if there is one).
     */
    public Window load(long fromId, long maxBytes, Set<Long> skip) {
        List<Stored> out = new ArrayList<>();
        long bytes = 0;
        byte[] end = Keys.prefixEnd(new byte[] {Keyspace.OUTBOX});
        try (KeyValueStore.Cursor c = store.scan(key(Math.max(0, fromId)), end)) {
            while (c.next()) {
                long id = ByteBuffer.wrap(c.key(), 1, 8).getLong();
                if (skip.contains(id)) continue;
                if (!out.isEmpty() && bytes + c.value().length > maxBytes) return new Window(out, id, false);
                out.add(new Stored(Cbor.read(c.value(), Entry.class), c.value().length));
                bytes += c.value().length;
            }
        }
        return new Window(out, Long.MAX_VALUE, true);
    }

    /** Counts the stored batches with ids below {@code beforeId} (those of earlier runs), and their postings. */
    public Totals totals(long beforeId) {
        long entries = 0;
        long postings = 0;
        try (KeyValueStore.Cursor c = store.scan(new byte[] {Keyspace.OUTBOX}, key(beforeId))) {
            while (c.next()) {
                entries++;
                postings += Cbor.read(c.value(), Entry.class).count();
            }
        }
        return new Totals(entries, postings);
    }

    /** Every stored batch (tests and tools; the Replicator reads a window at a time). */
    public List<Entry> loadAll() {
        List<Entry> out = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.OUTBOX})) {
            while (c.next()) out.add(Cbor.read(c.value(), Entry.class));
        }
        return out;
    }
}
