package org.peerdex.storage.rwi;

import java.util.Arrays;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;

/**
 * The postings of a range of (word, URL) keys as one stream in key order, merged from the reverse word index's two
 * tiers: the folded blocks ({@link Keyspace#POSTING_BLOCKS}) and the fresh entries ({@link Keyspace#RWI}), a fresh
 * entry replacing the block's posting under the same key and a tombstone hiding it. Moving compares packed bytes and
 * copies nothing; a far jump ({@link #advanceTo}) seeks each tier instead of stepping, so the blocks between are never
 * read. Memory is one block. Not thread-safe; close it.
 */
public final class PostingStream implements AutoCloseable {
    /** A logical key: packed word hash ‖ packed URL hash. */
    public static final int KEY = 2 * HashBytes.PACKED;
    /** Fresh entries stepped over before a jump seeks instead (a seek costs about this many steps). */
    private static final int STEPS_BEFORE_SEEK = 64;
    /** Blocks read in turn before a far jump seeks instead. */
    private static final int BLOCKS_BEFORE_SEEK = 3;
    private static final int P = HashBytes.PACKED;

    private final KeyValueStore store;
    private final byte[] to;
    private final byte[] freshEnd;
    private final byte[] blocksEnd;

    private KeyValueStore.Cursor fresh;
    private byte[] freshKey;
    private byte[] freshValue;

    private KeyValueStore.Cursor blocks;
    private byte[] blockKey;
    private PostingBlock block;
    private int index;

    /** 1 fresh, 2 block, 3 both (the fresh entry wins); 0 exhausted */
    private int source;
    private final byte[] current = new byte[1 + KEY];

    /**
     * The postings with {@code from <= word ‖ url < to} ({@link #KEY}-byte keys; {@code to == null}: to the end),
     * positioned on the first.
     */
    public PostingStream(KeyValueStore store, byte[] from, byte[] to) {
        this(store, from, to, true);
    }

    /** As above; without {@code fresh} the fresh tier is known empty and not read. */
    public PostingStream(KeyValueStore store, byte[] from, byte[] to, boolean fresh) {
        this.store = store;
        this.to = to;
        current[0] = Keyspace.RWI;
        this.freshEnd = to == null ? Keys.prefixEnd(new byte[] {Keyspace.RWI}) : Keys.of(Keyspace.RWI, to);
        // a block holding keys below 'to' sorts below it, or is the one covering it, which has to's word: with a
        // URL part of zero (a word's or partition's start at the lowest URL) nothing of that word is below 'to'
        byte[] lastWordEnd = to == null ? null : Keys.prefixEnd(Arrays.copyOf(to, P));
        if (to == null || !isZero(to, P, KEY) && lastWordEnd == null) {
            this.blocksEnd = Keys.prefixEnd(new byte[] {Keyspace.POSTING_BLOCKS});
        } else if (isZero(to, P, KEY)) {
            this.blocksEnd = Keys.of(Keyspace.POSTING_BLOCKS, to);
        } else {
            this.blocksEnd = Keys.of(Keyspace.POSTING_BLOCKS, lastWordEnd);
        }
        if (fresh) {
            openFresh(from);
        } else {
            this.fresh = null;
        }
        openBlocks(from);
        settle();
    }

    /** The postings of one word. */
    public static PostingStream ofWord(KeyValueStore store, byte[] packedWord) {
        return ofWord(store, packedWord, true);
    }

    public static PostingStream ofWord(KeyValueStore store, byte[] packedWord, boolean fresh) {
        byte[] from = Arrays.copyOf(packedWord, KEY);
        byte[] end = Keys.prefixEnd(packedWord);
        return new PostingStream(store, from, end == null ? null : Arrays.copyOf(end, KEY), fresh);
    }

    public boolean exhausted() {
        return source == 0;
    }

