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
 * <p>Entries live in three layers, each shadowing the ones below it, deletes included: a small skip list of single
 * recent writes; a packed middle run of batches; and the packed run of everything older (every key and value back
 * to back in one array, two int offsets an entry). A batch of at least {@value #MIN_MERGED_BATCH} writes goes into
 * the middle run at once, with the skip list (a sorted merge of a few thousand entries); single writes go to the
 * skip list, which is folded into the middle run when it holds more than twice the square root of the run; the
 * middle run is merged into the run when it holds more than an eighth of the run (at least {@value #MIN_RECENT}
 * entries each).
 * A skip-list entry costs about 130 bytes beyond its key and value, a packed one 8, and a lookup in a run is a
 * binary search over one array instead of a chase through nodes spread over the heap: the simulator keeps tens of
 * millions of entries in hundreds of thousands of stores. A holder is sent a few postings at a time while crawlers
 * index, and each of those writes was an insert into a skip list of thousands of cold nodes (three fifths of a
 * holder's write in the README's simulation); now it walks a skip list of a few hundred. A cursor reads the layers
 * it was opened on: later writes show while they stay in that skip list, a merge does not disturb it (a LevelDB
 * iterator sees a snapshot, so readers expect nothing more).
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

    /**
     * @param mid        the batches since the last merge into {@code run}, deletes kept as marks
     * @param recentKeys every key that went into {@code recent} or {@code mid} (a get of any other reads only the run)
     */
    private record State(Run run, Run mid, ConcurrentSkipListMap<byte[], byte[]> recent, RecentKeyFilter recentKeys) {
        /** The same run, middle run and filter, with the skip list emptied into {@code mid}. */
        State withMid(Run mid) {
            return new State(run, mid, new ConcurrentSkipListMap<>(Keys::compare), recentKeys);
        }
    }

    /** A run with no recent writes yet, and a filter for as many as its skip list and middle run take before a merge. */
    private State stateOf(Run run) {
        // the skip list and the middle run up to their capacity each, and a batch past it
        long keys = 3L * recentCapacity(run) + 1;
        return new State(run, Run.EMPTY, new ConcurrentSkipListMap<>(Keys::compare),
                new RecentKeyFilter((int) Math.min(Integer.MAX_VALUE / 64, keys)));
    }

    /** The most entries the middle run takes before it is merged into the run. */
    private int recentCapacity(Run run) {
        return Math.max(minRecent, run.size() / 8);
    }

    /**
     * The most writes the skip list takes before it is folded into the middle run: twice the square root of the
     * run, so that a skip list stays small enough to be walked in cache while an entry is copied into the middle run
     * a few times on its way down (about the middle run's capacity over twice this: 6 times in a run of 40,000).
     */
    private int skipListCapacity(Run run) {
        return Math.max(minRecent, Math.min(recentCapacity(run), (int) (2 * Math.sqrt(run.size()))));
    }

    @Override
    public Optional<byte[]> get(byte[] key) {
        State s = state;
        if (s.recentKeys.mayContain(key)) {
            byte[] v = s.recent.get(key);
            if (v != null) return v == DELETED ? Optional.empty() : Optional.of(v);
            int m = s.mid.find(key);
            if (m >= 0) return s.mid.deleted(m) ? Optional.empty() : Optional.of(s.mid.value(m));
        }
        int i = s.run.find(key);
        return i < 0 ? Optional.empty() : Optional.of(s.run.value(i));
    }

    /** The length of the value {@code key} has in {@code s}, -1 if it has none (never written, or deleted). */
    private static int valueLength(State s, byte[] key) {
        if (s.recentKeys.mayContain(key)) {
            byte[] v = s.recent.get(key);
            if (v != null) return v == DELETED ? -1 : v.length;
            int m = s.mid.find(key);
            if (m >= 0) return s.mid.deleted(m) ? -1 : s.mid.valueLength(m);
        }
        return s.run.valueLength(s.run.find(key));
    }

    @Override
    public synchronized void put(byte[] key, byte[] value) {
        // keep copies, as LevelDB does: a caller may reuse its arrays
        putOwned(key.clone(), value.clone(), true);
    }

    /** Stores arrays nobody else holds (a batch's copies). */
    private void putOwned(byte[] key, byte[] value, boolean observed) {
        State s = state;
        int old = valueLength(s, key);
        s.recentKeys.add(key);
        s.recent.put(key, value);
        written(key, value, old, observed);
        mergeIfFull();
    }

    @Override
    public synchronized void delete(byte[] key) {
        delete(key, true);
    }

    private void delete(byte[] key, boolean observed) {
        State s = state;
        // each layer searched once, for both the value's length and whether a layer below the skip list holds the key
        boolean recentMay = s.recentKeys.mayContain(key);
        byte[] v = recentMay ? s.recent.get(key) : null;
        int m = recentMay ? s.mid.find(key) : -1;
        int r = s.run.find(key);
        int old = v != null ? (v == DELETED ? -1 : v.length)
                : m >= 0 ? (s.mid.deleted(m) ? -1 : s.mid.valueLength(m))
                : s.run.valueLength(r);
        // a mark only where a layer below holds the key (a key only the skip list held just leaves it)
        boolean below = r >= 0 || m >= 0;
        if (below) {
            s.recentKeys.add(key);
            s.recent.put(key.clone(), DELETED);
        } else {
            s.recent.remove(key);
        }
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

    /** Folds a full skip list into the middle run, and a full middle run into the run. */
    private void mergeIfFull() {
        State s = state;
        if (s.recent.size() <= skipListCapacity(s.run)) return;
        settle(s, s.mid.merge(Run.of(s.recent), false));
    }

    /** Makes {@code mid} the middle run over {@code s}'s run, with an empty skip list; merged into the run if full. */
    private void settle(State s, Run mid) {
        state = mid.size() > recentCapacity(s.run) ? stateOf(s.run.merge(mid, true)) : s.withMid(mid);
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
        State s = state;
        if (b.ops.size() >= MIN_MERGED_BATCH && (long) b.ops.size() * MERGED_BATCH_SHARE >= s.mid.size()) {
            writeMerged(b, (long) b.ops.size() * MERGED_BATCH_SHARE >= s.run.size());
            return;
        }
        for (Op op : b.ops) {
            if (op.value == null) delete(op.key, b.observed);
            else putOwned(op.key, op.value, b.observed);
        }
    }

    /**
     * a batch of at least this many writes, and at least 1/{@link #MERGED_BATCH_SHARE} of the middle run, goes into
     * the middle run at once; one of at least 1/{@link #MERGED_BATCH_SHARE} of the run, into the run (with the
     * middle run)
     */
    static final int MIN_MERGED_BATCH = 64;
    static final int MERGED_BATCH_SHARE = 16;

    /**
     * A batch goes into the middle run at once, with the skip list ({@code intoRun}: and the middle run into the
     * run), instead of one skip-list insert a write. The same entries, sizes and observer calls, in the same order,
     * as writing the batch one by one. A batch is bounded below by a share of the layer it is merged into, so that no
     * entry is copied more than a few dozen times on its way down.
     */
    private void writeMerged(MemBatch b, boolean intoRun) {
        State s = state;
        TreeMap<byte[], byte[]> pending = new TreeMap<>(Keys::compare);
        for (Op op : b.ops) {
            byte[] before = pending.get(op.key);
            int old = before == null ? valueLength(s, op.key) : before == DELETED ? -1 : before.length;
            if (op.value == null && old < 0) continue;
            pending.put(op.key, op.value == null ? DELETED : op.value);
            written(op.key, op.value, old, b.observed);
        }
        for (Map.Entry<byte[], byte[]> e : s.recent.entrySet()) pending.putIfAbsent(e.getKey(), e.getValue());
        Run mid = s.mid.merge(Run.of(pending), false);
        if (intoRun) {
            state = stateOf(s.run.merge(mid, true));
            return;
        }
        // before the state that holds them is published: a reader that finds the new middle run finds its keys here
        for (byte[] k : pending.keySet()) s.recentKeys.add(k);
        settle(s, mid);
    }

    /** The entries of each layer now: the run, the middle run (delete marks included), the skip list (for tests). */
    int[] layerSizes() {
        State s = state;
        return new int[] {s.run.size(), s.mid.size(), s.recent.size()};
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
        Run mid = s.mid;
        int end = empty ? 0 : to == null ? run.size() : run.lowerBound(to);
        int midEnd = empty ? 0 : to == null ? mid.size() : mid.lowerBound(to);
        return new Cursor() {
            Iterator<Map.Entry<byte[], byte[]>> recent = view.entrySet().iterator();
            Map.Entry<byte[], byte[]> pending = nextRecent();
            int i = empty ? end : run.lowerBound(from);
            int m = empty ? midEnd : mid.lowerBound(from);
            byte[] key;
            byte[] value;

            private Map.Entry<byte[], byte[]> nextRecent() {
                return recent.hasNext() ? recent.next() : null;
            }

            @Override
            public boolean next() {
                while (true) {
                    boolean inMid = m < midEnd;
                    boolean inRun = i < end;
                    if (pending == null && !inMid && !inRun) return false;
                    // the lower of the packed layers' entries (below zero: the middle run's; zero: both hold the
                    // key, the middle run's wins), then the skip list's against it the same way
                    int packed = !inMid ? 1 : !inRun ? -1 : Integer.signum(mid.compareEntry(m, run, i));
                    int c;
                    if (pending == null) c = 1;
                    else if (!inMid && !inRun) c = -1;
                    else c = -Integer.signum(packed <= 0 ? mid.compareKey(m, pending.getKey())
                            : run.compareKey(i, pending.getKey()));
                    if (c <= 0) {
                        // the skip list's write wins over the packed entries of the same key
                        Map.Entry<byte[], byte[]> e = pending;
                        pending = nextRecent();
                        if (c == 0) {
                            if (packed <= 0) m++;
                            if (packed >= 0) i++;
                        }
                        if (e.getValue() == DELETED) continue;
                        key = e.getKey();
                        value = e.getValue();
                        return true;
                    }
                    if (packed <= 0) {
                        int at = m++;
                        if (packed == 0) i++;
                        if (mid.deleted(at)) continue;
                        key = mid.key(at);
                        value = mid.value(at);
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
                    m = midEnd;
                    return;
                }
                recent = view.tailMap(at, true).entrySet().iterator();
                pending = nextRecent();
                i = Math.min(end, run.lowerBound(at));
                m = Math.min(midEnd, mid.lowerBound(at));
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
     * Sorted entries packed in one array: entry i's key is data[at[2i], at[2i+1]), its value up to at[2i+2]; delete
     * marks (a middle run's: empty values flagged in {@code deletes}, null when there are none); and, for a run with
     * a filter, a filter of its keys ({@link KeyFilter}), so that a key the run does not have is answered without a
     * search (a middle run is answered by the store's filter of recent keys instead).
     */
    private static final class Run {
        static final Run EMPTY = new Run(new byte[0], new int[] {0}, 0, null, false);

        final byte[] data;
        final int[] at;
        final int size;
        private final boolean[] deletes;
        private final KeyFilter filter;

        Run(byte[] data, int[] at, int size, boolean[] deletes, boolean filtered) {
            this.data = data;
            this.at = at;
            this.size = size;
            this.deletes = deletes;
            this.filter = filtered ? KeyFilter.of(data, at, size) : null;
        }

        /** The entries of a sorted map packed, {@link #DELETED} values as delete marks. */
        static Run of(NavigableMap<byte[], byte[]> entries) {
            int room = 0;
            for (Map.Entry<byte[], byte[]> e : entries.entrySet()) room += e.getKey().length + e.getValue().length;
            byte[] data = new byte[room];
            int[] at = new int[2 * entries.size() + 1];
            boolean[] deletes = null;
            int n = 0;
            int o = 0;
            for (Map.Entry<byte[], byte[]> e : entries.entrySet()) {
                at[2 * n] = o;
                System.arraycopy(e.getKey(), 0, data, o, e.getKey().length);
                o += e.getKey().length;
                at[2 * n + 1] = o;
                if (e.getValue() == DELETED) {
                    if (deletes == null) deletes = new boolean[entries.size()];
                    deletes[n] = true;
                } else {
                    System.arraycopy(e.getValue(), 0, data, o, e.getValue().length);
                    o += e.getValue().length;
                }
                n++;
            }
            at[2 * n] = o;
            return new Run(data, at, n, deletes, false);
        }

        int size() {
            return size;
        }

        boolean deleted(int i) {
            return deletes != null && deletes[i];
        }

        int compareKey(int i, byte[] key) {
            return Arrays.compareUnsigned(data, at[2 * i], at[2 * i + 1], key, 0, key.length);
        }

        /** This run's entry i against {@code other}'s entry j, by key. */
        int compareEntry(int i, Run other, int j) {
            return Arrays.compareUnsigned(data, at[2 * i], at[2 * i + 1], other.data, other.at[2 * j], other.at[2 * j + 1]);
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

        /** The entry of this key (a delete mark included), or -1. */
        int find(byte[] key) {
            if (size == 0 || filter != null && !filter.mayContain(key)) return -1;
            int i = lowerBound(key);
            return i < size && compareKey(i, key) == 0 ? i : -1;
        }

        byte[] key(int i) {
            return Arrays.copyOfRange(data, at[2 * i], at[2 * i + 1]);
        }

        byte[] value(int i) {
            return Arrays.copyOfRange(data, at[2 * i + 1], at[2 * i + 2]);
        }

        /** The length of entry i's value; -1 for i = -1 (no entry) or a delete mark. */
        int valueLength(int i) {
            return i < 0 || deleted(i) ? -1 : at[2 * i + 2] - at[2 * i + 1];
        }

        /**
         * This run with {@code newer}'s entries over it: the newer entry of a key wins. {@code intoRun}: the result is
         * a store's run (delete marks dropped, a key filter built); otherwise a middle run (marks kept, no filter).
         */
        Run merge(Run newer, boolean intoRun) {
            if (newer.size == 0 && (intoRun ? filter != null || size == 0 : filter == null)) return this;
            byte[] out = new byte[data.length + newer.data.length];
            int[] offsets = new int[2 * (size + newer.size) + 1];
            boolean[] marks = !intoRun && (deletes != null || newer.deletes != null) ? new boolean[size + newer.size] : null;
            int n = 0;
            int o = 0;
            int i = 0;
            int j = 0;
            while (i < size || j < newer.size) {
                int c = i >= size ? 1 : j >= newer.size ? -1 : compareEntry(i, newer, j);
                Run from = c < 0 ? this : newer;
                int k = c < 0 ? i : j;
                if (c <= 0) i++;
                if (c >= 0) j++;
                if (from.deleted(k)) {
                    if (intoRun) continue;
                    marks[n] = true;
                }
                o = from.copy(k, out, offsets, n++, o);
            }
            offsets[2 * n] = o;
            return new Run(o == out.length ? out : Arrays.copyOf(out, o),
                    offsets.length == 2 * n + 1 ? offsets : Arrays.copyOf(offsets, 2 * n + 1), n,
                    marks == null || marks.length == n ? marks : Arrays.copyOf(marks, n), intoRun);
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
