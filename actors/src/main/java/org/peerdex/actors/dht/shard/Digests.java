package org.peerdex.actors.dht.shard;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.rwi.HashBytes;
import org.peerdex.storage.rwi.Posting;

/**
 * Accumulates range digests (anti-entropy) and compares them. Per origin, or {@link #folded folded}: the 'p' and 'm'
 * ranges of all origins summed per bucket under one sender, as {@link #foldOrigins} makes them. Not thread-safe.
 */
public final class Digests {
    public static final int BUCKET_BITS = 10;
    public static final int BUCKETS = 1 << BUCKET_BITS;
    private final Map<RangeDigest.Range, long[]> acc = new HashMap<>();
    /** folded: the sender the 'p' and 'm' digests are named for (null: per origin) */
    private final PeerId sender;
    /** folded: per bucket, {count, sum} of 'p' (index 0) and 'm' (index 1) entries; null until one is added */
    private final long[][][] byBucket;

    public Digests() {
        this.sender = null;
        this.byBucket = null;
    }

    private Digests(PeerId sender) {
        this.sender = sender;
        this.byBucket = new long[2][][];
    }

    /**
     * Digests whose 'p' and 'm' ranges are summed over their origins as they are added, named {@code sender}: what
     * {@link #foldOrigins} makes of the per-origin digests, without a range per origin ever being kept (a plan at a
     * holder of many crawlers' postings found a range in a map for every word and partition it scanned, then sorted
     * and folded them all).
     */
    public static Digests folded(PeerId sender) {
        return new Digests(Objects.requireNonNull(sender, "sender"));
    }

    /** Whether this accumulates folded digests. */
    public boolean isFolded() {
        return sender != null;
    }

    public static int bucketOf(long position) {
        return (int) (position >>> (63 - BUCKET_BITS));
    }

    /** The lowest position of a bucket. */
    public static long bucketStart(int bucket) {
        return (long) bucket << (63 - BUCKET_BITS);
    }

    /** The highest position of a bucket. */
    public static long bucketEnd(int bucket) {
        return bucketStart(bucket) + ((1L << (63 - BUCKET_BITS)) - 1);
    }

    public static int bucketOf(Posting p, Partitions partitions) {
        return bucketOf(partitions.position(p.word(), p.url()));
    }

    public static int bucketOfMetadata(UrlHash url) {
        return bucketOf(url.position());
    }

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    /** FNV-1a over the characters of the word's and the URL's hash (no word: metadata), mixed. */
    public static long entryHash(WordHash word, UrlHash url) {
        long h = FNV_OFFSET;
        if (word != null) h = fnv(h, word.value());
        return mix(fnv(h, url.value()));
    }

    /**
     * The same hash from packed hashes ({@link HashBytes}) in {@code key}: the word's at {@code wordOffset} (-1:
     * none) and the URL's at {@code urlOffset}; no strings made.
     */
    public static long entryHash(byte[] key, int wordOffset, int urlOffset) {
        long h = FNV_OFFSET;
        if (wordOffset >= 0) h = fnv(h, key, wordOffset);
        return mix(fnv(h, key, urlOffset));
    }

