package org.peerdex.benchmarks.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.benchmarks.lab.RealLabExtension.Lab;

/** The lab's partition fault on real peers: the minority side is downed, heals, rejoins and catches up. */
@ExtendWith(RealLabExtension.class)
class RealLabPartitionTest {
    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aPeerCutOffByAPartitionIsDownedAndAfterHealingFindsWhatWasIndexedWithoutIt(@Lab(peers = 3) RealLab lab) {
        lab.addDocument(1, "http://example.org/before", "Before the split", "lighthouses guard rocky coasts");
        lab.awaitReplication();
        assertEquals(List.of("http://example.org/before"), lab.search(0, "lighthouses"));

        lab.partition(List.of(0)); // {0} | {1, 2}: keep-majority downs peer 0
        RealLab.await("peer 0 downed on the minority side", () -> lab.hasTerminated(0));
        assertFalse(lab.hasTerminated(1));
        assertFalse(lab.hasTerminated(2));
        lab.addDocument(2, "http://example.org/during", "During the split", "glaciers carve deep fjords");
        lab.awaitReplication();
        assertEquals(List.of("http://example.org/during"), lab.search(1, "glaciers"), "the majority serves on");

        lab.heal();
        lab.restart(0); // same data directory and peer id; it rejoins the majority
        RealLab.await("peer 0 finds what was indexed while it was cut off", () ->
                lab.search(0, "glaciers").equals(List.of("http://example.org/during")));
        assertEquals(List.of("http://example.org/before"), lab.search(0, "lighthouses"));
        // with R = 3 on 3 peers every peer holds every posting: peer 0 kept its own copy through the downing and
        // gets the one it missed back from the majority (the rebalance after it rejoins)
        RealLab.await("peer 0 holds the posting it missed", () -> holds(lab, 0, "glaciers", "http://example.org/during"));
        assertTrue(holds(lab, 0, "lighthouses", "http://example.org/before"));
    }

    private static boolean holds(RealLab lab, int peer, String word, String url) {
        return lab.node(peer).context().storage().rwi().get(WordHash.of(word), UrlHash.of(url)).isPresent();
    }
}
