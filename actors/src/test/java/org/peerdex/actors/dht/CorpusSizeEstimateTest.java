package org.peerdex.actors.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.search.DhtCandidateSource;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;

/** BM25's N as a peer estimates it from its own metadata and its share of the ring. */
class CorpusSizeEstimateTest {
    @Test
    void everyPeerEstimatesTheCollectionWithinATenthFromItsOwnMetadata() {
        SplittableRandom random = new SplittableRandom(5);
        List<PeerId> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) ids.add(PeerId.random(random));
        Ring ring = Ring.of(ids);
        Placement placement = Placement.defaults();
        int documents = 40_000;
        // what each peer keeps: the metadata of its own crawl and of the URLs it is a metadata holder of
        Map<PeerId, Integer> kept = new HashMap<>();
        for (int d = 0; d < documents; d++) {
            UrlHash url = UrlHash.of("http://site" + (d % 997) + ".test/page-" + d + ".html");
            PeerId crawler = ids.get(d % ids.size());
            List<PeerId> holders = placement.metadataHolders(url, ring);
            for (PeerId h : holders) kept.merge(h, 1, Integer::sum);
            if (!holders.contains(crawler)) kept.merge(crawler, 1, Integer::sum);
        }
        double worst = 0;
        for (PeerId p : ids) {
            long estimate = DhtCandidateSource.estimateDocuments(kept.getOrDefault(p, 0), p, ring, placement);
            worst = Math.max(worst, Math.abs(estimate / (double) documents - 1));
        }
        assertTrue(worst < 0.1, "largest relative error " + worst);
        PeerId any = ids.get(0);
        assertEquals((long) kept.get(any), DhtCandidateSource.estimateDocuments(kept.get(any), any, Ring.of(List.of(any)),
                placement), "a ring of one: the peer holds everything");
    }
}
