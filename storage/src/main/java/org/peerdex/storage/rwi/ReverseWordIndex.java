package org.peerdex.storage.rwi;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.protocol.ring.RingPosition;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;

/**
 * The reverse word index: key {@code 'r' ‖ word ‖ url} (hashes packed to 9 bytes each) → compact posting. A
 * prefix scan returns a word's postings sorted by URL hash, hence grouped by vertical partition, so intersection
 * is a merge join. A second keyspace {@code 'x' ‖ url ‖ word} lets a URL's postings be deleted.
 */
public final class ReverseWordIndex {
    private static final byte[] EMPTY = new byte[0];
    private final KeyValueStore store;
    private final Partitions partitions;

    public ReverseWordIndex(KeyValueStore store, Partitions partitions) {
        this.store = store;
        this.partitions = partitions;
    }

    public Partitions partitions() {
        return partitions;
    }

    public KeyValueStore store() {
        return store;
    }

    static byte[] key(WordHash word, UrlHash url) {
        byte[] k = new byte[1 + 2 * HashBytes.PACKED];
        k[0] = Keyspace.RWI;
        HashBytes.packInto(word.value(), k, 1);
        HashBytes.packInto(url.value(), k, 1 + HashBytes.PACKED);
        return k;
    }

    static byte[] urlWordKey(UrlHash url, WordHash word) {
        byte[] k = new byte[1 + 2 * HashBytes.PACKED];
        k[0] = Keyspace.URL_WORDS;
        HashBytes.packInto(url.value(), k, 1);
        HashBytes.packInto(word.value(), k, 1 + HashBytes.PACKED);
        return k;
    }

    private static byte[] wordPrefix(WordHash word) {
        return Keys.of(Keyspace.RWI, HashBytes.pack(word.value()));
    }

    /** Adds postings to a batch (the caller writes it); a later posting for the same word and URL replaces it. */
    public void addTo(KeyValueStore.Batch batch, Posting p) {
        batch.put(key(p.word(), p.url()), PostingCodec.encode(p));
        batch.put(urlWordKey(p.url(), p.word()), EMPTY);
    }

    public void deleteTo(KeyValueStore.Batch batch, WordHash word, UrlHash url) {
        batch.delete(key(word, url));
        batch.delete(urlWordKey(url, word));
    }

    /** Adds postings in one atomic batch. */
    public void add(Collection<Posting> postings, boolean sync) {
        KeyValueStore.Batch batch = store.newBatch();
        for (Posting p : postings) addTo(batch, p);
        store.write(batch, sync);
    }

    /** The posting of one word in one document, if there is one. */
    public Optional<Posting> get(WordHash word, UrlHash url) {
        return store.get(key(word, url)).map(v -> PostingCodec.decode(word, url, v));
    }

    /** The stored (encoded) posting of one word in one document: for callers that read a field or two of it. */
    public Optional<byte[]> getEncoded(WordHash word, UrlHash url) {
        return store.get(key(word, url));
    }

    /** All postings of a word, sorted by URL hash. */
    public List<Posting> postings(WordHash word) {
        List<Posting> out = new ArrayList<>();
        scan(word, out::add);
        return out;
    }

    public void scan(WordHash word, Consumer<Posting> sink) {
        byte[] prefix = wordPrefix(word);
        scanRange(word, prefix, Keys.prefixEnd(prefix), sink);
    }

    /** The postings of one (word, partition): a contiguous key range, since the partition is a URL-hash prefix. */
    public List<Posting> postings(WordHash word, int partition) {
        List<Posting> out = new ArrayList<>();
        scan(word, partition, out::add);
        return out;
    }

    public void scan(WordHash word, int partition, Consumer<Posting> sink) {
        byte[] prefix = wordPrefix(word);
        byte[] from = Keys.concat(prefix, partitionStart(partition));
        byte[] to = partition + 1 < partitions.count()
                ? Keys.concat(prefix, partitionStart(partition + 1)) : Keys.prefixEnd(prefix);
        scanRange(word, from, to, sink);
    }

