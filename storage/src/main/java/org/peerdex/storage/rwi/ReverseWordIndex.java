package org.peerdex.storage.rwi;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 * The reverse word index, in two tiers over one sorted store. The <em>folded</em> tier holds each word's postings
 * as {@link PostingBlock}s of up to 128, sorted by URL hash, each block of one vertical partition, under key
 * {@code 'w' ‖ word ‖ the highest URL hash it covers}, so a (word, partition) is one contiguous key range (the DHT
 * hands off, digests and serves exactly those) and a search seeks past whole blocks; each block carries the ceiling
 * of its postings' features for score bounds. The <em>fresh</em> tier holds what was written since: key
 * {@code 'r' ‖ word ‖ url} (hashes packed to 9 bytes each) → posting, or a {@link Keyspace#TOMBSTONE} that deletes
 * the folded posting under the same key. Every read merges the tiers ({@link PostingStream}), a fresh entry winning,
 * so what is stored is the same whatever has been folded; {@link #fold} moves fresh entries into their blocks in the
 * background (atomic batches with no posting changed, which the index observers do not see). A write is one fresh
 * entry, as before blocks; what a crash may lose is unchanged (nothing written). A third keyspace lets a URL's
 * postings be deleted: {@code 'x' ‖ url} → the words of a document written whole ({@link #addDocumentTo}, one entry
 * per document) and {@code 'x' ‖ url ‖ word} → nothing for a posting written alone ({@link #addTo}).
 */
public final class ReverseWordIndex {
    private static final byte[] EMPTY = new byte[0];
    private static final int P = HashBytes.PACKED;
    private static final int KEY = PostingStream.KEY;
    private final KeyValueStore store;
    private final Partitions partitions;
    /** fresh entries written since the last fold round began (the store's observers count them) */
    private final AtomicLong freshWrites = new AtomicLong();
    private final AtomicLong folded = new AtomicLong();
    /** fold rounds running now */
    private final AtomicInteger rounds = new AtomicInteger();
    /** a round has walked the whole fresh tier since this index opened */
    private volatile boolean roundCompleted;
    private final boolean counting;
    /** one fold step at a time (the background folder's and {@link #foldAll}'s): only a fold step writes blocks */
    private final Object foldLock = new Object();
    /** while a fold step reads and merges: fresh keys written meanwhile, which its commit must not delete */
    private volatile boolean watching;
    private final Set<ByteBuffer> rewritten = ConcurrentHashMap.newKeySet();
    /** what the fold bounds each block's postings by; null: blocks are written without a score */
    private volatile BlockScore blockScore;
    /**
     * False while the store holds no block: a single posting's read then asks the fresh tier alone. Only fold steps
     * write blocks, and they set it first. (A virtual peer of a simulation never folds: the block lookup, a range
     * cursor per read, was a sixth of the time its shard owner spent storing.)
     */
    private volatile boolean blocksMayExist;

    public ReverseWordIndex(KeyValueStore store, Partitions partitions) {
        this.store = store;
        this.partitions = partitions;
        this.counting = store.addIndexObserver(new KeyValueStore.IndexObserver() {
            @Override
            public void put(byte[] key, byte[] value) {
                written(key);
            }

            @Override
            public void deleted(byte[] key) {
                written(key);
            }
        });
        // a store opened with fresh entries (written before a crash, or by layout 1) folds them on the first round
        freshWrites.set(1);
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.POSTING_BLOCKS})) {
            blocksMayExist = c.next();
        }
    }

    /** A fresh entry was written (called with the store's observer monitor held). */
    private void written(byte[] key) {
        if (key[0] != Keyspace.RWI) return;
        freshWrites.incrementAndGet();
        if (watching) rewritten.add(ByteBuffer.wrap(key));
    }

    public Partitions partitions() {
        return partitions;
    }

    /**
     * Blocks folded from now on carry the highest score of their postings under {@code score} (block-max pruning
     * for searches that score by it; blocks folded before keep what they have until a fold rewrites them).
     */
    public void scoreBlocksWith(BlockScore score) {
        this.blockScore = score;
    }

    /** What blocks are scored by when folded; null if nothing. */
    public BlockScore blockScore() {
        return blockScore;
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

    static byte[] documentWordsKey(UrlHash url) {
        byte[] k = new byte[1 + HashBytes.PACKED];
        k[0] = Keyspace.URL_WORDS;
        HashBytes.packInto(url.value(), k, 1);
        return k;
    }

    /** Adds postings to a batch (the caller writes it); a later posting for the same word and URL replaces it. */
    public void addTo(KeyValueStore.Batch batch, Posting p) {
        addTo(batch, p, PostingCodec.encode(p));
    }

    /** As {@link #addTo(KeyValueStore.Batch, Posting)}, with the posting already encoded ({@link PostingCodec#encode}). */
    public void addTo(KeyValueStore.Batch batch, Posting p, byte[] encoded) {
        batch.put(key(p.word(), p.url()), encoded);
        batch.put(urlWordKey(p.url(), p.word()), EMPTY);
    }

    /**
     * Adds every posting of one document to a batch, replacing the document's word list: one {@code 'x' ‖ url} entry
     * names all its words (packed word hashes), where {@link #addTo} writes one {@code 'x'} key per posting. The
     * caller has deleted the postings of words the document no longer has (see {@link #wordsOf}).
     */
    public void addDocumentTo(KeyValueStore.Batch batch, UrlHash url, Collection<Posting> postings) {
        TreeSet<String> words = new TreeSet<>();
        for (Posting p : postings) {
            if (!p.url().equals(url)) throw new IllegalArgumentException("posting of " + p.url() + " in document " + url);
            batch.put(key(p.word(), url), PostingCodec.encode(p));
            words.add(p.word().value());
        }
        byte[] list = new byte[words.size() * P];
        int i = 0;
        for (String w : words) HashBytes.packInto(w, list, P * i++);
        batch.put(documentWordsKey(url), list);
    }

    /** Deletes a posting in a batch: a tombstone, since the posting may sit in a block. */
    public void deleteTo(KeyValueStore.Batch batch, WordHash word, UrlHash url) {
        batch.put(key(word, url), Keyspace.TOMBSTONE);
        batch.delete(urlWordKey(url, word));
    }

    /** What one {@link #fold} step did: fresh entries folded, blocks written, and where the next step starts (null: the end). */
    public record FoldStep(int folded, int blocksWritten, byte[] resume) {}

    /** Fresh entries at most one {@link #fold} step takes: it holds every writer of the index while it works. */
    public static final int FOLD_STEP = 4096;

    /**
     * Folds up to {@code limit} fresh entries, from logical key {@code from} on, into their blocks, in one atomic
     * write: each fresh entry goes to the block of its partition that covers its URL (a new block when its partition
     * has none), a block is merged with its fresh entries (a fresh posting replaces the folded one, a tombstone
     * deletes it) and cut into blocks of {@link PostingBlock#TARGET} when it grows past {@link PostingBlock#MAX}.
     * Changes no posting: observers do not see it.
     *
     * <p>Writers go on while a step reads and merges; only its commit holds them. A fresh entry written again meanwhile
     * (a re-index, a delete) stays in the fresh tier, where it wins over the older version the step folded, and is
     * folded by a later step: the commit deletes only the fresh entries nobody wrote since the step read them. A
     * store whose writes cannot be observed holds every writer for the whole step.
     */
    public FoldStep fold(byte[] from, int limit) {
        if (!counting) return store.exclusive(() -> foldStep(from, limit, false));
        synchronized (foldLock) {
            // set while no write is being applied: a write is then either visible to the step's cursors or recorded
            store.exclusive(() -> {
                rewritten.clear();
                watching = true;
                return null;
            });
            try {
                return foldStep(from, limit, true);
            } finally {
                watching = false;
                rewritten.clear();
            }
        }
    }

    private FoldStep foldStep(byte[] from, int limit, boolean concurrent) {
        KeyValueStore.Batch batch = store.newQuietBatch();
        List<byte[]> foldedKeys = new ArrayList<>();
        int n = 0;
        int blocks = 0;
        byte[] last = null;
        Group group = null;
        boolean more;
        // one cursor over the blocks for the whole step, seeking each group's block (only fold steps write blocks,
        // one at a time, and this step's own writes wait in the batch)
        try (KeyValueStore.Cursor c = store.scan(Keys.of(Keyspace.RWI, from), Keys.prefixEnd(new byte[] {Keyspace.RWI}));
             KeyValueStore.Cursor cursor = store.scan(new byte[] {Keyspace.POSTING_BLOCKS},
                     Keys.prefixEnd(new byte[] {Keyspace.POSTING_BLOCKS}))) {
            BlockWalker blockCursor = new BlockWalker(cursor);
            while ((more = c.next()) && n < limit) {
                byte[] k = c.key();
                if (group == null || !group.covers(k)) {
                    if (group != null) blocks += group.writeTo(batch, blockScore);
                    group = openGroup(k, blockCursor);
                }
                group.fresh.add(new PostingBlock.Entry(Arrays.copyOfRange(k, URL_OFFSET, URL_OFFSET + P), c.value()));
                foldedKeys.add(k);
                last = k;
                n++;
            }
        }
        if (group != null) blocks += group.writeTo(batch, blockScore);
        if (n > 0) {
            blocksMayExist = true;
            store.exclusive(() -> {
                for (byte[] k : foldedKeys) {
                    if (!concurrent || !rewritten.contains(ByteBuffer.wrap(k))) batch.delete(k);
                }
                store.write(batch, false);
                return null;
            });
        }
        folded.addAndGet(n);
        return new FoldStep(n, blocks, more && last != null ? Arrays.copyOfRange(last, 1, 1 + KEY) : null);
    }

    /**
     * Folds every fresh entry (in steps), then compacts the fresh tier's key range so that reads do not step over
     * the deletes the fold left; returns how many were folded.
     */
    public long foldAll() {
        foldRoundStarting();
        boolean complete = false;
        long n = 0;
        try {
            byte[] at = new byte[KEY];
            while (at != null) {
                FoldStep s = fold(at, FOLD_STEP);
                n += s.folded();
                at = s.resume();
            }
            if (n > 0) store.compact(new byte[] {Keyspace.RWI}, new byte[] {(byte) (Keyspace.RWI + 1)});
            complete = true;
        } finally {
            foldRoundEnded(complete);
        }
        return n;
    }

    /** Fresh entries written since the last fold round began (an estimate the folder's schedule reads). */
    public long freshWrites() {
        return counting ? freshWrites.get() : 1;
    }

    /** Marks the start of a fold round: it will walk the whole fresh tier, from its first key. */
    public void foldRoundStarting() {
        rounds.incrementAndGet();
        freshWrites.set(0);
    }

    /** Marks the end of a round; {@code complete} if it walked the whole fresh tier. */
    public void foldRoundEnded(boolean complete) {
        if (complete) roundCompleted = true;
        else freshWrites.incrementAndGet(); // what it left is still fresh
        rounds.decrementAndGet();
    }

    /**
     * True when the fresh tier holds nothing: a round walked all of it, none runs now, and nothing was written since
     * that round began. Reads then leave the fresh tier alone: LevelDB would walk its folded (deleted) entries until a
     * compaction drops them. A write racing this answer is one the read may or may not see, as with any write.
     */
    public boolean freshTierEmpty() {
        return counting && roundCompleted && rounds.get() == 0 && freshWrites.get() == 0;
    }

    /** A stream over one word's postings in both tiers (the fresh tier only if it may hold any). */
    public PostingStream stream(WordHash word) {
        return PostingStream.ofWord(store, HashBytes.pack(word.value()), !freshTierEmpty());
    }

    /** True while a fold round runs (the background folder's or {@link #foldAll}'s). */
    public boolean folding() {
        return rounds.get() > 0;
    }

    /** Fresh entries folded since this index was opened. */
    public long foldedEntries() {
        return folded.get();
    }

    /**
     * A forward cursor over the blocks for one fold step, whose targets come in key order: it steps to the next
     * blocks before it seeks, since an iq80 seek positions an iterator on every level and reads (and decompresses) a
     * table block for each, where stepping reads each table block once.
     */
    private static final class BlockWalker {
        /** blocks stepped over before a seek: most targets of a step are a few blocks on */
        static final int HOPS = 16;
        final KeyValueStore.Cursor cursor;
        byte[] key;
        boolean ended;

        BlockWalker(KeyValueStore.Cursor cursor) {
            this.cursor = cursor;
        }

        /** Positions on the first block at or after {@code target}; false if there is none. */
        boolean moveTo(byte[] target) {
            if (key != null && Keys.compare(key, target) >= 0) return true;
            if (ended) return false;
            if (key != null) {
                for (int i = 0; i < HOPS; i++) {
                    if (!cursor.next()) {
                        ended = true;
                        key = null;
                        return false;
                    }
                    key = cursor.key();
                    if (Keys.compare(key, target) >= 0) return true;
                }
            }
            cursor.seek(target);
            if (!cursor.next()) {
                ended = true;
                key = null;
                return false;
            }
            key = cursor.key();
            return true;
        }
    }

    /** The block a fresh entry goes to: the one of its partition that covers its URL, or a new one. */
    private Group openGroup(byte[] freshKey, BlockWalker blocks) {
        byte[] word = Arrays.copyOfRange(freshKey, WORD_OFFSET, URL_OFFSET);
        int partition = partitionOf(freshKey, URL_OFFSET);
        byte[] seek = freshKey.clone();
        seek[0] = Keyspace.POSTING_BLOCKS;
        if (blocks.moveTo(seek)) {
            byte[] k = blocks.key;
            if (Arrays.equals(k, WORD_OFFSET, URL_OFFSET, word, 0, P) && partitionOf(k, URL_OFFSET) == partition) {
                return new Group(word, k.clone(), PostingBlock.decode(blocks.cursor.value()));
            }
        }
        return new Group(word, Keys.of(Keyspace.POSTING_BLOCKS, word, partitionEnd(partition)), null);
    }

    /** A block (or a new one) and the fresh entries folded into it. */
    private static final class Group {
        final byte[] word;
        final byte[] blockKey;
        final PostingBlock block;
        final List<PostingBlock.Entry> fresh = new ArrayList<>();

        Group(byte[] word, byte[] blockKey, PostingBlock block) {
            this.word = word;
            this.blockKey = blockKey;
            this.block = block;
        }

        /** True if a later fresh key (keys come in order) falls into this block: same word, URL at most its end. */
        boolean covers(byte[] freshKey) {
            return Arrays.equals(freshKey, WORD_OFFSET, URL_OFFSET, word, 0, P)
                    && Arrays.compareUnsigned(freshKey, URL_OFFSET, URL_OFFSET + P, blockKey, URL_OFFSET, URL_OFFSET + P) <= 0;
        }

        /** Writes the merged block (cut when too large) to the batch; returns the blocks written. */
        int writeTo(KeyValueStore.Batch batch, BlockScore score) {
            List<PostingBlock.Entry> merged = new ArrayList<>((block == null ? 0 : block.size()) + fresh.size());
            int i = 0;
            int j = 0;
            int bn = block == null ? 0 : block.size();
            while (i < bn || j < fresh.size()) {
                int c = i >= bn ? 1 : j >= fresh.size() ? -1 : block.compareUrl(i, fresh.get(j).packedUrl(), 0);
                if (c < 0) {
                    merged.add(new PostingBlock.Entry(block.packedUrl(i), block.value(i)));
                    i++;
                } else {
                    if (c == 0) i++;
                    PostingBlock.Entry f = fresh.get(j++);
                    if (!Keyspace.isTombstone(f.value())) merged.add(f);
                }
            }
            if (merged.isEmpty()) {
                if (block != null) batch.delete(blockKey);
                return 0;
            }
            int parts = merged.size() <= PostingBlock.MAX ? 1 : (merged.size() + PostingBlock.TARGET - 1) / PostingBlock.TARGET;
            // one block again: its postings score at most the old block's highest and the fresh ones' (a posting
            // replaced or deleted may leave the bound a little high until the block splits; never low), so only the
            // fresh ones are scored; split blocks are scored posting by posting
            boolean keepsBound = parts == 1 && score != null && block != null && block.scoreRevision() == score.revision();
            int at = 0;
            for (int part = 0; part < parts; part++) {
                int end = merged.size() * (part + 1) / parts;
                List<PostingBlock.Entry> slice = merged.subList(at, end);
                // every block but the last ends at its last URL; the last keeps the range's end
                byte[] key = part + 1 < parts ? Keys.of(Keyspace.POSTING_BLOCKS, word, slice.get(slice.size() - 1).packedUrl())
                        : blockKey;
                batch.put(key, keepsBound
                        ? PostingBlock.encode(slice, score.revision(),
                                Math.max(block.maxScore(), PostingBlock.highestScore(fresh, word, score)))
                        : PostingBlock.encode(slice, word, score));
                at = end;
            }
            return parts;
        }
    }

    /** Adds postings in one atomic batch. */
    public void add(Collection<Posting> postings, boolean sync) {
        KeyValueStore.Batch batch = store.newBatch();
        for (Posting p : postings) addTo(batch, p);
        store.write(batch, sync);
    }

    /** The posting of one word in one document, if there is one. */
    public Optional<Posting> get(WordHash word, UrlHash url) {
        return getEncoded(word, url).map(v -> PostingCodec.decode(word, url, v));
    }

    /** The stored (encoded) posting of one word in one document: for callers that read a field or two of it. */
    public Optional<byte[]> getEncoded(WordHash word, UrlHash url) {
        byte[] k = key(word, url);
        Optional<byte[]> fresh = freshTierEmpty() ? Optional.empty() : store.get(k);
        if (fresh.isPresent()) return Keyspace.isTombstone(fresh.get()) ? Optional.empty() : fresh;
        if (!blocksMayExist) return Optional.empty();
        // the block that covers the URL: the first whose highest URL is at or above it
        k[0] = Keyspace.POSTING_BLOCKS;
        byte[] wordEnd = Keys.prefixEnd(Arrays.copyOfRange(k, 0, 1 + P));
        try (KeyValueStore.Cursor c = store.scan(k, wordEnd)) {
            if (!c.next()) return Optional.empty();
            PostingBlock b = PostingBlock.decode(c.value());
            int i = b.seek(0, k, 1 + P);
            return i < b.size() && b.compareUrl(i, k, 1 + P) == 0 ? Optional.of(b.value(i)) : Optional.empty();
        }
    }

    /** All postings of a word, sorted by URL hash. */
    public List<Posting> postings(WordHash word) {
        List<Posting> out = new ArrayList<>();
        scan(word, out::add);
        return out;
    }

    public void scan(WordHash word, Consumer<Posting> sink) {
        try (PostingStream ps = stream(word)) {
            for (; !ps.exhausted(); ps.next()) sink.accept(decodeCurrent(ps));
        }
    }

    private static Posting decodeCurrent(PostingStream ps) {
        return decode(ps.key(), ps.value());
    }

    /** The postings of one (word, partition): a contiguous key range, since the partition is a URL-hash prefix. */
    public List<Posting> postings(WordHash word, int partition) {
        List<Posting> out = new ArrayList<>();
        scan(word, partition, out::add);
        return out;
    }

    public void scan(WordHash word, int partition, Consumer<Posting> sink) {
        scan(word, partition, 0, null, sink);
    }

    /** Whether a scan passes over the rest of a block, given what the block says of it. */
    public interface BlockSkip {
        /**
         * True to pass over the {@code left} postings from here to the end of a block whose postings score at most
         * {@code maxScore} (under the scan's {@link BlockScore} revision) and whose ceiling is {@code ceiling}.
         */
        boolean skip(double maxScore, PostingBlock.Ceiling ceiling, int left);
    }

    /**
     * The postings of one (word, partition), in URL-hash order, asking {@code skip} (if not null) at each folded
     * posting of a block scored with {@code revision} whether to pass over the rest of its block unread.
     */
    public void scan(WordHash word, int partition, int revision, BlockSkip skip, Consumer<Posting> sink) {
        try (PostingStream ps = stream(word, partition)) {
            while (!ps.exhausted()) {
                if (skip != null) {
                    double max = ps.blockMaxScore(revision);
                    if (max != Double.POSITIVE_INFINITY && skip.skip(max, ps.blockCeiling(), ps.leftInBlock())) {
                        ps.skipBlock();
                        continue;
                    }
                }
                sink.accept(decodeCurrent(ps));
                ps.next();
            }
        }
    }

    /**
     * The URL hashes of one (word, partition) that are not cached copies ({@link Posting#CACHED}), in URL-hash order,
     * read from the keys and the flags alone: what a count or a filter of the range needs, without decoding a posting
     * (a count request decoded every posting of its ranges, positions and holder id included, to count them).
     */
    public void scanHeldUrls(WordHash word, int partition, Consumer<String> sink) {
        forEachHeld(word, partition, key -> sink.accept(HashBytes.unpack(key, URL_OFFSET)));
    }

    /** How many postings of one (word, partition) are not cached copies ({@link #scanHeldUrls}'s, without the URLs). */
    public int countHeld(WordHash word, int partition) {
        int[] n = {0};
        forEachHeld(word, partition, key -> n[0]++);
        return n[0];
    }

    /** The stored key of every posting of one (word, partition) that is not a cached copy, judged by its flags. */
    private void forEachHeld(WordHash word, int partition, Consumer<byte[]> keys) {
        try (PostingStream ps = stream(word, partition)) {
            while (!ps.exhausted()) {
                if ((PostingCodec.flags(ps.value()) & Posting.CACHED) == 0) keys.accept(ps.key());
                ps.next();
            }
        }
    }

    /** A stream over the postings of one (word, partition): a contiguous key range, the partition a URL-hash prefix. */
    private PostingStream stream(WordHash word, int partition) {
        byte[] w = HashBytes.pack(word.value());
        byte[] from = Keys.concat(w, partitionStart(partition));
        byte[] to = partition + 1 < partitions.count() ? Keys.concat(w, partitionStart(partition + 1)) : wordEnd(w);
        return new PostingStream(store, from, to, !freshTierEmpty());
    }

    /** The first packed URL hash of a partition. */
    private byte[] partitionStart(int partition) {
        byte[] u = new byte[P];
        int e = partitions.exponent();
        if (e > 0) u[0] = (byte) (partition << (8 - e));
        return u;
    }

    /** The last packed URL hash of a partition: the highest a block of it may cover. */
    private byte[] partitionEnd(int partition) {
        byte[] u = new byte[P];
        Arrays.fill(u, (byte) 0xff);
        int e = partitions.exponent();
        if (e > 0) u[0] = (byte) (((partition + 1) << (8 - e)) - 1);
        return u;
    }

    private int partitionOf(byte[] packedUrl, int off) {
        int e = partitions.exponent();
        return e == 0 ? 0 : (packedUrl[off] & 0xff) >>> (8 - e);
    }

    /** The first logical key after every key of a packed word, or null after the last word. */
    private static byte[] wordEnd(byte[] packedWord) {
        byte[] end = Keys.prefixEnd(packedWord);
        return end == null ? null : Arrays.copyOf(end, KEY);
    }

    /**
     * Number of postings of a word (merging the tiers, decoding no posting; while the fresh tier is empty, the sum of
     * its blocks' counts).
     */
    public int count(WordHash word) {
        if (freshTierEmpty()) {
            long sum = 0;
            try (KeyValueStore.Cursor c = store.scanPrefix(Keys.of(Keyspace.POSTING_BLOCKS, HashBytes.pack(word.value())))) {
                while (c.next()) sum += PostingBlock.countOf(c.value());
            }
            return (int) Math.min(Integer.MAX_VALUE, sum);
        }
        int n = 0;
        try (PostingStream ps = stream(word)) {
            for (; !ps.exhausted(); ps.next()) n++;
        }
        return n;
    }

    public int count(WordHash word, int partition) {
        int[] n = {0};
        scan(word, partition, p -> n[0]++);
        return n[0];
    }

    /**
     * The words a URL has postings for: those of its word list ({@link #addDocumentTo}) that still have a posting
     * (a hand-off or a single delete removes a posting and leaves the list alone) and those added one by one
     * ({@link #addTo}).
     */
    public List<WordHash> wordsOf(UrlHash url) {
        LinkedHashSet<WordHash> out = new LinkedHashSet<>();
        List<WordHash> listed = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(documentWordsKey(url))) {
            while (c.next()) {
                byte[] k = c.key();
                if (k.length == 1 + P) {
                    byte[] list = c.value();
                    for (int i = 0; i + P <= list.length; i += P) listed.add(new WordHash(HashBytes.unpack(list, i)));
                } else {
                    out.add(new WordHash(HashBytes.unpack(k, 1 + P)));
                }
            }
        }
        for (WordHash w : listed) if (!out.contains(w) && getEncoded(w, url).isPresent()) out.add(w);
        return new ArrayList<>(out);
    }

    /** Deletes every posting of a URL, and its word list; returns how many postings were deleted. */
    public int deleteUrl(UrlHash url) {
        List<WordHash> words = wordsOf(url);
        KeyValueStore.Batch batch = store.newBatch();
        for (WordHash w : words) deleteTo(batch, w, url);
        batch.delete(documentWordsKey(url));
        store.write(batch, false);
        return words.size();
    }

    /** Deletes single postings (after a hand-off or when a cached entry expires). */
    public void delete(Collection<Posting> postings) {
        KeyValueStore.Batch batch = store.newBatch();
        for (Posting p : postings) deleteTo(batch, p.word(), p.url());
        store.write(batch, false);
    }

    /** Every posting, in key order (word, then URL). */
    public void scanAll(Consumer<Posting> sink) {
        scanAll(p -> true, sink);
    }

    public void scanAll(Predicate<Posting> filter, Consumer<Posting> sink) {
        scanEntries((k, v) -> {
            Posting p = decode(k, v);
            if (filter.test(p)) sink.accept(p);
        });
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
        try (PostingStream ps = new PostingStream(store, new byte[KEY], null, !freshTierEmpty())) {
            for (; !ps.exhausted(); ps.next()) sink.accept(ps.key(), ps.value());
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
            byte[] to = prefix + 1 == 1 << bucketBits ? null : bucketKey(prefix + 1, bucketBits);
            // one stream over the range's words: it jumps to each word's partition, then to the next word
            try (PostingStream ps = new PostingStream(store, bucketKey(prefix, bucketBits), to, !freshTierEmpty())) {
                byte[] target = new byte[KEY];
                while (!ps.exhausted()) {
                    byte[] k = ps.key();
                    if (Arrays.compareUnsigned(k, URL_OFFSET, URL_OFFSET + P, urlFrom, 0, P) < 0) {
                        System.arraycopy(k, WORD_OFFSET, target, 0, P);
                        System.arraycopy(urlFrom, 0, target, P, P);
                        ps.advanceTo(target);
                        continue;
                    }
                    if (urlTo == null || Arrays.compareUnsigned(k, URL_OFFSET, URL_OFFSET + P, urlTo, 0, P) < 0) {
                        sink.accept(k, ps.value());
                        ps.next();
                        continue;
                    }
                    // past the partition: the next word
                    byte[] next = wordEnd(Arrays.copyOfRange(k, WORD_OFFSET, URL_OFFSET));
                    if (next == null) break;
                    ps.advanceTo(next);
                }
            }
        }
    }

    /** The first logical key whose packed word hash starts with the {@code bits}-bit {@code prefix}. */
    private static byte[] bucketKey(int prefix, int bits) {
        int v = prefix << (24 - bits);
        byte[] k = new byte[KEY];
        k[0] = (byte) (v >>> 16);
        k[1] = (byte) (v >>> 8);
        k[2] = (byte) v;
        return k;
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

    /** Total postings (a full scan; for status, cache it). */
    public long totalPostings() {
        long n = 0;
        try (PostingStream ps = new PostingStream(store, new byte[KEY], null, !freshTierEmpty())) {
            for (; !ps.exhausted(); ps.next()) n++;
        }
        return n;
    }

}
