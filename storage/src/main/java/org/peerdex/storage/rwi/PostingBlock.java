package org.peerdex.storage.rwi;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.kv.Keyspace;

/**
 * A block of the reverse word index's folded tier: up to {@link #TARGET} postings of one word in one vertical
 * partition, sorted by URL hash, stored under one key. Layout: a version byte, the count, the block's ceiling (the
 * largest hit count, every flag any posting has, the smallest text length and first position, the newest date: what
 * a bound on any posting's score needs), the highest score of its postings under a {@link BlockScore} with that
 * function's revision (revision 0 and no score when the fold had none), the packed URL hashes (9 bytes each, one
 * array, so a search moves through a block by comparing bytes), each posting's encoded length, and the postings as
 * {@link PostingCodec} wrote them (so a reader that wants a field or two of one posting reads it in place). Blocks
 * of version 2 (before the score) still read, as blocks without a score.
 */
public final class PostingBlock {
    /** Postings a block is cut to when the fold writes it. */
    public static final int TARGET = 128;
    /** Postings a block may hold before the fold splits it. */
    public static final int MAX = 2 * TARGET;
    private static final int VERSION = 3;
    /** The version before blocks carried their highest score: read, never written. */
    private static final int VERSION_WITHOUT_SCORE = 2;

    /** The largest values any posting of the block has (the smallest, for text length and first position). */
    public record Ceiling(int maxHitCount, int flags, int minWordsInText, int minFirstPosition, int maxLastModified) {}

    private final int count;
    private final Ceiling ceiling;
    private final int scoreRevision;
    private final float maxScore;
    private final byte[] data;
    private final int urlsAt;
    /** where each posting starts, read on the first {@link #value} (a jump through a block reads only its URLs) */
    private int[] valueStart;

    private PostingBlock(byte[] data) {
        this.data = data;
        Varint.Reader r = reader(data);
        count = r.readInt();
        if (count < 0 || count > MAX * 4) throw new IllegalArgumentException("posting block of " + count);
        ceiling = new Ceiling(r.readInt(), r.readInt(), r.readInt(), r.readInt(), r.readInt());
        if (data[0] == VERSION) {
            scoreRevision = r.readInt();
            int bits = 0;
            for (int i = 0; i < 4; i++) bits = bits << 8 | r.readByte();
            maxScore = Float.intBitsToFloat(bits);
        } else {
            scoreRevision = 0;
            maxScore = Float.POSITIVE_INFINITY;
        }
        urlsAt = r.position();
        if (urlsAt + (long) count * HashBytes.PACKED > data.length) {
            throw new IllegalArgumentException("posting block of " + data.length + " bytes holds no " + count + " URLs");
        }
    }

    private int[] valueStarts() {
        if (valueStart != null) return valueStart;
        Varint.Reader r = new Varint.Reader(data, urlsAt + count * HashBytes.PACKED);
        int[] starts = new int[count + 1];
        int[] lengths = new int[count];
        for (int i = 0; i < count; i++) lengths[i] = r.readInt();
        int at = r.position();
        for (int i = 0; i < count; i++) {
            starts[i] = at;
            at += lengths[i];
        }
        starts[count] = at;
        if (at != data.length) throw new IllegalArgumentException("posting block of " + data.length + " bytes, expected " + at);
        valueStart = starts;
        return starts;
    }

    /** A reader past the version byte of a stored block, which must be one this class reads. */
    private static Varint.Reader reader(byte[] stored) {
        Varint.Reader r = new Varint.Reader(stored, 0);
        int version = r.readByte();
        if (version != VERSION && version != VERSION_WITHOUT_SCORE) {
            throw new IllegalArgumentException("unknown posting block version " + version);
        }
        return r;
    }

    /** The number of postings of a stored block, reading its header only. */
    public static int countOf(byte[] stored) {
        return reader(stored).readInt();
    }

    /** Reads a stored block. */
    public static PostingBlock decode(byte[] stored) {
        return new PostingBlock(stored);
    }

    /** One entry to encode: a packed URL hash and the posting's encoded value. */
    public record Entry(byte[] packedUrl, byte[] value) {}

    /** Encodes entries sorted by URL hash (not checked here: the fold merges sorted runs), without a score. */
    public static byte[] encode(List<Entry> entries) {
        return encode(entries, null, null);
    }

    /**
     * Encodes entries of the word {@code packedWord} sorted by URL hash, with their highest score under
     * {@code score} (none if null).
     */
    public static byte[] encode(List<Entry> entries, byte[] packedWord, BlockScore score) {
        if (score == null || entries.isEmpty()) return encode(entries, 0, Double.POSITIVE_INFINITY);
        return encode(entries, score.revision(), highestScore(entries, packedWord, score));
    }

