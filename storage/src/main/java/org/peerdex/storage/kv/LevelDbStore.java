package org.peerdex.storage.kv;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.UnaryOperator;
import org.iq80.leveldb.CompressionType;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBFactory;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.WriteBatch;
import org.iq80.leveldb.WriteOptions;
import org.iq80.leveldb.impl.Iq80DBFactory;

/**
 * The node's engine: iq80 LevelDB (pure Java). LevelDB appends every write to its log before applying it, so a
 * write that returned survives kill -9 of the process; {@code sync} additionally forces it to the disk.
 * A lock file in the directory keeps a second peer out with a clear message.
 */
public final class LevelDbStore implements KeyValueStore {
    static {
        // iq80 maps table files into memory by default on 64-bit JVMs and unmaps them when the table cache evicts
        // or compaction deletes them, while an iterator on another thread may still read the mapping: the JVM then
        // dies with SIGSEGV in ByteBuffer.get (seen under a 5-peer replication load). Plain file channel reads are
        // safe; the switch must be set before Iq80DBFactory is loaded. An operator can still choose -Dleveldb.mmap.
        if (System.getProperty("leveldb.mmap") == null) System.setProperty("leveldb.mmap", "false");
    }

    private volatile DB db;
    /** Set by a failed write: iq80 may have left half a record in its log, so it is reopened before the next write. */
    private volatile boolean broken;
    private final ReentrantReadWriteLock reopenLock = new ReentrantReadWriteLock();
    private DBFactory factory;
    private Options options;
    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private volatile boolean closed;
    private final AtomicLong indexGeneration = new AtomicLong();
    private final IndexObservers observers = new IndexObservers();
    private final SpaceGuard space;

    private LevelDbStore(Path dir, DB db, FileChannel lockChannel, FileLock lock) {
        this.dir = dir;
        this.db = db;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.space = new SpaceGuard(dir);
    }

    /** Thrown when another process (or store) already holds the directory. */
    public static final class StoreInUseException extends RuntimeException {
        public StoreInUseException(Path dir) {
            super("the index directory " + dir + " is in use by another peer");
        }
    }

    static {
        // iq80 writes its log through a memory-mapped file by default; on a full disk that write is a SIGBUS, which
        // the JVM turns into an InternalError that kills the peer (docs/reliability.md, disk full). Plain file
        // channel writes fail with an IOException instead. Set -Dleveldb.mmap=true to get the mapped writer back.
        if (System.getProperty("leveldb.mmap") == null) System.setProperty("leveldb.mmap", "false");
    }

    /**
     * Opens (or creates) the store with iq80, the pure-Java LevelDB, its tables uncompressed; with
     * {@code -Dpeerdex.storage.compression=snappy} new tables are compressed with the pure-Java Snappy (a block names
     * its own compression, so a store reads either way). iq80 keeps no block cache and decompresses a table block on
     * every read: at 100,000 documents Snappy made the live store 0.75x the size but the import 1.4x and local queries
     * 1.3-2.1x as slow (docs/benchmarks.md), so it is off by default.
     */
    public static LevelDbStore open(Path dir, long cacheBytes) {
        CompressionType compression = "snappy".equals(System.getProperty("peerdex.storage.compression"))
                ? CompressionType.SNAPPY : CompressionType.NONE;
        return open(dir, cacheBytes, Iq80DBFactory.factory, compression);
    }

    /**
     * Opens the store with another engine of the same API, such as leveldbjni's {@code JniDBFactory.factory}
     * (the benchmark compares both).
     */
    public static LevelDbStore open(Path dir, long cacheBytes, DBFactory factory, CompressionType compression) {
        return open(dir, cacheBytes, factory, compression, o -> o);
    }

    /** Opens the store with iq80, uncompressed, its options changed by {@code tune} (tests: small write buffers,
     * few open files). Naming iq80's factory here, after this class has set {@code leveldb.mmap}, keeps a caller from
     * loading the factory first with mapped tables. */
    public static LevelDbStore open(Path dir, long cacheBytes, UnaryOperator<Options> tune) {
        return open(dir, cacheBytes, Iq80DBFactory.factory, CompressionType.NONE, tune);
    }

