package org.peerdex.storage.durability;

import java.nio.file.Path;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.testing.TestPostings;

/**
 * The child JVM of {@link KillNineDurabilityTest}: indexes documents FIRST, FIRST+1, ... into a LevelDB peer
 * storage and prints "ACK n" after each flush that carried documents up to n, until it is killed.
 */
public final class IndexingChild {
    static final int DOCS_PER_FLUSH = 3;

    private IndexingChild() {}

    public static void main(String[] args) {
        Path dataDir = Path.of(args[0]);
        int first = Integer.parseInt(args[1]);
        PeerStorage storage = PeerStorage.openLevelDb(dataDir, new Partitions(4));
        System.out.println("OPEN " + storage.stats().documents());
        System.out.flush();
        for (int n = first; ; n++) {
            storage.writer().add(TestPostings.document(n));
            if ((n - first) % DOCS_PER_FLUSH == DOCS_PER_FLUSH - 1) {
                storage.writer().flush();
                System.out.println("ACK " + n);
                System.out.flush();
            }
        }
    }
}
