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
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.node.Main;
import org.peerdex.node.PeerNode;
import org.peerdex.node.trust.NetworkCa;

/**
 * A private network over Artery TLS (mutual authentication): its CA and peer certificates are made at test time
 * with {@code peerdex network init/admit} (nothing secret is checked in). Two peers admitted by the network's CA
 * join and share their index; a peer with a certificate of another CA cannot join.
 */
class ArteryTlsTest {
    @TempDir
    Path dir;

    /**
     * A network's CA made with the command line ({@code peerdex network init}) and one peer directory of it
     * ({@code peerdex network admit}); {@code peer} in the returned map is the peer's --cluster-tls directory.
     */
    private Path admit(String network, String peer) {
        Path ca = dir.resolve("ca-" + network);
        if (!java.nio.file.Files.exists(ca.resolve(NetworkCa.CA_STORE))) {
            assertEquals(0, Main.run("network", "init", ca.toString(), "--network", network));
        }
        Path out = dir.resolve("tls-" + network + "-" + peer);
        assertEquals(0, Main.run("network", "admit", ca.toString(), peer, "--out", out.toString()));
        return out;
    }

    private static Map<String, Object> tls(Path peerDir) {
        return Map.of("peerdex.cluster.tls-dir", peerDir.toString());
    }

    private PeerNode start(String name, List<String> seeds, Map<String, Object> more) throws Exception {
        return PeerNode.start(ClusterLab.config(Files.createDirectories(dir.resolve(name)), seeds, more));
    }

    private static int upMembers(PeerNode n) {
        int up = 0;
        for (var m : Cluster.get(n.context().system()).state().getMembers()) if (m.status() == MemberStatus.up()) up++;
        return up;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void peersWithTheNetworksKeyJoinOverTlsAndAnUntrustedCertificateCannot() throws Exception {
        Path tlsA = admit("acme", "a");
        Path tlsB = admit("acme", "b");
        Path stranger = admit("stranger", "c"); // a certificate of another CA
        List<PeerNode> nodes = new ArrayList<>();
        try {
            PeerNode a = start("a", List.of(), tls(tlsA));
            nodes.add(a);
            assertEquals("pekko", a.clusterAddress().protocol());
            PeerNode b = start("b", List.of(ClusterLab.seed(a)), tls(tlsB));
            nodes.add(b);
            ClusterLab.await(Duration.ofSeconds(40), "a ring of 2 over TLS",
                    () -> ClusterLab.ringSize(a) == 2 && ClusterLab.ringSize(b) == 2);
            assertTrue(ClusterLab.index(a, ClusterLab.document("http://acme.test/tls", "encrypted walrus notes")));
            ClusterLab.await(Duration.ofSeconds(30), "b finds a's document over TLS",
                    () -> ClusterLab.search(b, "walrus").contains("http://acme.test/tls"));

            Map<String, Object> untrusted = new java.util.HashMap<>(tls(stranger));
            // it gives up (and stops) when no seed answers: the TLS handshake never succeeds
            untrusted.put("pekko.cluster.shutdown-after-unsuccessful-join-seed-nodes", "5s");
            PeerNode c = start("c", List.of(ClusterLab.seed(a)), untrusted);
            nodes.add(c);
            ClusterLab.await(Duration.ofSeconds(60), "the untrusted peer gave up joining",
                    () -> c.whenTerminated().toCompletableFuture().isDone());
            assertEquals(2, upMembers(a), "the untrusted peer never became a member");
            assertEquals(2, ClusterLab.ringSize(a));
        } finally {
            closeAll(nodes);
        }
    }

    @Test
    void aClusterBeyondLoopbackWithoutTlsIsRefusedAtStart() throws Exception {
        var e = org.junit.jupiter.api.Assertions.assertThrows(org.peerdex.node.StartupException.class,
                () -> PeerNode.start(ClusterLab.config(Files.createDirectories(dir.resolve("open")), List.of(),
                        Map.of("peerdex.cluster.host", "0.0.0.0"))));
        assertTrue(e.getMessage().contains("needs mutual TLS"), e.getMessage());
    }

    private static void closeAll(List<PeerNode> nodes) {
        for (PeerNode n : nodes) {
                if (n.whenTerminated().toCompletableFuture().isDone()) continue;
                try {
                    n.close();
                } catch (IllegalStateException hung) {
                    // Pekko 1.7.0: after a failed TLS handshake on an association, the ActorSystem's termination
                    // can wait for ever on an Artery stream (akka/akka-core#29162; bounded only in later Pekko by
                    // shutdown-streams-timeout, apache/pekko#3317). Seen once in CI; what this test checks is done.
                    System.out.println("ArteryTlsTest: a peer did not terminate within 60 s after the TLS test: "
                            + hung.getCause());
                }
        }
    }
}
