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
import java.util.Map;
import java.util.Optional;
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

    private final DB db;
    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private volatile boolean closed;

    private LevelDbStore(Path dir, DB db, FileChannel lockChannel, FileLock lock) {
        this.dir = dir;
        this.db = db;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /** Thrown when another process (or store) already holds the directory. */
    public static final class StoreInUseException extends RuntimeException {
        public StoreInUseException(Path dir) {
            super("the index directory " + dir + " is in use by another peer");
        }
    }

    /** Opens (or creates) the store with iq80, the pure-Java LevelDB (no compression: no Snappy jar needed). */
    public static LevelDbStore open(Path dir, long cacheBytes) {
        return open(dir, cacheBytes, Iq80DBFactory.factory, CompressionType.NONE);
    }

    /**
     * Opens the store with another engine of the same API, such as leveldbjni's {@code JniDBFactory.factory}
     * (the benchmark compares both).
     */
    public static LevelDbStore open(Path dir, long cacheBytes, DBFactory factory, CompressionType compression) {
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
            DB db;
            try {
                db = factory.open(new File(dir.toFile(), "leveldb"), options);
            } catch (IOException | RuntimeException e) {
                lock.release();
                ch.close();
                throw e;
            }
            return new LevelDbStore(dir, db, ch, lock);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open LevelDB in " + dir + ": " + e.getMessage(), e);
        }
    }

    public Path directory() {
        return dir;
    }

    @Override
    public Optional<byte[]> get(byte[] key) {
        return Optional.ofNullable(db.get(key));
    }

    @Override
    public void put(byte[] key, byte[] value) {
        // iq80 keeps the caller's arrays in its memtable: copy, so that a reused array cannot change stored data
        db.put(key.clone(), value.clone());
    }

    @Override
    public void delete(byte[] key) {
        db.delete(key);
    }

    @Override
    public Batch newBatch() {
        return new LevelBatch(db.createWriteBatch());
    }

    @Override
    public void write(Batch batch, boolean sync) {
        LevelBatch b = (LevelBatch) batch;
        try {
            db.write(b.batch, new WriteOptions().sync(sync));
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
        DBIterator it = db.iterator();
        it.seek(from);
        return new Cursor() {
            byte[] k;
            byte[] v;

            @Override
            public boolean next() {
                if (!it.hasNext()) return false;
                Map.Entry<byte[], byte[]> e = it.next();
                if (to != null && Keys.compare(e.getKey(), to) >= 0) return false;
                k = e.getKey();
                v = e.getValue();
                return true;
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

    private static final class LevelBatch implements Batch {
        final WriteBatch batch;
        int size;

        LevelBatch(WriteBatch batch) {
            this.batch = batch;
        }

        @Override
        public Batch put(byte[] key, byte[] value) {
            batch.put(key.clone(), value.clone());
            size++;
            return this;
        }

        @Override
        public Batch delete(byte[] key) {
            batch.delete(key.clone());
            size++;
            return this;
        }

        @Override
        public int size() {
            return size;
        }
    }
}