    /** Moves to the next posting; false at the end. */
    public boolean next() {
        if (source == 0) return false;
        if ((source & 1) != 0) stepFresh();
        if ((source & 2) != 0) stepBlock();
        settle();
        return source != 0;
    }

    /**
     * Moves to the first posting whose key is at or after {@code key} ({@link #KEY} bytes); never backwards. False
     * if there is none.
     */
    public boolean advanceTo(byte[] key) {
        if (source == 0) return false;
        if (compare(current, 1, key, 0) >= 0) return true;
        // fresh tier: step a little, else seek
        int steps = 0;
        while (freshKey != null && compare(freshKey, 1, key, 0) < 0) {
            if (++steps > STEPS_BEFORE_SEEK && fresh != null) {
                fresh.seek(Keys.of(Keyspace.RWI, key));
                stepFresh();
                break;
            }
            stepFresh();
        }
        // block tier: within the block that covers the key, else seek the block that does (the cursors keep the
        // store as it was when the stream opened: a fold since cannot move a posting out of the stream's sight)
        if (block != null && compare(blockKey, 1, key, 0) < 0) {
            // the next few blocks are read in turn (a seek re-positions LevelDB's merging iterator on every level,
            // which costs more than reading a block or two), then a seek
            int hops = 0;
            while (block != null && compare(blockKey, 1, key, 0) < 0 && hops++ < BLOCKS_BEFORE_SEEK) nextBlock();
            if (block != null && compare(blockKey, 1, key, 0) < 0) {
                blocks.seek(Keys.of(Keyspace.POSTING_BLOCKS, key));
                positionBlocks(key);
            } else if (block != null && Arrays.equals(blockKey, 1, 1 + P, key, 0, P)) {
                index = block.seek(0, key, P);
                if (index >= block.size()) stepBlock();
            }
        } else if (block != null && Arrays.equals(blockKey, 1, 1 + P, key, 0, P)) {
            index = block.seek(index, key, P);
            if (index >= block.size()) stepBlock();
        }
        settle();
        return source != 0;
    }

    /** The current posting's key: {@link Keyspace#RWI} ‖ word ‖ URL; valid until the stream moves. */
    public byte[] key() {
        return current;
    }

    /** Compares the current URL with a packed URL hash (the word is the caller's to know). */
    public int compareUrl(byte[] packedUrl) {
        return Arrays.compareUnsigned(current, 1 + P, 1 + KEY, packedUrl, 0, P);
    }

    /** The current packed URL hash (a copy). */
    public byte[] packedUrl() {
        return Arrays.copyOfRange(current, 1 + P, 1 + KEY);
    }

    /** The current posting as stored ({@link PostingCodec}); the caller may keep it. */
    public byte[] value() {
        return (source & 1) != 0 ? freshValue : block.value(index);
    }

    /**
     * The ceiling of the block the current posting is in, when every posting from here to that block's end comes
     * from the block (no fresh entry in between); null otherwise. A bound computed from it holds for every posting
     * of the stream up to {@link #blockEnd()}.
     */
    public PostingBlock.Ceiling blockCeiling() {
        return restOfBlockIsFolded() ? block.ceiling() : null;
    }

    /** The current posting and every one after it up to the current block's end come from that block. */
    private boolean restOfBlockIsFolded() {
        return block != null && source == 2 && (freshKey == null || compare(freshKey, 1, blockKey, 1) > 0);
    }

    /**
     * The highest score under the {@link BlockScore} of {@code revision} of the postings from here to the end of the
     * current block, when they all come from the block (no fresh entry in between) and the block was scored with that
     * revision; infinite otherwise (nothing may be skipped). The bound of the whole block: a search that finds it
     * below its k-th best may {@link #skipBlock()}.
     */
    public double blockMaxScore(int revision) {
        return restOfBlockIsFolded() && block.scoreRevision() == revision ? block.maxScore() : Double.POSITIVE_INFINITY;
    }