    /** The highest score under {@code score} of the entries (of the word {@code packedWord}); -infinity if none. */
    public static double highestScore(List<Entry> entries, byte[] packedWord, BlockScore score) {
        WordHash word = new WordHash(HashBytes.unpack(packedWord, 0));
        double best = Double.NEGATIVE_INFINITY;
        for (Entry e : entries) {
            if (Keyspace.isTombstone(e.value())) continue;
            UrlHash url = new UrlHash(HashBytes.unpack(e.packedUrl(), 0));
            best = Math.max(best, score.of(PostingCodec.decode(word, url, e.value())));
        }
        return best;
    }

    /**
     * Encodes entries sorted by URL hash with a highest score the caller took under the block score of
     * {@code revision} (0: none): at least every entry's score, or the bound is wrong.
     */
    public static byte[] encode(List<Entry> entries, int revision, double maxScore) {
        if (revision < 0) throw new IllegalArgumentException("a block score's revision must be positive");
        float max = revision == 0 ? Float.POSITIVE_INFINITY : roundUp(maxScore);
        int maxHits = 0;
        int flags = 0;
        int minWords = Integer.MAX_VALUE;
        int minFirst = Integer.MAX_VALUE;
        int maxDate = 0;
        for (Entry e : entries) {
            PostingCodec.Summary s = PostingCodec.summary(e.value());
            maxHits = Math.max(maxHits, s.hitCount());
            flags |= s.flags();
            minWords = Math.min(minWords, s.wordsInText());
            minFirst = Math.min(minFirst, s.firstPosition());
            maxDate = Math.max(maxDate, s.lastModified());
        }
        if (entries.isEmpty()) {
            minWords = 0;
            minFirst = 0;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + entries.size() * 32);
        out.write(VERSION);
        Varint.write(out, entries.size());
        Varint.write(out, maxHits);
        Varint.write(out, flags);
        Varint.write(out, minWords);
        Varint.write(out, minFirst);
        Varint.write(out, maxDate);
        Varint.write(out, revision);
        int bits = Float.floatToIntBits(max);
        for (int i = 3; i >= 0; i--) out.write(bits >>> (8 * i) & 0xFF);
        for (Entry e : entries) out.writeBytes(e.packedUrl());
        for (Entry e : entries) Varint.write(out, e.value().length);
        for (Entry e : entries) out.writeBytes(e.value());
        return out.toByteArray();
    }

    public int size() {
        return count;
    }

    public Ceiling ceiling() {
        return ceiling;
    }

    /** The revision of the {@link BlockScore} the block's highest score was taken with; 0 if it has none. */
    public int scoreRevision() {
        return scoreRevision;
    }

    /**
     * The highest score of the block's postings under the {@link BlockScore} of {@link #scoreRevision()} (rounded
     * up to a float, so never below any posting's); infinite when the block has none.
     */
    public double maxScore() {
        return maxScore;
    }

    /** The smallest float at or above {@code v} (a bound rounded down would no longer bound). */
    static float roundUp(double v) {
        if (Double.isNaN(v)) return Float.POSITIVE_INFINITY;
        float f = (float) v;
        return f < v ? Math.nextUp(f) : f;
    }

    /** Compares entry {@code i}'s URL with {@code packedUrl} at {@code off} (unsigned, as URL hashes sort). */
    public int compareUrl(int i, byte[] packedUrl, int off) {
        int at = urlsAt + i * HashBytes.PACKED;
        return Arrays.compareUnsigned(data, at, at + HashBytes.PACKED, packedUrl, off, off + HashBytes.PACKED);
    }

    /** Copies entry {@code i}'s packed URL hash into {@code out} at {@code off}. */
    public void copyUrl(int i, byte[] out, int off) {
        System.arraycopy(data, urlsAt + i * HashBytes.PACKED, out, off, HashBytes.PACKED);
    }

    public byte[] packedUrl(int i) {
        byte[] u = new byte[HashBytes.PACKED];
        copyUrl(i, u, 0);
        return u;
    }

    /** Entry {@code i}'s encoded posting (a copy). */
    public byte[] value(int i) {
        int[] starts = valueStarts();
        return Arrays.copyOfRange(data, starts[i], starts[i + 1]);
    }

    /** The first entry at or after {@code from} whose URL is at or after {@code packedUrl}; {@link #size()} if none. */
    public int seek(int from, byte[] packedUrl, int off) {
        int lo = from;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compareUrl(mid, packedUrl, off) < 0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
}
