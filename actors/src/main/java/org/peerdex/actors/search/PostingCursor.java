package org.peerdex.actors.search;

import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.rwi.HashBytes;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;
import org.peerdex.storage.rwi.PostingStream;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * Streams one word's postings from the store in URL-hash order, one at a time, over both tiers of the index
 * ({@link PostingStream}): moving compares packed URL hashes and decodes nothing, so a join decodes only the postings
 * of the documents it keeps; far jumps (a rare word's next URL in a common word's list) seek past whole blocks
 * without reading them. Memory is one block, whatever the list's length. Not thread-safe; close it.
 */
final class PostingCursor implements AutoCloseable {
    private final WordHash word;
    private final byte[] packedWord;
    private final PostingStream stream;
    private Posting decoded;

    PostingCursor(ReverseWordIndex rwi, WordHash word) {
        this.word = word;
        this.packedWord = HashBytes.pack(word.value());
        this.stream = rwi.stream(word);
    }

    /** True once the list has no posting at or after the position. */
    boolean exhausted() {
        return stream.exhausted();
    }

    /** Moves to the next posting; false at the end. */
    boolean next() {
        decoded = null;
        return stream.next();
    }

    /** Compares the current URL with a packed URL hash (unsigned bytes: the same order as {@link UrlHash}). */
    int compareTo(byte[] packedUrl) {
        return stream.compareUrl(packedUrl);
    }

    /** The current packed URL hash (a copy). */
    byte[] packedUrl() {
        return stream.packedUrl();
    }

    /**
     * Moves to the first posting whose URL is at or after {@code packedUrl}; false if there is none. Never moves
     * backwards.
     */
    boolean advanceTo(byte[] packedUrl) {
        if (stream.exhausted()) return false;
        if (stream.compareUrl(packedUrl) >= 0) return true;
        decoded = null;
        byte[] key = new byte[PostingStream.KEY];
        System.arraycopy(packedWord, 0, key, 0, HashBytes.PACKED);
        System.arraycopy(packedUrl, 0, key, HashBytes.PACKED, HashBytes.PACKED);
        return stream.advanceTo(key);
    }

    /**
     * The highest score, under the block score of {@code revision}, of the postings from here to the end of the
     * current block; infinite when they are not all folded ones of a block scored so.
     */
    double blockMaxScore(int revision) {
        return stream.blockMaxScore(revision);
    }

    /** The packed URL hash the current block covers up to (inclusive). */
    byte[] blockEndUrl() {
        byte[] end = stream.blockEnd();
        return end == null ? packedUrl() : java.util.Arrays.copyOfRange(end, HashBytes.PACKED, 2 * HashBytes.PACKED);
    }

    /** The postings left in the current block, this one included. */
    int leftInBlock() {
        return stream.leftInBlock();
    }

    /** Moves past the rest of the current block; false at the end. */
    boolean skipBlock() {
        decoded = null;
        return stream.skipBlock();
    }

    UrlHash url() {
        return new UrlHash(HashBytes.unpack(stream.key(), 1 + HashBytes.PACKED));
    }

    /** The current posting, decoded once. */
    Posting posting() {
        if (decoded == null) decoded = PostingCodec.decode(word, url(), stream.value());
        return decoded;
    }

    @Override
    public void close() {
        stream.close();
    }
}
