package org.peerdex.storage.kv;

import org.peerdex.protocol.filter.BloomFilter;

/**
 * A blocked Bloom filter over the keys of one {@link MemoryStore} run, built with the run and never changed: a key
 * it has not seen is answered "absent" with one read of one 64-bit word instead of a binary search over the run.
 * Holders store postings they mostly do not have yet, and each write reads the key first (is it this peer's own
 * crawl, or the same posting again?): those reads missed the run nearly always, and each miss walked about 20 keys
 * spread over the run's array. Three bits a key in one word, 12 bits a key: 1.5% of absent keys still take
 * the search in {@code KeyFilterTest}; a present key always does.
 */
final class KeyFilter {
    /** bits per key, rounded up to whole words */
    static final int BITS_PER_KEY = 12;
    private static final KeyFilter NONE = new KeyFilter(new long[0]);

    private final long[] words;

    private KeyFilter(long[] words) {
        this.words = words;
    }

    /** A filter of the keys of the packed entries (key i is data[at[2i], at[2i+1])); none below 64 entries. */
    static KeyFilter of(byte[] data, int[] at, int size) {
        if (size < 64) return NONE;
        long[] words = new long[(int) Math.min(Integer.MAX_VALUE - 8, ((long) size * BITS_PER_KEY + 63) / 64)];
        for (int i = 0; i < size; i++) {
            long h = hash(data, at[2 * i], at[2 * i + 1]);
            words[index(h, words.length)] |= bits(h);
        }
        return new KeyFilter(words);
    }

    /** False when the key is certainly not among the filter's keys; true when it may be (or there is no filter). */
    boolean mayContain(byte[] key) {
        if (words.length == 0) return true;
        long h = hash(key, 0, key.length);
        long b = bits(h);
        return (words[index(h, words.length)] & b) == b;
    }

    static int index(long h, int n) {
        return (int) (((h >>> 32) * n) >>> 32);
    }

    /** Three bits of the word, from the hash's low 18 bits. */
    static long bits(long h) {
        return 1L << (h & 63) | 1L << ((h >>> 6) & 63) | 1L << ((h >>> 12) & 63);
    }

    /** A 64-bit hash of bytes from..to: FNV-1a, then the finalizer the DHT's Bloom filters use. */
    static long hash(byte[] a, int from, int to) {
        long h = 0xcbf29ce484222325L;
        for (int i = from; i < to; i++) {
            h ^= a[i] & 0xff;
            h *= 0x100000001b3L;
        }
        return BloomFilter.fmix64(h);
    }
}
