package org.peerdex.storage.kv;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A Bloom filter of the keys of one {@link MemoryStore}'s recent writes, made with the skip list they go to and
 * filled as they arrive (the same blocked layout as {@link KeyFilter}): a key it has not seen is answered "absent"
 * without a walk down the skip list. A holder reads each posting it is sent before writing it, and nearly all are
 * new: those reads walked the skip list for nothing (a fifth of a holder's write in the README's simulation).
 * <p>
 * Sized for the most keys the skip list takes before it is merged; past that it only answers "maybe" more often.
 * One writer at a time (the store's lock); readers on any thread: a key's bits are set before its entry goes into
 * the skip list, so a reader that would find the entry sees them.
 */
final class RecentKeyFilter {
    private final AtomicLongArray words;

    /** A filter for about {@code capacity} keys. */
    RecentKeyFilter(int capacity) {
        words = new AtomicLongArray((int) Math.max(1, Math.min(Integer.MAX_VALUE - 8,
                ((long) Math.max(1, capacity) * KeyFilter.BITS_PER_KEY + 63) / 64)));
    }

    /** Adds a key; call before the key goes into the skip list. */
    void add(byte[] key) {
        long h = KeyFilter.hash(key, 0, key.length);
        int i = KeyFilter.index(h, words.length());
        long b = KeyFilter.bits(h);
        long w = words.get(i);
        if ((w & b) != b) words.set(i, w | b);
    }

    /** False when the key was certainly never added. */
    boolean mayContain(byte[] key) {
        long h = KeyFilter.hash(key, 0, key.length);
        long b = KeyFilter.bits(h);
        return (words.get(KeyFilter.index(h, words.length())) & b) == b;
    }
}
