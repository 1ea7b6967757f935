package org.peerdex.storage.kv;

import java.util.Optional;

/**
 * A sorted byte-key store: the one thing the index needs from an embedded database. Keys sort in unsigned byte
 * order; the store keeps its own copies of the arrays it is given.
 */
public interface KeyValueStore extends AutoCloseable {

    Optional<byte[]> get(byte[] key);

    void put(byte[] key, byte[] value);

    void delete(byte[] key);

    /** Applies a batch atomically. With {@code sync} the write is forced to disk before returning. */
    void write(Batch batch, boolean sync);

    /** Entries with {@code from <= key < to} in unsigned byte order; {@code to == null} means to the end. */
    Cursor scan(byte[] from, byte[] to);

    default Cursor scanPrefix(byte[] prefix) {
        return scan(prefix, Keys.prefixEnd(prefix));
    }

    /**
     * A counter that moves on every write touching index entries (postings, URL words or URL metadata), so a cache
     * derived from them knows when it is stale (the digest index follows writes through an IndexObserver instead);
     * -1 when the store does not count.
     */
    default long indexGeneration() {
        return -1;
    }

    /** True if a key names an index entry, which {@link #indexGeneration()} counts writes of. */
    static boolean isIndexKey(byte[] key) {
        return key.length > 0 && (key[0] == Keyspace.RWI || key[0] == Keyspace.URL_WORDS || key[0] == Keyspace.META
                || key[0] == Keyspace.LEARNED_META || key[0] == Keyspace.POSTING_BLOCKS);
    }

    /**
     * Sees every write of a posting ({@code 'r'} keys) or URL metadata ({@code 'm'} keys) after the store applied
     * it, in the order of the writes, so that a structure derived from the index (anti-entropy digests) can follow
     * it write by write instead of scanning again. Called on the writer's thread while the store holds its write
     * lock: it must be quick and must not write to the store. A posting written as {@link Keyspace#TOMBSTONE} is
     * seen as deleted; the writes of a {@link #newQuietBatch() quiet batch} (folding, which changes no posting) are
     * not seen.
     */
    interface IndexObserver {
        void put(byte[] key, byte[] value);

        void deleted(byte[] key);
    }

    /** Starts calling {@code o} on every later index write; false if this store cannot. */
    default boolean addIndexObserver(IndexObserver o) {
        return false;
    }

    default void removeIndexObserver(IndexObserver o) {}

    /** True for the keys an {@link IndexObserver} sees: postings and URL metadata. */
    static boolean isObservedKey(byte[] key) {
        return key.length > 0 && (key[0] == Keyspace.RWI || key[0] == Keyspace.META);
    }

    /**
     * Compacts the keys {@code from <= key < to} now: what deletes and overwrites left there is dropped, so iterators
     * no longer step over it (LevelDB's iterators skip deleted entries one by one until compaction removes them). A
     * store without such debris does nothing. Blocks while it works.
     */
    default void compact(byte[] from, byte[] to) {}

    /** Bytes on disk (or held in memory), approximately. */
    long approximateSize();

    @Override
    void close();

    /** A batch of puts and deletes. */
    interface Batch {
        Batch put(byte[] key, byte[] value);

        Batch delete(byte[] key);

        int size();
    }

    Batch newBatch();

    /**
     * A batch whose writes {@link IndexObserver}s do not see: for rewrites that leave every posting as it was (the
     * reverse word index folding fresh postings into blocks deletes the fresh entries it folded).
     */
    Batch newQuietBatch();

    /**
     * Runs {@code work} while no other thread can write a posting or URL metadata (the keys observers see); the
     * work may write itself. For read-modify-writes of postings that must not lose a concurrent write. Keep it short:
     * every writer of the index waits.
     */
    <T> T exclusive(java.util.function.Supplier<T> work);

    /** An iterator over entries that must be closed. */
    interface Cursor extends AutoCloseable {
        boolean next();

        /**
         * Moves so that the following {@link #next()} gives the first entry at or after {@code key} (still below
         * the cursor's end), reading the store as the cursor did before: cheaper than a new cursor, and consistent
         * with what it read so far.
         */
        void seek(byte[] key);

        byte[] key();

        byte[] value();

        @Override
        void close();
    }
}
