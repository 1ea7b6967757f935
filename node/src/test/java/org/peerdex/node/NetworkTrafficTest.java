package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
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

/**
 * The console's live traffic ({@code GET /api/peers/traffic}) between real peers on 127.0.0.1: replication from
 * the indexing peer shows as messages and bytes sent to the other active peer and received by it; the passive peer
 * is marked as such and is sent no postings.
 */
class NetworkTrafficTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void replicationShowsAsTrafficBetweenTheActivePeersAndNoneToThePassiveOne() throws Exception {
        List<PeerNode> nodes = new ArrayList<>();
        try {
            PeerNode a = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("a"))));
            nodes.add(a);
            List<String> seeds = List.of("127.0.0.1:" + a.clusterAddress().port().get());
            PeerNode b = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("b")),
                    Map.of("peerdex.cluster.seeds", seeds)));
            nodes.add(b);
            PeerNode c = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("c")),
                    Map.of("peerdex.cluster.seeds", seeds, "peerdex.dht.accept-remote-index", false)));
            nodes.add(c);
            NetworkTest.await(Duration.ofSeconds(40), () -> TestPeers.get(a.baseUrl() + "/api/peers").json()
                    .get("peers").size() == 3);
            JsonNode before = TestPeers.get(a.baseUrl() + "/api/peers/traffic").json();
            assertTrue(before.get("at").asLong() > 0);
            String passive = null;
            for (JsonNode p : TestPeers.get(a.baseUrl() + "/api/peers").json().get("peers")) {
                if (p.get("role").asText().equals("passive")) passive = p.get("peerId").asText();
            }
            assertEquals(c.peerId().value(), passive, "the peer that accepts no remote index is passive");

            TestPeers.Reply indexed = TestPeers.send(HttpRequest.newBuilder(URI.create(a.baseUrl() + "/api/index/manual"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build());
            assertEquals(200, indexed.status(), indexed.json().toString());
            String aId = a.peerId().value();
            String bId = b.peerId().value();
            NetworkTest.await(Duration.ofSeconds(40), () -> {
                JsonNode toB = TestPeers.get(a.baseUrl() + "/api/peers/traffic").json().get("peers").get(bId);
                JsonNode fromA = TestPeers.get(b.baseUrl() + "/api/peers/traffic").json().get("peers").get(aId);
                return toB != null && toB.get("sentMessages").asLong() > 0 && fromA != null
                        && fromA.get("receivedMessages").asLong() > 0;
            });
            JsonNode toB = TestPeers.get(a.baseUrl() + "/api/peers/traffic").json().get("peers").get(bId);
            assertTrue(toB.get("sentBytes").asLong() > 1000 * toB.get("sentMessages").asLong() / 10, toB.toString());
            JsonNode fromA = TestPeers.get(b.baseUrl() + "/api/peers/traffic").json().get("peers").get(aId);
            assertTrue(fromA.get("receivedBytes").asLong() > 0, fromA.toString());
            JsonNode toC = TestPeers.get(a.baseUrl() + "/api/peers/traffic").json().get("peers").get(c.peerId().value());
            assertTrue(toC == null || toC.get("sentMessages").asLong() == 0, "postings sent to the passive peer: " + toC);
        } finally {
            for (PeerNode n : nodes) n.close();
        }
    }
}
