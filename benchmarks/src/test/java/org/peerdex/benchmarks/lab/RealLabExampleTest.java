package org.peerdex.benchmarks.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.peerdex.benchmarks.lab.RealLabExtension.Lab;

@ExtendWith(RealLabExtension.class)
class RealLabExampleTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aDocumentIndexedAtOnePeerIsFoundOverHttpFromAnotherEvenAfterItsCrawlerCrashed(@Lab(peers = 3) RealLab lab) {
        lab.addDocument(0, "http://example.org/dht", "Distributed hash tables",
                "peers keep the reverse word index in a distributed hash table with three copies");
        lab.addDocument(0, "http://example.org/other", "Something else", "gardening with tomatoes and basil");
        lab.awaitReplication();
        assertEquals(List.of("http://example.org/dht"), lab.search(2, "distributed hash"));
        assertEquals(List.of(), lab.search(2, "distributed tomatoes"));

        lab.kill(0); // a crash: no leave, the others' failure detectors notice
        lab.awaitRing();
        assertEquals(List.of("http://example.org/other"), lab.search(1, "basil"), "R = 3 copies: 1 and 2 hold it");
        lab.restart(0); // same data directory, same peer id
        assertTrue(lab.isUp(0));
        assertEquals(List.of("http://example.org/dht"), lab.search(0, "distributed hash"));
    }
}
