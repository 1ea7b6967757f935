package org.peerdex.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.node.PeerNode;
import org.peerdex.node.TestPeers;

/**
 * {@code POST /api/index/document} under a replication backlog: while the only other holder cannot be reached
 * (an Artery blackhole, shorter than the split-brain resolver's patience) the outbox grows; over
 * {@code outbox-pause-postings} the API answers 503 with Retry-After and takes nothing, as the crawler's indexer
 * pauses; once the holder is back the outbox drains, documents are taken again, and every acknowledged document is
 * on both peers.
 */
class DocumentBackpressureTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void overTheBacklogBoundDocumentsAreRefusedWith503AndTakenAgainOnceItDrains() throws Exception {
        Map<String, Object> patient = Map.of("pekko.cluster.split-brain-resolver.stable-after", "60s",
                "pekko.cluster.failure-detector.acceptable-heartbeat-pause", "60s",
                "peerdex.dht.outbox-pause-postings", 30);
        PeerNode a = PeerNode.start(ClusterLab.config(Files.createDirectories(dir.resolve("a")), List.of(), patient));
        PeerNode b = PeerNode.start(ClusterLab.config(Files.createDirectories(dir.resolve("b")),
                List.of(ClusterLab.seed(a)), patient));
        try {
            ClusterLab.await(Duration.ofSeconds(40), "a ring of 2", () -> ClusterLab.ringSize(a) == 2 && ClusterLab.ringSize(b) == 2);
            ClusterLab.blackhole(a, b, true);
            ClusterLab.blackhole(b, a, true);
            List<String> acknowledged = new ArrayList<>();
            TestPeers.Reply refused = null;
            for (int i = 0; i < 60 && refused == null; i++) {
                String url = "http://backlog.test/doc" + i;
                TestPeers.Reply r = ClusterLab.postDocument(a, ClusterLab.document(url, "harbour crane number " + i + " lifts containers"));
                if (r.status() == 200) acknowledged.add(url);
                else refused = r;
                Thread.sleep(100); // the Replicator plans each document's batches before the next is counted
            }
            assertTrue(refused != null, "no 503 after " + acknowledged.size() + " documents: "
                    + a.services().network().dht().stats().snapshot());
            assertEquals(503, refused.status(), refused.json().toString());
            assertTrue(refused.json().path("error").asText().contains("replication backlog"), refused.json().toString());
            assertTrue(!acknowledged.isEmpty());
            long held = a.context().storage().stats().documents();

            ClusterLab.blackhole(a, b, false);
            ClusterLab.blackhole(b, a, false);
            ClusterLab.await(Duration.ofSeconds(60), "the backlog drained and documents taken again",
                    () -> ClusterLab.postDocument(a, ClusterLab.document("http://backlog.test/after", "harbour crane after")).status() == 200);
            assertTrue(held >= acknowledged.size(), "every acknowledged document is held by a");
            ClusterLab.await(Duration.ofSeconds(60), "every acknowledged document found from b",
                    () -> ClusterLab.search(b, "harbour").containsAll(acknowledged));
        } finally {
            b.close();
            a.close();
        }
    }
}
