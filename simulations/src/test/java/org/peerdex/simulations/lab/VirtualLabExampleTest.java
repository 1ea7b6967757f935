package org.peerdex.simulations.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.peerdex.simulations.lab.VirtualLabExtension.Lab;

/** The example of docs/labs.md: a document survives the crash of the peer that indexed it. */
@ExtendWith(VirtualLabExtension.class)
class VirtualLabExampleTest {
    @Test
    void aDocumentIsFoundFromAnyPeerAfterItsCrawlerCrashed(@Lab(peers = 12) VirtualLab lab) {
        lab.addDocument(3, "http://example.org/dht", "Distributed hash tables",
                "peers keep the reverse word index in a distributed hash table with three copies");
        lab.addDocument(5, "http://example.org/other", "Something else", "gardening with tomatoes and basil");
        lab.awaitReplication();
        int[] copies = lab.liveCopies();
        assertEquals(0, copies[0] + copies[1] + copies[2], "every posting has R = 3 live copies");

        lab.kill(3);
        lab.awaitReplication(); // the ring changed: new holders get their copies by repair first
        assertEquals(List.of("http://example.org/dht"), lab.search(7, "distributed hash"));
        assertEquals(List.of(), lab.search(7, "distributed tomatoes"));
        lab.restart(3);
        assertTrue(lab.isUp(3));
        assertEquals(List.of("http://example.org/other"), lab.search(3, "basil"));
    }
}
