package org.peerdex.actors.dht.shard;

import org.peerdex.protocol.hash.PeerId;

/**
 * A digest of one range of what a peer holds, for anti-entropy: the entries of one kind (postings or metadata)
 * that came from one origin peer (the crawler that holds the full metadata) and whose DHT position falls into one
 * of {@link Digests#BUCKETS} buckets of the ring. Equal count and sum: the range is (almost surely) in sync.
 *
 * @param kind   'p' postings, 'm' URL metadata
 * @param origin the crawling peer
 * @param bucket top {@link Digests#BUCKET_BITS} bits of the position
 * @param count  number of entries
 * @param sum    sum of 64-bit entry hashes (order-independent)
 */
public record RangeDigest(char kind, PeerId origin, int bucket, int count, long sum) {
    public RangeDigest {
        if (kind != 'p' && kind != 'm') throw new IllegalArgumentException("digest kind must be p or m");
        if (origin == null) throw new IllegalArgumentException("digest needs an origin");
        if (bucket < 0 || bucket >= Digests.BUCKETS) throw new IllegalArgumentException("bucket out of range");
        if (count < 0) throw new IllegalArgumentException("negative count");
    }

    /** The range this digest covers, without its content. */
    public Range range() {
        return new Range(kind, origin, bucket);
    }

    /** A range: kind, origin, bucket. */
    public record Range(char kind, PeerId origin, int bucket) {}
}