    /** As above, with the engine's options changed by {@code tune}. */
    static LevelDbStore open(Path dir, long cacheBytes, DBFactory factory, CompressionType compression,
                             UnaryOperator<Options> tune) {
        if (factory == Iq80DBFactory.factory) DescriptorWatch.ensureStarted();
        try {
            Files.createDirectories(dir);
            FileChannel ch = FileChannel.open(dir.resolve("peerdex.lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                ch.close();
                throw new StoreInUseException(dir);
            }
            Options options = new Options().createIfMissing(true).compressionType(compression)
                    .cacheSize(cacheBytes).writeBufferSize(16 << 20).paranoidChecks(false);
            options = tune.apply(options);
            DB db;
            try {
                db = factory.open(new File(dir.toFile(), "leveldb"), options);
            } catch (IOException | RuntimeException e) {
                lock.release();
                ch.close();
                throw e;
            }
            LevelDbStore store = new LevelDbStore(dir, db, ch, lock);
            store.factory = factory;
            store.options = options;
            return store;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open LevelDB in " + dir + ": " + e.getMessage(), e);
        }
    }

    public Path directory() {
        return dir;
    }

    @Override
    public Optional<byte[]> get(byte[] key) {
        ensureOpen();
        for (int attempt = 1; ; attempt++) {
            try {
                return Optional.ofNullable(db.get(key));
            } catch (RuntimeException e) {
                if (closed) throw closedError(e);
                if (attempt >= 3 || !isRacedTable(e)) throw e;
            }
        }
    }

    /**
     * iq80 can read through a table a concurrent compaction has just deleted ("Could not open table", dain/leveldb
     * issue 78, seen here at ~150,000 documents in IndexingMemoryBenchmark); a retry reads the current version.
     */
    static boolean isRacedTable(RuntimeException e) {
        return e.getMessage() != null && e.getMessage().startsWith("Could not open table");
    }

    @Override
    public void put(byte[] key, byte[] value) {
        // iq80 keeps the caller's arrays in its memtable: copy, so that a reused array cannot change stored data
        long bytes = key.length + value.length + RECORD_OVERHEAD;
        if (!KeyValueStore.isObservedKey(key)) {
            guardedWrite(bytes, () -> db.put(key.clone(), value.clone()));
        } else {
            byte[] k = key.clone();
            byte[] v = value.clone();
            // observers see the writes in the order they were applied
            synchronized (observers) {
                guardedWrite(bytes, () -> db.put(k, v));
                observers.written(k, v);
            }
        }
        if (KeyValueStore.isIndexKey(key)) indexGeneration.incrementAndGet();
    }

    @Override
    public void delete(byte[] key) {
        long bytes = key.length + RECORD_OVERHEAD;
        if (!KeyValueStore.isObservedKey(key)) {
            guardedWrite(bytes, () -> db.delete(key));
        } else {
            byte[] k = key.clone();
            synchronized (observers) {
                guardedWrite(bytes, () -> db.delete(k));
                observers.written(k, null);
            }
        }
        if (KeyValueStore.isIndexKey(key)) indexGeneration.incrementAndGet();
    }

    /**
     * Runs a write; a failure (a full disk, typically) marks the store broken, and the next write first reopens
     * LevelDB, whose recovery drops the half-written record at the log's end. Without the reopen, iq80 would append
     * after the torn record, and recovery would later discard everything after it, acknowledged writes included.
     */
    private void guardedWrite(long bytes, Runnable write) {
        ensureOpen();
        if (broken) reopen();
        // refused before iq80 sees it: on a nearly full disk its log writer can store half a record and return
        space.check(bytes);
        reopenLock.readLock().lock();
        try {
            write.run();
        } catch (RuntimeException | Error e) {
            if (closed) throw closedError(e);
            broken = true;
            throw e;
        } finally {
            reopenLock.readLock().unlock();
        }
    }

    /** Closes and reopens the database (when space has returned it recovers; otherwise this throws). */
    private void reopen() {
        reopenLock.writeLock().lock();
        try {
            if (!broken || closed) return;
            // recovery replays the log into a new table, so it needs about the log's size free; closing first and
            // failing to open would leave reads (searches, the crawl frontier) on a closed instance
            long need = logBytes() + (1 << 20);
            long free = dir.toFile().getUsableSpace();
            if (free < need) {
                throw new UncheckedIOException(new IOException("No space left on device: " + free + " bytes free in "
                        + dir + ", reopening LevelDB after the failed write needs about " + need));
            }
            try {
                db.close();
            } catch (IOException | RuntimeException ignored) {
                // the old instance is unusable anyway
            }
            try {
                db = factory.open(new File(dir.toFile(), "leveldb"), options);
                broken = false;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot reopen LevelDB in " + dir + " after a failed write: "
                        + e.getMessage(), e);
            }
        } finally {
            reopenLock.writeLock().unlock();
        }
    }

    private long logBytes() {
        File[] logs = new File(dir.toFile(), "leveldb").listFiles((d, n) -> n.endsWith(".log"));
        long sum = 0;
        if (logs != null) for (File f : logs) sum += f.length();
        return sum;
    }

