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

/**
 * Two real peers: the dht-scope blacklist of the receiving peer keeps blocked URLs out of what it stores, and that
 * of the sending peer keeps them out of what it sends.
 */
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

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aPeerDoesNotSendPostingsOfUrlsItsOwnDhtBlacklistBlocks() throws Exception {
        List<PeerNode> nodes = new ArrayList<>();
        try {
            PeerNode a = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("a")),
                    Map.of("peerdex.dht.repair-interval", "2s")));
            nodes.add(a);
            TestPeers.Reply put = TestPeers.send(HttpRequest.newBuilder(URI.create(a.baseUrl() + "/api/blacklist"))
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(
                            "{\"rules\":[{\"scope\":\"dht\",\"host\":\"127\\\\.0\\\\.0\\\\.1\",\"path\":\"docs/operations.*\"}]}"))
                    .build());
            assertEquals(200, put.status(), put.json().toString());
            PeerNode b = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("b")),
                    Map.of("peerdex.cluster.seeds", List.of("127.0.0.1:" + a.clusterAddress().port().get()))));
            nodes.add(b);
            NetworkTest.await(Duration.ofSeconds(30), () -> TestPeers.get(a.baseUrl() + "/api/peers").json()
                    .get("peers").size() == 2);
            TestPeers.Reply indexed = TestPeers.send(HttpRequest.newBuilder(URI.create(a.baseUrl() + "/api/index/manual"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build());
            assertEquals(200, indexed.status());
            // b holds a copy of everything a indexed except the page a's own blacklist keeps back
            String[] last = {""};
            try {
                NetworkTest.await(Duration.ofSeconds(40), () -> {
                    var dht = TestPeers.get(a.baseUrl() + "/api/status").json().get("dht");
                    var shardB = TestPeers.get(b.baseUrl() + "/api/status").json().get("dht").get("shard");
                    last[0] = "a: " + dht + " b: " + shardB;
                    return shardB.get("storedMetadata").asLong() >= indexed.json().get("indexed").asLong() - 1;
                });
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; indexed " + indexed.json() + ", " + last[0], e);
            }
            List<String> onA = new ArrayList<>();
            a.context().storage().metadata().scanAll(m -> onA.add(m.url()));
            String blockedUrl = onA.stream().filter(u -> u.contains("/docs/operations")).findFirst().orElseThrow();
            var blocked = org.peerdex.protocol.hash.UrlHash.of(blockedUrl);
            assertFalse(a.context().storage().rwi().wordsOf(blocked).isEmpty(), "a keeps its own postings");
            // anti-entropy rounds run after the transfer: they must not send the page either
            long rounds = TestPeers.get(a.baseUrl() + "/api/status").json().get("dht").get("repair").get("rounds").asLong();
            NetworkTest.await(Duration.ofSeconds(30), () -> TestPeers.get(a.baseUrl() + "/api/status").json()
                    .get("dht").get("repair").get("rounds").asLong() >= rounds + 2);
            List<String> onB = new ArrayList<>();
            b.context().storage().metadata().scanAll(m -> onB.add(m.url()));
            assertTrue(onB.size() > 1, onB.toString());
            assertFalse(onB.contains(blockedUrl), onB.toString());
            assertTrue(b.context().storage().rwi().wordsOf(blocked).isEmpty(), "no posting of the blocked page reached b");
            assertEquals(0, TestPeers.get(b.baseUrl() + "/api/status").json().get("dht").get("shard")
                    .get("blacklistedEntries").asLong(), "b had nothing to refuse: it was never sent");

            // nor does a hand the page to a searching peer: lookups and metadata requests leave it out
            var rwi = a.context().storage().rwi();
            var partitions = a.context().placement().partitions();
            var allowed = org.peerdex.protocol.hash.UrlHash.of(onA.stream()
                    .filter(u -> !u.contains("/docs/operations")).findFirst().orElseThrow());
            var allowedWords = new java.util.HashSet<>(rwi.wordsOf(allowed));
            var common = rwi.wordsOf(blocked).stream().filter(allowedWords::contains).findFirst().orElseThrow();
            var owner = a.services().network().dht().shardOwner();
            var lookups = org.apache.pekko.actor.testkit.typed.javadsl.TestProbe
                    .<org.peerdex.actors.dht.shard.ShardOwner.LookupReply>create(a.context().system());
            owner.tell(new org.peerdex.actors.dht.shard.ShardOwner.LookupRequest(1, List.of(
                    new org.peerdex.actors.dht.shard.ShardOwner.Lookup(new org.peerdex.actors.dht.RangeKey(common,
                            partitions.partitionOf(blocked)), null, List.of(blocked), 10),
                    new org.peerdex.actors.dht.shard.ShardOwner.Lookup(new org.peerdex.actors.dht.RangeKey(common,
                            partitions.partitionOf(allowed)), null, List.of(allowed), 10)), lookups.getRef()));
            var reply = lookups.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", reply.error());
            assertEquals(0, reply.results().get(0).postings().count(), "the blocked page's posting is held back");
            assertEquals(1, reply.results().get(1).postings().count(), "an allowed page's posting is sent");
            var metadata = org.apache.pekko.actor.testkit.typed.javadsl.TestProbe
                    .<org.peerdex.actors.dht.shard.ShardOwner.MetadataReply>create(a.context().system());
            owner.tell(new org.peerdex.actors.dht.shard.ShardOwner.FetchMetadata(2, List.of(blocked, allowed), metadata.getRef()));
            assertEquals(List.of(allowed), metadata.receiveMessage(Duration.ofSeconds(10)).metadata().stream()
                    .map(org.peerdex.storage.meta.UrlMetadata::urlHash).toList());
        } finally {
            for (PeerNode n : nodes) n.close();
        }
    }
}
