package org.peerdex.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.dht.NetworkProof;
import org.peerdex.actors.dht.PostingPack;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.ShardOwner;
import org.peerdex.node.NetworkBackend;
import org.peerdex.node.PeerNode;
import org.peerdex.node.StartupException;
import org.peerdex.node.http.DocumentRoutes;
import org.peerdex.storage.rwi.Posting;

/**
 * Private networks ({@code --network NAME --network-secret SECRET}) on real peers over Artery: peers with the
 * secret join and share their index; a peer with another secret or none is refused at the join; a peer that
 * skipped the join check (a member by force) is kept out of the ring, its postings are refused and its lookups
 * answered with an error; intranet mode without a secret does not start.
 */
class PrivateNetworkTest {
    private static final String SECRET = "correct horse battery staple";

    @TempDir
    Path dir;

    private PeerNode start(String name, List<String> seeds, Map<String, Object> more) throws Exception {
        Map<String, Object> m = new java.util.HashMap<>(Map.of("peerdex.network", "acme"));
        m.putAll(more);
        return PeerNode.start(ClusterLab.config(Files.createDirectories(dir.resolve(name)), seeds, m));
    }

    private static int members(PeerNode n) {
        int up = 0;
        for (var m : Cluster.get(n.context().system()).state().getMembers()) if (m.status() == MemberStatus.up()) up++;
        return up;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void peersWithTheSecretShareAnIndexAndPeersWithoutItCannotJoinNorStore() throws Exception {
        List<PeerNode> nodes = new ArrayList<>();
        try {
            PeerNode a = start("a", List.of(), Map.of("peerdex.network-secret", SECRET));
            nodes.add(a);
            PeerNode b = start("b", List.of(ClusterLab.seed(a)), Map.of("peerdex.network-secret", SECRET));
            nodes.add(b);
            ClusterLab.await(Duration.ofSeconds(40), "a ring of 2 with the secret",
                    () -> ClusterLab.ringSize(a) == 2 && ClusterLab.ringSize(b) == 2);
            assertTrue(ClusterLab.index(a, ClusterLab.document("http://acme.test/plan", "quarterly zeppelin plan")));
            ClusterLab.await(Duration.ofSeconds(30), "b finds a's document",
                    () -> ClusterLab.search(b, "zeppelin").contains("http://acme.test/plan"));

            // another secret, and none: refused by the join check, the peer shuts itself down
            PeerNode wrong = start("wrong", List.of(ClusterLab.seed(a)), Map.of("peerdex.network-secret", "guessed wrong secret"));
            nodes.add(wrong);
            PeerNode none = start("none", List.of(ClusterLab.seed(a)), Map.of());
            nodes.add(none);
            for (PeerNode stranger : List.of(wrong, none)) {
                ClusterLab.await(Duration.ofSeconds(40), "the stranger refused and stopped",
                        () -> stranger.whenTerminated().toCompletableFuture().isDone());
            }
            assertEquals(2, members(a), "no stranger became a member");
            assertEquals(2, ClusterLab.ringSize(a));

            // a member by force (join check off on its side) with another secret: not in the ring, nothing stored
            PeerNode rogue = start("rogue", List.of(ClusterLab.seed(a)), Map.of("peerdex.network-secret", "guessed wrong secret",
                    "pekko.cluster.configuration-compatibility-check.enforce-on-join", "off"));
            nodes.add(rogue);
            ClusterLab.await(Duration.ofSeconds(40), "the rogue is a cluster member", () -> members(a) == 3);
            ClusterLab.await(Duration.ofSeconds(10), "the rogue's directory greeted", () -> members(rogue) == 3);
            assertEquals(2, ClusterLab.ringSize(a), "the rogue is kept out of the ring");
            assertEquals(2, ClusterLab.ringSize(b));

            ActorRef<ShardOwner.Command> victim = ActorRefResolver.get(rogue.context().system()).resolveActorRef(
                    ActorRefResolver.get(a.context().system()).toSerializationFormat(
                            NetworkBackend.of(a.context()).shardOwner()));
            List<Posting> postings = new ArrayList<>(DocumentRoutes.document(
                    ClusterLab.document("http://evil.test/spam", "cheap pills spam")).postings());
            TestProbe<ShardOwner.StoreReply> stored = TestProbe.create(rogue.context().system());
            victim.tell(new ShardOwner.StorePostings(1, rogue.peerId(), PostingPack.of(postings), List.of(), stored.getRef()));
            ShardOwner.StoreReply reply = stored.receiveMessage(Duration.ofSeconds(10));
            assertEquals(ShardOwner.Outcome.REFUSED, reply.outcome(), reply.toString());
            assertTrue(reply.reason().contains("not a member"), reply.reason());
            for (Posting p : postings) assertTrue(a.context().storage().rwi().get(p.word(), p.url()).isEmpty());

            TestProbe<ShardOwner.CountReply> counted = TestProbe.create(rogue.context().system());
            victim.tell(new ShardOwner.CountRequest(7, List.of(new RangeKey(
                    org.peerdex.protocol.hash.WordHash.of("zeppelin"), 0)), counted.getRef()));
            ShardOwner.CountReply count = counted.receiveMessage(Duration.ofSeconds(10));
            assertTrue(count.error().contains("not a member"), count.toString());
            assertTrue(NetworkBackend.of(a.context()).stats().refusedMessages.get() >= 2);
            // and the members still work together
            assertTrue(ClusterLab.search(b, "zeppelin").contains("http://acme.test/plan"));
            assertFalse(ClusterLab.search(rogue, "zeppelin").contains("http://acme.test/plan"),
                    "the rogue cannot search the private index");
        } finally {
            for (PeerNode n : nodes) {
                if (!n.whenTerminated().toCompletableFuture().isDone()) n.close();
            }
        }
    }

    @Test
    void intranetModeNeedsANetworkNameAndASecret() throws Exception {
        Path d = Files.createDirectories(dir.resolve("i"));
        for (Map<String, Object> m : List.<Map<String, Object>>of(Map.of("peerdex.mode", "intranet"),
                Map.of("peerdex.mode", "intranet", "peerdex.network", "acme"),
                Map.of("peerdex.mode", "intranet", "peerdex.network-secret", SECRET),
                Map.of("peerdex.mode", "intranet", "peerdex.network", "acme", "peerdex.network-secret", "short"))) {
            StartupException e = org.junit.jupiter.api.Assertions.assertThrows(StartupException.class,
                    () -> PeerNode.start(ClusterLab.config(d, List.of(), m)));
            assertTrue(e.getMessage().contains("secret") || e.getMessage().contains("network"), e.getMessage());
        }
        assertTrue(NetworkProof.of("acme", SECRET).enabled());
        assertFalse(NetworkProof.of("acme", "").enabled());
        assertTrue(!NetworkProof.of("acme", SECRET).joinProof().equals(NetworkProof.of("acme", "other secret!").joinProof()));
        assertTrue(!NetworkProof.of("acme", SECRET).joinProof().equals(NetworkProof.of("acme2", SECRET).joinProof()));
    }
}