    @Override
    public Batch newBatch() {
        ensureOpen();
        return new LevelBatch(db.createWriteBatch(), true);
    }

    /**
     * LevelDB's manual compaction: the memtable to a table, then the range compacted level by level down to the
     * last, where a delete meets what it deletes and both go. iq80 leaves {@code DB.compactRange} unimplemented but
     * has the per-level step (the one LevelDB's own CompactRange loops over); another engine gets its own call.
     */
    @Override
    public void compact(byte[] from, byte[] to) {
        reopenLock.readLock().lock();
        try {
            if (db instanceof org.iq80.leveldb.impl.DbImpl iq80) {
                iq80.flushMemTable();
                for (int level = 0; level < org.iq80.leveldb.impl.DbConstants.NUM_LEVELS - 1; level++) {
                    iq80.compactRange(level, new org.iq80.leveldb.util.Slice(from), new org.iq80.leveldb.util.Slice(to));
                }
            } else {
                db.compactRange(from, to);
            }
        } finally {
            reopenLock.readLock().unlock();
        }
    }

    /**
     * Writes every entry, in key order, into a new store at {@code target} with this store's engine and options, and
     * closes it: the size this store reaches once compaction has dropped every deleted and overwritten entry. For
     * benchmarks that report the steady size on disk (iq80 cannot compact a key range on demand). Returns the entries
     * copied.
     */
    public long copyTo(Path target) {
        long n = 0;
        try (LevelDbStore copy = open(target, 8L << 20, factory, options.compressionType());
             Cursor c = scan(new byte[0], null)) {
            Batch b = copy.newQuietBatch();
            while (c.next()) {
                b.put(c.key(), c.value());
                if (++n % 10_000 == 0) {
                    copy.write(b, false);
                    b = copy.newQuietBatch();
                }
            }
            copy.write(b, true);
        }
        return n;
    }

    @Override
    public Batch newQuietBatch() {
        ensureOpen();
        return new LevelBatch(db.createWriteBatch(), false);
    }

    /** Every write of an observed key (postings, URL metadata) holds the observers' monitor; so does this. */
    @Override
    public <T> T exclusive(java.util.function.Supplier<T> work) {
        synchronized (observers) {
            return work.get();
        }
    }

    @Override
    public void write(Batch batch, boolean sync) {
        LevelBatch b = (LevelBatch) batch;
        try {
            if (b.observed == null && !b.exclusive) {
                guardedWrite(b.bytes, () -> db.write(b.batch, new WriteOptions().sync(sync)));
            } else {
                synchronized (observers) {
                    guardedWrite(b.bytes, () -> db.write(b.batch, new WriteOptions().sync(sync)));
                    if (b.observed != null) {
                        for (int i = 0; i < b.observed.size(); i += 2) observers.written(b.observed.get(i), b.observed.get(i + 1));
                    }
                }
            }
            if (b.touchesIndex) indexGeneration.incrementAndGet();
        } finally {
            try {
                b.batch.close();
            } catch (IOException ignored) {
                // an in-memory batch; nothing to release
            }
        }
    }

