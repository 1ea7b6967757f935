package org.peerdex.storage.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory engine with the same ordering as LevelDB, for simulations at scale and fast tests.
 *
 * <p>Entries live in one packed run (every key and value back to back in one array, two int offsets an entry) and
 * a small skip list of recent writes that shadows it, deletes included; the skip list is merged into a new run
 * when it holds more than an eighth of the run (at least {@value #MIN_RECENT} entries). A skip-list entry costs
 * about 130 bytes beyond its key and value, a packed one 8, and a lookup in a run is a binary search over one
 * array instead of a chase through nodes spread over the heap: the simulator keeps tens of millions of entries in
 * hundreds of thousands of stores. A cursor reads the run and the skip list it was opened on: later writes show
 * while they stay in that skip list, a merge does not disturb it (a LevelDB iterator sees a snapshot, so readers
 * expect nothing more).
 */
public final class MemoryStore implements KeyValueStore {
    static final int MIN_RECENT = 32;
    /** marks a delete in the recent writes (compared by identity: stored values are always copies) */
    private static final byte[] DELETED = new byte[0];

    private final int minRecent;
    private volatile State state;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong indexGeneration = new AtomicLong();
    private final IndexObservers observers = new IndexObservers();

    public MemoryStore() {
        this(MIN_RECENT);
    }

    /** @param minRecent the fewest recent writes merged into the run at once (small values test the merge) */
    MemoryStore(int minRecent) {
        if (minRecent < 1) throw new IllegalArgumentException("minRecent >= 1");
        this.minRecent = minRecent;
        this.state = stateOf(Run.EMPTY);
    }

    /** @param recentKeys every key that went into {@code recent} (a get of any other skips the skip list) */
    private record State(Run run, ConcurrentSkipListMap<byte[], byte[]> recent, RecentKeyFilter recentKeys) {}

    /** A run with no recent writes yet, and a filter for as many as it takes before the next merge. */
    private State stateOf(Run run) {
        return new State(run, new ConcurrentSkipListMap<>(Keys::compare), new RecentKeyFilter(recentCapacity(run) + 1));
    }

    /** The most recent writes a run takes before they are merged into it. */
    private int recentCapacity(Run run) {
        return Math.max(minRecent, run.size() / 8);
    }

    @Override
    public Optional<byte[]> get(byte[] key) {
        State s = state;
        byte[] v = s.recentKeys.mayContain(key) ? s.recent.get(key) : null;
        if (v != null) return v == DELETED ? Optional.empty() : Optional.of(v);
        int i = s.run.find(key);
        return i < 0 ? Optional.empty() : Optional.of(s.run.value(i));
    }

    @Override
    public synchronized void put(byte[] key, byte[] value) {
        // keep copies, as LevelDB does: a caller may reuse its arrays
        putOwned(key.clone(), value.clone(), true);
    }

    /** Stores arrays nobody else holds (a batch's copies). */
    private void putOwned(byte[] key, byte[] value, boolean observed) {
        State s = state;
        s.recentKeys.add(key);
        byte[] previous = s.recent.put(key, value);
        int old = previous == DELETED ? -1 : previous != null ? previous.length : s.run.valueLength(s.run.find(key));
        written(key, value, old, observed);
        mergeIfFull();
    }

    @Override
    public synchronized void delete(byte[] key) {
        delete(key, true);
    }

    private void delete(byte[] key, boolean observed) {
        State s = state;
        int i = s.run.find(key);
        if (i >= 0) s.recentKeys.add(key);
        byte[] previous = i >= 0 ? s.recent.put(key.clone(), DELETED) : s.recent.remove(key);
        int old = previous == DELETED ? -1 : previous != null ? previous.length : s.run.valueLength(i);
        if (old < 0) return;
        written(key, null, old, observed);
        mergeIfFull();
    }

    /**
     * What a write tells beyond its entry: the observers, the index generation (after the write: a reader that saw
     * the old generation rebuilds later, never keeps a stale copy) and the size; {@code value} null for a delete,
     * {@code old} the length of the value it replaced (-1: none).
     */
    private void written(byte[] key, byte[] value, int old, boolean observed) {
        if (observed) observers.written(key, value);
        if (KeyValueStore.isIndexKey(key)) indexGeneration.incrementAndGet();
        if (value == null) bytes.addAndGet(-(key.length + old));
        else bytes.addAndGet(value.length + (old < 0 ? key.length : -old));
    }

    private void mergeIfFull() {
        State s = state;
        if (s.recent.size() <= recentCapacity(s.run)) return;
        state = stateOf(s.run.merge(s.recent));
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
        if (b.ops.size() >= MIN_MERGED_BATCH && (long) b.ops.size() * MERGED_BATCH_SHARE >= state.run.size()) {
            writeMerged(b);
            return;
        }
        for (Op op : b.ops) {
            if (op.value == null) delete(op.key, b.observed);
            else putOwned(op.key, op.value, b.observed);
        }
    }

    /** a batch of at least this many writes, and at least 1/{@link #MERGED_BATCH_SHARE} of the run, is merged at once */
    static final int MIN_MERGED_BATCH = 64;
    static final int MERGED_BATCH_SHARE = 16;

    /**
     * A large batch goes into a new run at once, with the recent writes, instead of one skip-list insert a write (a
     * holder takes its postings a thousand at a time, and each insert walked a skip list of thousands of cold
     * nodes; those inserts were two fifths of a holder's write in the README's simulation). The same entries, sizes
     * and observer calls, in the same order, as writing the batch one by one.
     */
    private void writeMerged(MemBatch b) {
        State s = state;
        TreeMap<byte[], byte[]> pending = new TreeMap<>(Keys::compare);
        for (Op op : b.ops) {
            byte[] before = pending.get(op.key);
            int old;
            if (before != null) old = before == DELETED ? -1 : before.length;
            else {
                byte[] recent = s.recentKeys.mayContain(op.key) ? s.recent.get(op.key) : null;
                old = recent == DELETED ? -1 : recent != null ? recent.length : s.run.valueLength(s.run.find(op.key));
            }
            if (op.value == null && old < 0) continue;
            pending.put(op.key, op.value == null ? DELETED : op.value);
            written(op.key, op.value, old, b.observed);
        }
        for (Map.Entry<byte[], byte[]> e : s.recent.entrySet()) pending.putIfAbsent(e.getKey(), e.getValue());
        state = stateOf(s.run.merge(pending));
    }

    @Override
    public synchronized <T> T exclusive(java.util.function.Supplier<T> work) {
        return work.get();
    }

    @Override
    public Cursor scan(byte[] from, byte[] to) {
        State s = state;
        boolean empty = to != null && Keys.compare(from, to) >= 0;
        NavigableMap<byte[], byte[]> view = empty ? Collections.emptyNavigableMap()
                : to == null ? s.recent.tailMap(from, true) : s.recent.subMap(from, true, to, false);
        Run run = s.run;
        int end = empty ? 0 : to == null ? run.size() : run.lowerBound(to);
        return new Cursor() {
            Iterator<Map.Entry<byte[], byte[]>> recent = view.entrySet().iterator();
            Map.Entry<byte[], byte[]> pending = nextRecent();
            int i = empty ? end : run.lowerBound(from);
            byte[] key;
            byte[] value;

            private Map.Entry<byte[], byte[]> nextRecent() {
                return recent.hasNext() ? recent.next() : null;
            }

            @Override
            public boolean next() {
                while (true) {
                    if (pending == null && i >= end) return false;
                    // below zero: the recent write comes first; zero: both hold the key; above: the run's entry
                    int c = pending == null ? 1 : i >= end ? -1 : -Integer.signum(run.compareKey(i, pending.getKey()));
                    if (c <= 0) {
                        // the recent write wins over the run's entry of the same key
                        Map.Entry<byte[], byte[]> e = pending;
                        pending = nextRecent();
                        if (c == 0) i++;
                        if (e.getValue() == DELETED) continue;
                        key = e.getKey();
                        value = e.getValue();
                        return true;
                    }
                    key = run.key(i);
                    value = run.value(i);
                    i++;
                    return true;
                }
            }

            @Override
            public void seek(byte[] target) {
                if (empty) return;
                byte[] at = Keys.compare(target, from) <= 0 ? from : target;
                if (to != null && Keys.compare(at, to) >= 0) {
                    recent = Collections.emptyIterator();
                    pending = null;
                    i = end;
                    return;
                }
                recent = view.tailMap(at, true).entrySet().iterator();
                pending = nextRecent();
                i = Math.min(end, run.lowerBound(at));
            }

            @Override
            public byte[] key() {
                return key;
            }

            @Override
            public byte[] value() {
                return value;
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

    /**
     * Sorted entries packed in one array: entry i's key is data[at[2i], at[2i+1]), its value up to at[2i+2]; and a
     * filter of its keys ({@link KeyFilter}), so that a key the run does not have is answered without a search.
     */
    private static final class Run {
        static final Run EMPTY = new Run(new byte[0], new int[] {0}, 0);

        final byte[] data;
        final int[] at;
        final int size;
        private final KeyFilter filter;

        Run(byte[] data, int[] at, int size) {
            this.data = data;
            this.at = at;
            this.size = size;
            this.filter = KeyFilter.of(data, at, size);
        }

        int size() {
            return size;
        }

        int compareKey(int i, byte[] key) {
            return Arrays.compareUnsigned(data, at[2 * i], at[2 * i + 1], key, 0, key.length);
        }

        /** The first entry whose key is not below {@code key} (size if none). */
        int lowerBound(byte[] key) {
            int lo = 0;
            int hi = size;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (compareKey(mid, key) < 0) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        }

        /** The entry of this key, or -1. */
        int find(byte[] key) {
            if (!filter.mayContain(key)) return -1;
            int i = lowerBound(key);
            return i < size && compareKey(i, key) == 0 ? i : -1;
        }

        byte[] key(int i) {
            return Arrays.copyOfRange(data, at[2 * i], at[2 * i + 1]);
        }

        byte[] value(int i) {
            return Arrays.copyOfRange(data, at[2 * i + 1], at[2 * i + 2]);
        }

        /** The length of entry i's value; -1 for i = -1 (no entry). */
        int valueLength(int i) {
            return i < 0 ? -1 : at[2 * i + 2] - at[2 * i + 1];
        }

        /** This run with the recent writes applied (their deletes dropped). */
        Run merge(NavigableMap<byte[], byte[]> recent) {
            int room = data.length;
            for (Map.Entry<byte[], byte[]> e : recent.entrySet()) room += e.getKey().length + e.getValue().length;
            byte[] out = new byte[room];
            int[] offsets = new int[2 * (size + recent.size()) + 1];
            int n = 0;
            int o = 0;
            int i = 0;
            for (Map.Entry<byte[], byte[]> e : recent.entrySet()) {
                byte[] k = e.getKey();
                int c = -1;
                while (i < size && (c = compareKey(i, k)) < 0) {
                    o = copy(i++, out, offsets, n++, o);
                }
                if (c == 0) i++;
                if (e.getValue() == DELETED) continue;
                offsets[2 * n] = o;
                System.arraycopy(k, 0, out, o, k.length);
                o += k.length;
                offsets[2 * n + 1] = o;
                System.arraycopy(e.getValue(), 0, out, o, e.getValue().length);
                o += e.getValue().length;
                n++;
            }
            while (i < size) o = copy(i++, out, offsets, n++, o);
            offsets[2 * n] = o;
            return new Run(o == out.length ? out : Arrays.copyOf(out, o),
                    offsets.length == 2 * n + 1 ? offsets : Arrays.copyOf(offsets, 2 * n + 1), n);
        }

        private int copy(int i, byte[] out, int[] offsets, int n, int o) {
            int from = at[2 * i];
            int len = at[2 * i + 2] - from;
            offsets[2 * n] = o;
            offsets[2 * n + 1] = o + (at[2 * i + 1] - from);
            System.arraycopy(data, from, out, o, len);
            return o + len;
        }
    }

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
