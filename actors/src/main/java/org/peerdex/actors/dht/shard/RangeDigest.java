package org.peerdex.actors.dht.shard;

import org.peerdex.protocol.hash.PeerId;

/**
 * A digest of one range of what a peer holds, for anti-entropy: the entries of one kind (postings or metadata)
 * that came from one origin peer (the crawler that holds the full metadata) and whose DHT position falls into one
 * of {@link Digests#BUCKETS} buckets of the ring. Equal count and sum: the range is (almost surely) in sync.
 *
 * @param kind   'p' postings and 'm' URL metadata at positions both the sender and the receiver hold; 'c' postings
 *               and 'd' metadata of the sender's own crawl at positions the receiver holds and the sender does not
 *               (its crawl repair): each side counts exactly the same entries, whatever else the bucket holds
 * @param origin the crawling peer
 * @param bucket top {@link Digests#BUCKET_BITS} bits of the position
 * @param count  number of entries
 * @param sum    sum of 64-bit entry hashes (order-independent)
 */
public record RangeDigest(char kind, PeerId origin, int bucket, int count, long sum) {
    public RangeDigest {
        if (!isKind(kind)) throw new IllegalArgumentException("digest kind must be p, m, c or d");
        if (origin == null) throw new IllegalArgumentException("digest needs an origin");
        if (bucket < 0 || bucket >= Digests.BUCKETS) throw new IllegalArgumentException("bucket out of range");
        if (count < 0) throw new IllegalArgumentException("negative count");
    }

    public static boolean isKind(char kind) {
        return kind == 'p' || kind == 'm' || kind == 'c' || kind == 'd';
    }

    /** The kind a posting's range has for its sender: 'p' if the sender holds its position, else 'c' (its crawl). */
    public static char postingsKind(boolean senderHolds) {
        return senderHolds ? 'p' : 'c';
    }

    /** The kind a metadata record's range has for its sender: 'm' if the sender holds its position, else 'd'. */
    public static char metadataKind(boolean senderHolds) {
        return senderHolds ? 'm' : 'd';
    }

    /** Whether entries of this kind are postings ('p', 'c') rather than metadata ('m', 'd'). */
    public static boolean isPostings(char kind) {
        return kind == 'p' || kind == 'c';
    }

    /** Whether this kind covers the sender's own crawl at positions it does not hold ('c', 'd'). */
    public static boolean isCrawl(char kind) {
        return kind == 'c' || kind == 'd';
    }

    /** The range this digest covers, without its content. */
    public Range range() {
        return new Range(kind, origin, bucket);
    }

    /** A range: kind, origin, bucket. */
    public record Range(char kind, PeerId origin, int bucket) {}

    /**
     * A range whose digests differ, with the entry hashes ({@link Digests#entryHash}) its responder holds in it,
     * sorted: the sender sends only the entries whose hash is not among them. {@code held} null: the responder did not
     * list them (over its bound, or a peer before key lists), and the sender sends the whole range.
     */
    public record Differing(Range range, long[] held) {
        public Differing(Range range) {
            this(range, null);
        }
    }
}
