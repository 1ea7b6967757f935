package org.peerdex.protocol.ring;

import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;

/**
 * Vertical partitioning (YaCy): with exponent e a word has 2^e positions, one per partition. A posting's partition
 * is the top e bits of its URL hash's position, so all words of one document fall in the same partition; the
 * word's position in partition p keeps the low 63-e bits of the word's position and puts p in the top e bits.
 */
public record Partitions(int exponent) {
    public static final int DEFAULT_EXPONENT = 4;

    public Partitions {
        if (exponent < 0 || exponent > 8) throw new IllegalArgumentException("partition exponent must be 0..8");
    }

    public int count() {
        return 1 << exponent;
    }

    public int partitionOf(UrlHash url) {
        return partitionOfPosition(url.position());
    }

    public int partitionOfPosition(long position) {
        return exponent == 0 ? 0 : (int) (position >>> (63 - exponent));
    }

    public long position(WordHash word, int partition) {
        return position(word.position(), partition);
    }

    /** The position in {@code partition} of a word at ring position {@code wordPosition}. */
    public long position(long wordPosition, int partition) {
        if (partition < 0 || partition >= count()) throw new IllegalArgumentException("partition out of range");
        if (exponent == 0) return wordPosition;
        long mask = (1L << (63 - exponent)) - 1;
        return (wordPosition & mask) | ((long) partition << (63 - exponent));
    }

    public long position(WordHash word, UrlHash url) {
        return position(word, partitionOf(url));
    }
}
