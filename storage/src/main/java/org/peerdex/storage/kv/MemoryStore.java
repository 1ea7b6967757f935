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
        putOwned(key.clone(), value.clone());
    }

    /** Stores arrays nobody else holds (a batch's copies). */
    private void putOwned(byte[] key, byte[] value) {
        byte[] old = map.put(key, value);
        observers.written(key, value);
        // after the write: a reader that saw the old generation rebuilds later, never keeps a stale copy
        if (KeyValueStore.isIndexKey(key)) indexGeneration.incrementAndGet();
        bytes.addAndGet(value.length + (old == null ? key.length : -old.length));
    }

    @Override
    public synchronized void delete(byte[] key) {
        byte[] old = map.remove(key);
        if (old != null) observers.written(key, null);
        if (old != null && KeyValueStore.isIndexKey(key)) indexGeneration.incrementAndGet();
        if (old != null) bytes.addAndGet(-(key.length + old.length));
    }

    @Override
    public Batch newBatch() {
        return new MemBatch();
    }

    @Override
    public synchronized void write(Batch batch, boolean sync) {
        for (Op op : ((MemBatch) batch).ops) {
            if (op.value == null) delete(op.key);
            else putOwned(op.key, op.value);
        }
    }

    @Override
    public Cursor scan(byte[] from, byte[] to) {
        NavigableMap<byte[], byte[]> view = to == null ? map.tailMap(from, true)
                : Keys.compare(from, to) >= 0 ? Collections.emptyNavigableMap()
                : map.subMap(from, true, to, false);
        Iterator<Map.Entry<byte[], byte[]>> it = view.entrySet().iterator();
        return new Cursor() {
            Map.Entry<byte[], byte[]> e;

            @Override
            public boolean next() {
                if (!it.hasNext()) return false;
                e = it.next();
                return true;
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