    private byte[] partitionStart(int partition) {
        if (partitions.exponent() == 0) return new byte[0];
        long start = (long) partition << (63 - partitions.exponent());
        return HashBytes.pack(RingPosition.toHashPrefix(start) + "AA");
    }

    private void scanRange(WordHash word, byte[] from, byte[] to, Consumer<Posting> sink) {
        try (KeyValueStore.Cursor c = store.scan(from, to)) {
            while (c.next()) {
                byte[] k = c.key();
                UrlHash url = new UrlHash(HashBytes.unpack(k, 1 + HashBytes.PACKED));
                sink.accept(PostingCodec.decode(word, url, c.value()));
            }
        }
    }

    /** Number of postings of a word (a key-only scan). */
    public int count(WordHash word) {
        byte[] prefix = wordPrefix(word);
        int n = 0;
        try (KeyValueStore.Cursor c = store.scan(prefix, Keys.prefixEnd(prefix))) {
            while (c.next()) n++;
        }
        return n;
    }

    public int count(WordHash word, int partition) {
        int[] n = {0};
        scan(word, partition, p -> n[0]++);
        return n[0];
    }

    /** The words a URL has postings for. */
    public List<WordHash> wordsOf(UrlHash url) {
        byte[] prefix = Keys.of(Keyspace.URL_WORDS, HashBytes.pack(url.value()));
        List<WordHash> out = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(prefix)) {
            while (c.next()) out.add(new WordHash(HashBytes.unpack(c.key(), 1 + HashBytes.PACKED)));
        }
        return out;
    }

    /** Deletes every posting of a URL; returns how many were deleted. */
    public int deleteUrl(UrlHash url) {
        List<WordHash> words = wordsOf(url);
        KeyValueStore.Batch batch = store.newBatch();
        for (WordHash w : words) {
            batch.delete(key(w, url));
            batch.delete(urlWordKey(url, w));
        }
        store.write(batch, false);
        return words.size();
    }

    /** Deletes single postings (after a hand-off or when a cached entry expires). */
    public void delete(Collection<Posting> postings) {
        KeyValueStore.Batch batch = store.newBatch();
        for (Posting p : postings) {
            batch.delete(key(p.word(), p.url()));
            batch.delete(urlWordKey(p.url(), p.word()));
        }
        store.write(batch, false);
    }

    /** Every posting, in key order (word, then URL). */
    public void scanAll(Consumer<Posting> sink) {
        scanAll(p -> true, sink);
    }

    public void scanAll(Predicate<Posting> filter, Consumer<Posting> sink) {
        byte[] prefix = {Keyspace.RWI};
        try (KeyValueStore.Cursor c = store.scanPrefix(prefix)) {
            while (c.next()) {
                byte[] k = c.key();
                WordHash w = new WordHash(HashBytes.unpack(k, 1));
                UrlHash u = new UrlHash(HashBytes.unpack(k, 1 + HashBytes.PACKED));
                Posting p = PostingCodec.decode(w, u, c.value());
                if (filter.test(p)) sink.accept(p);
            }
        }
    }

    /** Receives the raw entries of {@link #scanEntries}: the arrays are valid during the call only. */
    public interface EntrySink {
        void accept(byte[] key, byte[] value);
    }

    /**
     * Every posting as its stored key and value, in key order, undecoded: for scans that need a few fields
     * ({@link #position(byte[])}, {@link PostingCodec#flags}, {@link PostingCodec#holderOffset}) and decode
     * ({@link #decode}) only the postings they keep.
     */
    public void scanEntries(EntrySink sink) {
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.RWI})) {
            while (c.next()) sink.accept(c.key(), c.value());
        }
    }

    /**
     * The raw entries whose DHT position's top {@code bucketBits} bits are {@code bucket} (anti-entropy's digest
     * buckets), without reading the rest of the index: a position's top bits are the partition and then the word
     * hash's bits below the partition's, so each value of the word hash's top {@code exponent} bits gives one
     * contiguous range of words, and in each of those words the partition is one contiguous run of URLs.
     */
    public void scanBucket(int bucketBits, int bucket, EntrySink sink) {
        int e = partitions.exponent();
        if (bucketBits < e || bucketBits > 24) throw new IllegalArgumentException("bucket bits must be " + e + "..24");
        if (bucket < 0 || bucket >= 1 << bucketBits) throw new IllegalArgumentException("bucket out of range");
        int wordBits = bucketBits - e;
        int partition = bucket >>> wordBits;
        int low = bucket & ((1 << wordBits) - 1);
        byte[] urlFrom = partitionStart(partition);
        byte[] urlTo = partition + 1 < partitions.count() ? partitionStart(partition + 1) : null;
        for (int top = 0; top < 1 << e; top++) {
            int prefix = (top << wordBits) | low;
            byte[] to = prefix + 1 == 1 << bucketBits ? Keys.prefixEnd(new byte[] {Keyspace.RWI}) : bucketKey(prefix + 1, bucketBits);
            byte[] at = bucketKey(prefix, bucketBits);
            while (true) {
                // the next word of the range, then only its postings in the partition
                byte[] word;
                try (KeyValueStore.Cursor c = store.scan(at, to)) {
                    if (!c.next()) break;
                    word = Arrays.copyOf(c.key(), URL_OFFSET);
                }
                byte[] end = urlTo == null ? Keys.prefixEnd(word) : Keys.concat(word, urlTo);
                try (KeyValueStore.Cursor c = store.scan(Keys.concat(word, urlFrom), end)) {
                    while (c.next()) sink.accept(c.key(), c.value());
                }
                at = Keys.prefixEnd(word);
                if (at == null) break;
            }
        }
    }

    /** The first posting key whose packed word hash starts with the {@code bits}-bit {@code prefix}. */
    private static byte[] bucketKey(int prefix, int bits) {
        int v = prefix << (24 - bits);
        return new byte[] {Keyspace.RWI, (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    /** True if {@code key} is the key of a posting. */
    public static boolean isPostingKey(byte[] key) {
        return key.length == 1 + 2 * HashBytes.PACKED && key[0] == Keyspace.RWI;
    }

    /** Offset of the packed word hash in a posting key; the URL hash follows at {@link #URL_OFFSET}. */
    public static final int WORD_OFFSET = 1;
    public static final int URL_OFFSET = 1 + HashBytes.PACKED;

    /** The DHT position of a posting from its key alone (as {@code partitions.position(word, url)}). */
    public long position(byte[] key) {
        long url = HashBytes.position(key, URL_OFFSET);
        return partitions.position(HashBytes.position(key, WORD_OFFSET), partitions.partitionOfPosition(url));
    }

    /** The posting of a stored key and value. */
    public static Posting decode(byte[] key, byte[] value) {
        return PostingCodec.decode(new WordHash(HashBytes.unpack(key, WORD_OFFSET)),
                new UrlHash(HashBytes.unpack(key, URL_OFFSET)), value);
    }

    /** The postings whose DHT position lies in the clockwise range (from, to]; for hand-off and repair. */
    public void scanRing(long fromExclusive, long toInclusive, Consumer<Posting> sink) {
        scanAll(p -> inRange(partitions.position(p.word(), p.url()), fromExclusive, toInclusive), sink);
    }

    public static boolean inRange(long pos, long fromExclusive, long toInclusive) {
        if (fromExclusive == toInclusive) return true;
        long d = RingPosition.distance(fromExclusive, pos);
        return d != 0 && d <= RingPosition.distance(fromExclusive, toInclusive);
    }

    /** Total postings (a full key scan; for status, cache it). */
    public long totalPostings() {
        long n = 0;
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.RWI})) {
            while (c.next()) n++;
        }
        return n;
    }
}
