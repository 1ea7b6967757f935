package org.peerdex.protocol.filter;

import java.util.Arrays;
import java.util.Collection;

/**
 * A Bloom filter over hashes (URL hashes in practice): the compact filter a rarest word's holder sends to the
 * other words' holders, so they return only postings that may match. Double hashing over a 64-bit FNV-1a mix;
 * at 10 bits per element and 7 hashes the false-positive rate is about 1%.
 *
 * @param hashes number of hash functions, 1..16
 * @param bits   the bit array, {@code bits.length * 64} bits, at most {@link #MAX_WORDS} longs
 */
public record BloomFilter(int hashes, long[] bits) {
    /** 2^17 longs = 8 Mbit = 1 MiB; receivers refuse anything larger (see docs/protocol.md). */
    public static final int MAX_WORDS = 1 << 17;

    public BloomFilter {
        if (hashes < 1 || hashes > 16) throw new IllegalArgumentException("bloom filter needs 1..16 hashes");
        if (bits == null || bits.length == 0 || bits.length > MAX_WORDS) {
            throw new IllegalArgumentException("bloom filter size out of bounds");
        }
    }

    /** An empty filter sized for {@code expected} elements at {@code bitsPerElement} bits each. */
    public static BloomFilter sized(int expected, int bitsPerElement) {
        long m = Math.max(64, (long) Math.max(1, expected) * Math.max(1, bitsPerElement));
        int words = (int) Math.min(MAX_WORDS, (m + 63) / 64);
        int k = (int) Math.max(1, Math.min(16, Math.round(bitsPerElement * 0.693)));
        return new BloomFilter(k, new long[words]);
    }

    public static BloomFilter of(Collection<String> items, int bitsPerElement) {
        BloomFilter f = sized(items.size(), bitsPerElement);
        for (String s : items) f.add(s);
        return f;
    }

    public void add(String item) {
        long h = fnv(item);
        long h1 = h;
        long h2 = (h >>> 32) | (h << 32) | 1;
        long m = (long) bits.length * 64;
        for (int i = 0; i < hashes; i++) {
            long idx = Long.remainderUnsigned(h1 + i * h2, m);
            bits[(int) (idx >>> 6)] |= 1L << (idx & 63);
        }
    }

    public boolean mightContain(String item) {
        long h = fnv(item);
        long h1 = h;
        long h2 = (h >>> 32) | (h << 32) | 1;
        long m = (long) bits.length * 64;
        for (int i = 0; i < hashes; i++) {
            long idx = Long.remainderUnsigned(h1 + i * h2, m);
            if ((bits[(int) (idx >>> 6)] & (1L << (idx & 63))) == 0) return false;
        }
        return true;
    }

    /** Size of the bit array in bytes (what the filter costs on the wire, roughly). */
    public int byteSize() {
        return bits.length * 8;
    }

    static long fnv(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        // final avalanche so that similar hashes spread over the whole array
        return fmix64(h);
    }

    /**
     * MurmurHash3's 64-bit finalizer: every input bit flips each output bit with probability about one half. Part
     * of the wire format here (a filter's bits); storage's key filter uses it too.
     */
    public static long fmix64(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BloomFilter b && hashes == b.hashes && Arrays.equals(bits, b.bits);
    }

    @Override
    public int hashCode() {
        return hashes * 31 + Arrays.hashCode(bits);
    }

    @Override
    public String toString() {
        return "BloomFilter[" + hashes + " hashes, " + bits.length * 64 + " bits]";
    }
}
