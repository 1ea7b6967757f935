package org.peerdex.node.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.node.PeerNode;
import org.peerdex.node.TestPeers;

/** Three real open-network peers on 127.0.0.1 (peer protocol, no Pekko Cluster): index on one, search on another. */
class OpenNetworkTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void threeOpenPeersFormARingOverThePeerProtocolAndSearchAcrossIt() throws Exception {
        List<PeerNode> nodes = OpenPeers.network(dir, 3, Map.of());
        try {
            PeerNode first = nodes.get(0);
            PeerNode third = nodes.get(2);
            JsonNode status = TestPeers.get(third.baseUrl() + "/api/status").json();
            assertEquals("peer", status.get("transport").asText());
            assertEquals(2, status.get("peerProtocol").get("admitted").asInt(), status.toString());
            assertEquals(third.peerId().value(), org.peerdex.protocol.identity.PeerIdentity
                    .idOf(status.get("peerProtocol").get("publicKey").asText()).orElseThrow().value(),
                    "the peer id is derived from the key");
            for (JsonNode p : TestPeers.get(third.baseUrl() + "/api/peers").json().get("peers")) {
                assertEquals("active", p.get("role").asText());
            }
            TestPeers.Reply indexed = TestPeers.send(HttpRequest.newBuilder(URI.create(first.baseUrl() + "/api/index/manual"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build());
            assertEquals(200, indexed.status(), indexed.json().toString());
            assertEquals(0, TestPeers.get(third.baseUrl() + "/api/search?q=peer&resource=local").json()
                    .get("results").size(), "the third peer indexed nothing itself");
            OpenPeers.await(Duration.ofSeconds(40), () -> TestPeers.get(third.baseUrl() + "/api/search?q=peer").json()
                    .get("results").size() > 0);
            JsonNode r = TestPeers.get(third.baseUrl() + "/api/search?q=peer").json();
            assertTrue(r.get("results").get(0).get("url").asText().contains("/docs/"), r.toString());
            // replication ran over the peer protocol: the second peer holds postings it never indexed
            OpenPeers.await(Duration.ofSeconds(40), () -> TestPeers.get(nodes.get(1).baseUrl() + "/api/status").json()
                    .get("postings").asLong() > 0);
            JsonNode p1 = TestPeers.get(nodes.get(1).baseUrl() + "/api/status").json().get("peerProtocol");
            assertTrue(p1.get("requestsAccepted").asLong() > 0, p1.toString());
        } finally {
            for (PeerNode n : nodes) n.close();
        }
    }
}
