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

/** Three real peers (jar-like: PeerNode.start) on 127.0.0.1: index on the first, search over HTTP from the third. */
public class NetworkTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void pagesIndexedOnOnePeerAreFoundOverHttpFromAnotherPeer() throws Exception {
        List<PeerNode> nodes = new ArrayList<>();
        try {
            PeerNode first = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("a"))));
            nodes.add(first);
            String seed = "127.0.0.1:" + first.clusterAddress().port().get();
            for (String n : List.of("b", "c")) {
                nodes.add(PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve(n)),
                        Map.of("peerdex.cluster.seeds", List.of(seed)))));
            }
            PeerNode third = nodes.get(2);
            await(Duration.ofSeconds(30), () -> TestPeers.get(third.baseUrl() + "/api/peers").json().get("peers").size() == 3);
            JsonNode peers = TestPeers.get(third.baseUrl() + "/api/peers").json().get("peers");
            int positions = TestPeers.get(third.baseUrl() + "/api/status").json().get("positionsPerPeer").asInt();
            assertEquals(16, positions, "the default positions per peer");
            double share = 0;
            for (JsonNode p : peers) {
                assertEquals("active", p.get("role").asText());
                assertEquals(positions, p.get("ranges").size(), "one range per point of the peer: " + p);
                for (JsonNode r : p.get("ranges")) share += r.get("share").asDouble();
            }
            assertEquals(1.0, share, 1e-9, "the peers' ranges cover the ring once");
            assertEquals(3, TestPeers.get(third.baseUrl() + "/api/status").json().get("peers").asInt());

            TestPeers.Reply indexed = TestPeers.send(HttpRequest.newBuilder(URI.create(first.baseUrl() + "/api/index/manual"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build());
            assertEquals(200, indexed.status(), indexed.json().toString());
            assertEquals(0, TestPeers.get(third.baseUrl() + "/api/search?q=peer&resource=local").json()
                    .get("results").size(), "the third peer crawled nothing itself");
            // global is the default once peers are known
            await(Duration.ofSeconds(30), () -> TestPeers.get(third.baseUrl() + "/api/search?q=peer").json()
                    .get("results").size() > 0);
            JsonNode r = TestPeers.get(third.baseUrl() + "/api/search?q=peer").json();
            assertTrue(r.get("results").get(0).get("url").asText().contains("/docs/"), r.toString());
            assertTrue(r.get("network").get("messages").asLong() > 0, r.get("network").toString());
            JsonNode dht = TestPeers.get(first.baseUrl() + "/api/status").json().get("dht");
            assertTrue(dht.get("repair").get("rounds").asLong() > 0, dht.toString());
        } finally {
            for (PeerNode n : nodes) n.close();
        }
    }

    public interface Check {
        boolean ok() throws Exception;
    }

    public static void await(Duration timeout, Check c) throws Exception {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            if (c.ok()) return;
            TimeUnit.MILLISECONDS.sleep(200); // polling interval of a deadline-bounded wait
        }
        throw new AssertionError("condition not met within " + timeout);
    }
}
