package org.peerdex.actors.search;

import java.util.Arrays;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.rwi.HashBytes;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * Streams one word's postings from the store in URL-hash order, one at a time: moving compares the packed URL
 * hash in the key and decodes nothing, so a join decodes only the postings of the documents it keeps. Far jumps
 * (a rare word's next URL in a common word's list) reopen the store's iterator at the target instead of stepping
 * through every key between. Memory is one entry, whatever the list's length. Not thread-safe; close it.
 */
final class PostingCursor implements AutoCloseable {
    /** Keys stepped over before a jump reopens the iterator at its target (a reopen costs about this many steps). */
    static final int STEPS_BEFORE_SEEK = 64;
    private static final int URL = ReverseWordIndex.URL_OFFSET;

    private final KeyValueStore store;
    private final WordHash word;
    private final byte[] prefix;
    private final byte[] end;
    private KeyValueStore.Cursor cursor;
    private byte[] key;
    private byte[] value;
    private Posting decoded;
    private boolean exhausted;

    PostingCursor(KeyValueStore store, WordHash word) {
        this.store = store;
        this.word = word;
        this.prefix = Keys.of(Keyspace.RWI, HashBytes.pack(word.value()));
        this.end = Keys.prefixEnd(prefix);
        this.cursor = store.scan(prefix, end);
        step();
    }

    /** True once the list has no posting at or after the position. */
    boolean exhausted() {
        return exhausted;
    }

    /** Moves to the next posting; false at the end. */
    boolean next() {
        if (exhausted) return false;
        step();
        return !exhausted;
    }

    private void step() {
        decoded = null;
        if (cursor.next()) {
            key = cursor.key();
            value = cursor.value();
        } else {
            exhausted = true;
            key = null;
            value = null;
        }
    }

    /** Compares the current URL with a packed URL hash (unsigned bytes: the same order as {@link UrlHash}). */
    int compareTo(byte[] packedUrl) {
        return Arrays.compareUnsigned(key, URL, URL + HashBytes.PACKED, packedUrl, 0, HashBytes.PACKED);
    }

    /** The current packed URL hash (a copy). */
    byte[] packedUrl() {
        return Arrays.copyOfRange(key, URL, URL + HashBytes.PACKED);
    }

    /**
     * Moves to the first posting whose URL is at or after {@code packedUrl}; false if there is none. Never moves
     * backwards.
     */
    boolean advanceTo(byte[] packedUrl) {
        int steps = 0;
        while (!exhausted && compareTo(packedUrl) < 0) {
            if (++steps > STEPS_BEFORE_SEEK) {
                cursor.close();
                cursor = store.scan(Keys.concat(prefix, packedUrl), end);
                step();
                break;
            }
            step();
        }
        return !exhausted;
    }

    UrlHash url() {
        return new UrlHash(HashBytes.unpack(key, URL));
    }

    /** The current posting, decoded once. */
    Posting posting() {
        if (decoded == null) decoded = PostingCodec.decode(word, url(), value);
        return decoded;
    }

    @Override
    public void close() {
        cursor.close();
    }
}
