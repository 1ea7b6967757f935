package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/** Two real peers: the dht-scope blacklist of the receiving peer keeps blocked URLs out of what it stores. */
class BlacklistDhtTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aPeerDoesNotStoreReceivedPostingsOfBlacklistedUrls() throws Exception {
        List<PeerNode> nodes = new ArrayList<>();
        try {
            PeerNode a = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("a"))));
            nodes.add(a);
            PeerNode b = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("b")),
                    Map.of("peerdex.cluster.seeds", List.of("127.0.0.1:" + a.clusterAddress().port().get()))));
            nodes.add(b);
            TestPeers.Reply put = TestPeers.send(HttpRequest.newBuilder(URI.create(b.baseUrl() + "/api/blacklist"))
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(
                            "{\"rules\":[{\"scope\":\"dht\",\"host\":\"127\\\\.0\\\\.0\\\\.1\",\"path\":\"docs/operations.*\"}]}"))
                    .build());
            assertEquals(200, put.status(), put.json().toString());
            NetworkTest.await(Duration.ofSeconds(30), () -> TestPeers.get(b.baseUrl() + "/api/peers").json()
                    .get("peers").size() == 2);
            TestPeers.Reply indexed = TestPeers.send(HttpRequest.newBuilder(URI.create(a.baseUrl() + "/api/index/manual"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build());
            assertEquals(200, indexed.status());
            // with two peers and redundancy 3, b holds a copy of everything a indexed, except what it blocks
            // (the manual has three pages; one of them is blocked)
            NetworkTest.await(Duration.ofSeconds(40), () -> {
                var shard = TestPeers.get(b.baseUrl() + "/api/status").json().get("dht").get("shard");
                return shard.get("storedMetadata").asLong() >= indexed.json().get("indexed").asLong() - 1
                        && shard.get("blacklistedEntries").asLong() > 0;
            });
            List<String> onB = new ArrayList<>();
            b.context().storage().metadata().scanAll(m -> onB.add(m.url()));
            assertTrue(onB.size() > 1, onB.toString());
            assertFalse(onB.stream().anyMatch(u -> u.contains("/docs/operations")), onB.toString());
            List<String> onA = new ArrayList<>();
            a.context().storage().metadata().scanAll(m -> onA.add(m.url()));
            assertTrue(onA.stream().anyMatch(u -> u.contains("/docs/operations")), "a indexed it: " + onA);
            var blocked = org.peerdex.protocol.hash.UrlHash.of(
                    onA.stream().filter(u -> u.contains("/docs/operations")).findFirst().orElseThrow());
            // postings that arrived before the metadata are purged when it arrives
            NetworkTest.await(Duration.ofSeconds(20), () -> b.context().storage().rwi().wordsOf(blocked).isEmpty());
            assertFalse(a.context().storage().rwi().wordsOf(blocked).isEmpty(), "a keeps its own postings");
        } finally {
            for (PeerNode n : nodes) n.close();
        }
    }
}
