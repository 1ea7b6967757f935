package org.peerdex.actors.dht;

import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;

/** One word in one vertical partition: the unit of placement, lookup and counting. */
public record RangeKey(WordHash word, int partition) {
    public RangeKey {
        if (word == null) throw new IllegalArgumentException("range key needs a word hash");
        if (partition < 0 || partition > 255) throw new IllegalArgumentException("partition out of range");
    }

    public long position(Partitions partitions) {
        return partitions.position(word, partition);
    }
}
