package org.peerdex.storage.kv;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/** An in-memory engine with the same ordering as LevelDB, for simulations at scale and fast tests. */
public final class MemoryStore implements KeyValueStore {
    private final ConcurrentSkipListMap<byte[], byte[]> map = new ConcurrentSkipListMap<>(Keys::compare);
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong indexGeneration = new AtomicLong();
    private final IndexObservers observers = new IndexObservers();

    @Override
    public Optional<byte[]> get(byte[] key) {
        return Optional.ofNullable(map.get(key));
    }

    @Override
    public synchronized void put(byte[] key, byte[] value) {
        // keep copies, as LevelDB does: a caller may reuse its arrays
        putOwned(key.clone(), value.clone(), true);
    }

    /** Stores arrays nobody else holds (a batch's copies). */
    private void putOwned(byte[] key, byte[] value, boolean observed) {
        byte[] old = map.put(key, value);
        if (observed) observers.written(key, value);
        // after the write: a reader that saw the old generation rebuilds later, never keeps a stale copy
        if (KeyValueStore.isIndexKey(key)) indexGeneration.incrementAndGet();
        bytes.addAndGet(value.length + (old == null ? key.length : -old.length));
    }

    @Override
    public synchronized void delete(byte[] key) {
        delete(key, true);
    }

    private void delete(byte[] key, boolean observed) {
        byte[] old = map.remove(key);
        if (old != null && observed) observers.written(key, null);
        if (old != null && KeyValueStore.isIndexKey(key)) indexGeneration.incrementAndGet();
        if (old != null) bytes.addAndGet(-(key.length + old.length));
    }

    @Override
    public Batch newBatch() {
        return new MemBatch(true);
    }

    @Override
    public Batch newQuietBatch() {
        return new MemBatch(false);
    }

    @Override
    public synchronized void write(Batch batch, boolean sync) {
        MemBatch b = (MemBatch) batch;
        for (Op op : b.ops) {
            if (op.value == null) delete(op.key, b.observed);
            else putOwned(op.key, op.value, b.observed);
        }
    }

    @Override
    public synchronized <T> T exclusive(java.util.function.Supplier<T> work) {
        return work.get();
    }

    @Override
    public Cursor scan(byte[] from, byte[] to) {
        NavigableMap<byte[], byte[]> view = to == null ? map.tailMap(from, true)
                : Keys.compare(from, to) >= 0 ? Collections.emptyNavigableMap()
                : map.subMap(from, true, to, false);
        return new Cursor() {
            Iterator<Map.Entry<byte[], byte[]>> it = view.entrySet().iterator();
            Map.Entry<byte[], byte[]> e;

            @Override
            public boolean next() {
                if (!it.hasNext()) return false;
                e = it.next();
                return true;
            }

            @Override
            public void seek(byte[] key) {
                if (Keys.compare(key, from) <= 0) it = view.entrySet().iterator();
                else if (to != null && Keys.compare(key, to) >= 0) it = Collections.emptyIterator();
                else it = view.tailMap(key, true).entrySet().iterator();
            }

            @Override
            public byte[] key() {
                return e.getKey();
            }

            @Override
            public byte[] value() {
                return e.getValue();
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public synchronized boolean addIndexObserver(IndexObserver o) {
        observers.add(o);
        return true;
    }

    @Override
    public synchronized void removeIndexObserver(IndexObserver o) {
        observers.remove(o);
    }

    @Override
    public long indexGeneration() {
        return indexGeneration.get();
    }

    @Override
    public long approximateSize() {
        return bytes.get();
    }

    @Override
    public void close() {}

    private record Op(byte[] key, byte[] value) {}

    private static final class MemBatch implements Batch {
        final List<Op> ops = new ArrayList<>();
        final boolean observed;

        MemBatch(boolean observed) {
            this.observed = observed;
        }

        @Override
        public Batch put(byte[] key, byte[] value) {
            ops.add(new Op(key.clone(), value.clone()));
            return this;
        }

        @Override
        public Batch delete(byte[] key) {
            ops.add(new Op(key.clone(), null));
            return this;
        }

        @Override
        public int size() {
            return ops.size();
        }
    }
}