    private static long fnv(long h, String s) {
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= FNV_PRIME;
        }
        return h;
    }

    private static long fnv(long h, byte[] packed, int off) {
        for (int g = 0; g < 3; g++) {
            int v = ((packed[off + g * 3] & 0xff) << 16) | ((packed[off + g * 3 + 1] & 0xff) << 8)
                    | (packed[off + g * 3 + 2] & 0xff);
            for (int shift = 18; shift >= 0; shift -= 6) {
                h ^= Base64Order.character(v >>> shift);
                h *= FNV_PRIME;
            }
        }
        return h;
    }

    private static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h;
    }

    public void addPosting(PeerId origin, Posting p, Partitions partitions) {
        add(new RangeDigest.Range('p', origin, bucketOf(p, partitions)), entryHash(p.word(), p.url()));
    }

    public void addMetadata(PeerId origin, UrlHash url) {
        add(new RangeDigest.Range('m', origin, bucketOfMetadata(url)), entryHash(null, url));
    }

    /** One entry of {@code kind} ('p' or 'm') from {@code origin}, in {@code bucket}, with its entry hash. */
    public void add(char kind, PeerId origin, int bucket, long entryHash) {
        add(new RangeDigest.Range(kind, origin, bucket), entryHash);
    }

    private void add(RangeDigest.Range r, long h) {
        long[] a = accumulator(r.kind(), r.origin(), r.bucket());
        a[0]++;
        a[1] += h;
    }

    /**
     * The accumulator of one range, {count, sum of entry hashes}: adding an entry is {@code a[0]++; a[1] += hash}.
     * For a scan that adds many entries of one range in a row (a word's postings in one partition) without finding
     * the range again for each.
     */
    public long[] accumulator(char kind, PeerId origin, int bucket) {
        if (sender != null && (kind == 'p' || kind == 'm') && bucket >= 0 && bucket < BUCKETS) {
            int k = kind == 'p' ? 0 : 1;
            if (byBucket[k] == null) byBucket[k] = new long[BUCKETS][];
            long[] a = byBucket[k][bucket];
            return a != null ? a : (byBucket[k][bucket] = new long[2]);
        }
        // per origin (a folded set keeps the crawl's own kinds per origin too, as foldOrigins does)
        return acc.computeIfAbsent(new RangeDigest.Range(kind, origin, bucket), k -> new long[2]);
    }

    public List<RangeDigest> digests() {
        return digests(r -> true);
    }

    /** The digests of the ranges {@code wanted} accepts, sorted as {@link #digests()} sorts. */
    public List<RangeDigest> digests(Predicate<RangeDigest.Range> wanted) {
        List<RangeDigest> out = new ArrayList<>();
        acc.forEach((r, a) -> {
            if (wanted.test(r)) out.add(new RangeDigest(r.kind(), r.origin(), r.bucket(), (int) a[0], a[1]));
        });
        if (sender != null) {
            for (int k = 0; k < 2; k++) {
                if (byBucket[k] == null) continue;
                char kind = k == 0 ? 'p' : 'm';
                for (int b = 0; b < BUCKETS; b++) {
                    long[] a = byBucket[k][b];
                    if (a == null || !wanted.test(new RangeDigest.Range(kind, sender, b))) continue;
                    out.add(new RangeDigest(kind, sender, b, (int) Math.min(Integer.MAX_VALUE, a[0]), a[1]));
                }
            }
        }
        return sorted(out);
    }

    /**
     * The digests in {@link #ORDER}: each origin's id compared once, then one sort of primitive keys (origin's rank,
     * bucket, kind, place), where comparing ids as strings for every pair was a fifth of a rebalance plan.
     */
    static List<RangeDigest> sorted(List<RangeDigest> ds) {
        int n = ds.size();
        Map<PeerId, Integer> rank = new HashMap<>();
        boolean packable = n >= 64 && n < 1 << 24;
        for (int i = 0; packable && i < n; i++) {
            RangeDigest d = ds.get(i);
            packable = d.bucket() >= 0 && d.bucket() < 1 << 11 && d.kind() < 128; // else outside the packed key
            rank.putIfAbsent(d.origin(), 0);
        }
        if (!packable || rank.size() >= 1 << 21) { // few, or not packable: compare
            ds.sort(ORDER);
            return ds;
        }
        List<PeerId> origins = new ArrayList<>(rank.keySet());
        origins.sort(Comparator.comparing(PeerId::value));
        for (int i = 0; i < origins.size(); i++) rank.put(origins.get(i), i);
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            RangeDigest d = ds.get(i);
            keys[i] = (long) rank.get(d.origin()) << 42 | (long) d.bucket() << 31 | (long) d.kind() << 24 | i;
        }
        Arrays.sort(keys);
        List<RangeDigest> out = new ArrayList<>(n);
        for (long k : keys) out.add(ds.get((int) (k & 0xffffff)));
        return out;
    }

    /** By origin id, bucket, kind: the order digests are sent and compared in. */
    private static final Comparator<RangeDigest> ORDER = (a, b) -> {
        int c = a.origin().value().compareTo(b.origin().value());
        if (c != 0) return c;
        c = Integer.compare(a.bucket(), b.bucket());
        return c != 0 ? c : Character.compare(a.kind(), b.kind());
    };

    public RangeDigest digest(RangeDigest.Range r) {
        if (sender != null) throw new IllegalStateException("a folded set is offered, not compared");
        long[] a = acc.getOrDefault(r, new long[2]);
        return new RangeDigest(r.kind(), r.origin(), r.bucket(), (int) a[0], a[1]);
    }

    /** The ranges of {@code offered} whose digests differ from ours (the sender then sends those ranges). */
    public List<RangeDigest.Range> differing(List<RangeDigest> offered) {
        List<RangeDigest.Range> out = new ArrayList<>();
        for (RangeDigest d : offered) {
            RangeDigest mine = digest(d.range());
            if (mine.count() != d.count() || mine.sum() != d.sum()) out.add(d.range());
        }
        return out;
    }

    /**
     * The same digests with the origins of each bucket's 'p' and 'm' digests summed into one, named {@code sender}
     * (what a digest request with all origins carries): one digest a bucket instead of one per crawling peer. 'c'
     * and 'd' digests (the sender's own crawl) stay as they are. Sorted as {@link #digests()} sorts.
     */
    public static List<RangeDigest> foldOrigins(List<RangeDigest> ds, PeerId sender) {
        Map<Integer, long[]> folded = new HashMap<>();
        List<RangeDigest> out = new ArrayList<>();
        for (RangeDigest d : ds) {
            if (RangeDigest.isCrawl(d.kind())) {
                out.add(d);
                continue;
            }
            long[] a = folded.computeIfAbsent(d.kind() << 16 | d.bucket(), k -> new long[2]);
            a[0] += d.count();
            a[1] += d.sum();
        }
        folded.forEach((key, a) -> out.add(new RangeDigest((char) (key >>> 16), sender, key & 0xffff,
                (int) Math.min(Integer.MAX_VALUE, a[0]), a[1])));
        return sorted(out);
    }

    /** The origins named in a set of digests (what a receiver needs to scan). */
    public static Set<PeerId> origins(List<RangeDigest> ds) {
        Set<PeerId> out = new HashSet<>();
        for (RangeDigest d : ds) out.add(d.origin());
        return out;
    }
}