    /** The postings left in the current block, this one included (0 when the current posting is a fresh one). */
    public int leftInBlock() {
        return source == 2 ? block.size() - index : 0;
    }

    /**
     * Moves past the rest of the current block, to the first posting after it; false at the end. Only when the
     * current posting comes from the block and no fresh entry falls into the rest of it ({@link #blockMaxScore}
     * finite), else it is an ordinary {@link #next()}.
     */
    public boolean skipBlock() {
        if (!restOfBlockIsFolded()) return next();
        nextBlock();
        settle();
        return source != 0;
    }

    /** The key the current block covers up to (inclusive): word ‖ the highest URL it covers; null if no block. */
    public byte[] blockEnd() {
        return block == null ? null : Arrays.copyOfRange(blockKey, 1, 1 + KEY);
    }

    private void openFresh(byte[] from) {
        fresh = store.scan(Keys.of(Keyspace.RWI, from), freshEnd);
        stepFresh();
    }

    private void stepFresh() {
        if (fresh != null && fresh.next()) {
            freshKey = fresh.key();
            freshValue = fresh.value();
        } else {
            freshKey = null;
            freshValue = null;
        }
    }

    private void openBlocks(byte[] from) {
        blocks = store.scan(Keys.of(Keyspace.POSTING_BLOCKS, from), blocksEnd);
        positionBlocks(from);
    }

    /** On the first block entry at or after {@code from}, the cursor just placed at the block covering it. */
    private void positionBlocks(byte[] from) {
        block = null;
        nextBlock();
        if (block != null && Arrays.equals(blockKey, 1, 1 + P, from, 0, P)) {
            index = block.seek(0, from, P);
            if (index >= block.size()) stepBlock();
        }
    }

    private void stepBlock() {
        if (++index >= block.size()) nextBlock();
    }

    private void nextBlock() {
        while (blocks.next()) {
            PostingBlock b = PostingBlock.decode(blocks.value());
            if (b.size() == 0) continue;
            blockKey = blocks.key();
            block = b;
            index = 0;
            return;
        }
        block = null;
        blockKey = null;
    }

    /** Compares the current block entry's key with {@code key} at {@code off}. */
    private int compareBlockEntry(byte[] key, int off) {
        int c = Arrays.compareUnsigned(blockKey, 1, 1 + P, key, off, off + P);
        return c != 0 ? c : block.compareUrl(index, key, off + P);
    }

    /** Chooses the current posting: the smaller of the tiers' heads, skipping tombstones and what they hide. */
    private void settle() {
        while (true) {
            boolean hasFresh = freshKey != null;
            boolean hasBlock = block != null;
            if (!hasFresh && !hasBlock) {
                source = 0;
                return;
            }
            int c = !hasFresh ? 1 : !hasBlock ? -1 : compareBlockEntry(freshKey, 1) * -1;
            if (c <= 0) {
                // the fresh entry is first (or replaces the block's posting under the same key)
                if (Keyspace.isTombstone(freshValue)) {
                    if (c == 0) stepBlock();
                    stepFresh();
                    continue;
                }
                System.arraycopy(freshKey, 1, current, 1, KEY);
                source = c == 0 ? 3 : 1;
            } else {
                System.arraycopy(blockKey, 1, current, 1, P);
                block.copyUrl(index, current, 1 + P);
                source = 2;
            }
            if (to != null && compare(current, 1, to, 0) >= 0) source = 0;
            return;
        }
    }

    private static boolean isZero(byte[] a, int from, int to) {
        for (int i = from; i < to; i++) if (a[i] != 0) return false;
        return true;
    }

    private static int compare(byte[] a, int aOff, byte[] b, int bOff) {
        return Arrays.compareUnsigned(a, aOff, aOff + KEY, b, bOff, bOff + KEY);
    }

    @Override
    public void close() {
        if (fresh != null) fresh.close();
        blocks.close();
    }
}