    @Override
    public Cursor scan(byte[] from, byte[] to) {
        ensureOpen();
        DBIterator it = seek(from);
        return new Cursor() {
            byte[] k;
            byte[] v;
            /** Bytes read since the descriptor count was last looked at (see DescriptorWatch). */
            long sinceCheck;

            @Override
            public boolean next() {
                Map.Entry<byte[], byte[]> e;
                try {
                    if (!it.hasNext()) return false;
                    e = it.next();
                } catch (RuntimeException x) {
                    if (closed) throw closedError(x);
                    throw x;
                }
                if (to != null && Keys.compare(e.getKey(), to) >= 0) return false;
                k = e.getKey();
                v = e.getValue();
                sinceCheck += k.length + v.length;
                DescriptorWatch watch = DescriptorWatch.process();
                if (sinceCheck >= watch.scanBytes()) {
                    sinceCheck = 0;
                    watch.check();
                }
                return true;
            }

            @Override
            public void seek(byte[] key) {
                it.seek(key);
            }

            @Override
            public byte[] key() {
                return k;
            }

            @Override
            public byte[] value() {
                return v;
            }

            @Override
            public void close() {
                try {
                    it.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }

    private DBIterator seek(byte[] from) {
        for (int attempt = 1; ; attempt++) {
            DBIterator it = db.iterator();
            try {
                it.seek(from);
                return it;
            } catch (RuntimeException e) {
                try {
                    it.close();
                } catch (IOException | RuntimeException ignored) {
                    // a failed iterator
                }
                if (closed) throw closedError(e);
                if (attempt >= 3 || !isRacedTable(e)) throw e;
            }
        }
    }

    private void ensureOpen() {
        if (closed) throw closedError(null);
    }

    /**
     * What a read or write of a closed store gets (the peer is shutting down while a scan or a write was still on
     * its way): a clear message instead of whatever the closed engine throws.
     */
    private IllegalStateException closedError(Throwable cause) {
        return new IllegalStateException("the index in " + dir + " is closed (the peer is shutting down): nothing "
                + "was read or written", cause);
    }

    @Override
    public boolean addIndexObserver(IndexObserver o) {
        synchronized (observers) {
            observers.add(o);
        }
        return true;
    }

    @Override
    public void removeIndexObserver(IndexObserver o) {
        synchronized (observers) {
            observers.remove(o);
        }
    }

    @Override
    public long indexGeneration() {
        return indexGeneration.get();
    }

    @Override
    public long approximateSize() {
        try (var files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        } catch (IOException e) {
            return -1;
        }
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        try {
            db.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            try {
                lock.release();
                lockChannel.close();
            } catch (IOException ignored) {
                // the OS drops the lock with the process anyway
            }
        }
    }

    /** Per entry in the log: its type byte, two length varints, and a share of the record's chunk headers. */
    private static final int RECORD_OVERHEAD = 16;

    /**
     * Refuses a write, with "No space left on device", while less than {@link #RESERVE} would be left free after it.
     *
     * <p>Why: iq80's {@code FileChannelLogWriter} ignores what {@code FileChannel.write} returns. On a disk with a
     * few KiB left, Linux writes part of a record and reports the shorter length, not an error, so iq80 acknowledges
     * a torn record; the next write fails, and recovery drops the torn record: an acknowledged write is lost
     * (measured on a full 4 MiB tmpfs: 20 of 21 acknowledged frontier entries gone after the reopen,
     * {@code FrontierDiskFullTest}). Keeping a reserve means the log is never written into the last bytes of the
     * disk. Free space is measured once a second while plenty is left, and before every write once it is low.
     * Another process that fills more than the reserve between a measurement and a write can still cause the loss.
     */
    static final class SpaceGuard {
        static final long RESERVE = 1L << 20;
        static final long LOW = 64L << 20;
        private final File dir;
        private long free;
        private long written;
        private long measuredAt;

        SpaceGuard(Path dir) {
            this.dir = dir.toFile();
            free = this.dir.getUsableSpace();
            measuredAt = System.nanoTime();
        }

        synchronized void check(long bytes) {
            long now = System.nanoTime();
            if (free - written - bytes < LOW || now - measuredAt >= 1_000_000_000L) {
                free = dir.getUsableSpace();
                measuredAt = now;
                written = 0;
            }
            if (free - written - bytes < RESERVE) {
                throw new UncheckedIOException(new IOException("No space left on device: " + (free - written)
                        + " bytes free in " + dir + ", and the store keeps " + RESERVE + " in reserve"));
            }
            written += bytes;
        }
    }

    private static final class LevelBatch implements Batch {
        final WriteBatch batch;
        int size;
        /** About what the batch adds to the log: its keys and values, and a little for each entry's framing. */
        long bytes = 12;
        boolean touchesIndex;
        /** key, value (null: delete), key, value, ... of the postings and metadata written, for the observers */
        List<byte[]> observed;
        /** Seen by observers; false for a quiet batch */
        final boolean observing;
        /** Writes an observed key, so it waits for {@link #exclusive} work like every posting write */
        boolean exclusive;

        LevelBatch(WriteBatch batch, boolean observing) {
            this.batch = batch;
            this.observing = observing;
        }

        @Override
        public Batch put(byte[] key, byte[] value) {
            byte[] k = key.clone();
            byte[] v = value.clone();
            batch.put(k, v);
            size++;
            bytes += k.length + v.length + RECORD_OVERHEAD;
            touchesIndex |= KeyValueStore.isIndexKey(key);
            observe(k, v);
            return this;
        }

        @Override
        public Batch delete(byte[] key) {
            byte[] k = key.clone();
            batch.delete(k);
            size++;
            bytes += k.length + RECORD_OVERHEAD;
            touchesIndex |= KeyValueStore.isIndexKey(key);
            observe(k, null);
            return this;
        }

        private void observe(byte[] key, byte[] value) {
            if (!KeyValueStore.isObservedKey(key)) return;
            exclusive = true;
            if (!observing) return;
            if (observed == null) observed = new ArrayList<>();
            observed.add(key);
            observed.add(value);
        }

        @Override
        public int size() {
            return size;
        }
    }
}
