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
import org.peerdex.node.PeerNode;

/**
 * Artery over TLS ({@code pekko.remote.artery.transport = tls-tcp}, mutual authentication): key and trust stores
 * are made at test time with the JDK's keytool (nothing secret is checked in). Two peers holding the network's
 * key join and share their index; a peer with a certificate the network does not trust cannot join.
 */
class ArteryTlsTest {
    private static final String PASSWORD = "test-store-password";

    @TempDir
    Path dir;

    /** A PKCS12 key store with a fresh key pair and a trust store holding only its certificate. */
    private Path[] stores(String name) throws Exception {
        Path ks = dir.resolve(name + "-key.p12");
        Path cert = dir.resolve(name + ".cer");
        Path ts = dir.resolve(name + "-trust.p12");
        keytool("-genkeypair", "-alias", "peer", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-validity", "2", "-storetype", "PKCS12", "-keystore", ks.toString(), "-storepass", PASSWORD,
                "-keypass", PASSWORD);
        keytool("-exportcert", "-alias", "peer", "-keystore", ks.toString(), "-storepass", PASSWORD, "-file", cert.toString());
        keytool("-importcert", "-noprompt", "-alias", "peer", "-file", cert.toString(), "-storetype", "PKCS12",
                "-keystore", ts.toString(), "-storepass", PASSWORD);
        return new Path[] {ks, ts};
    }

    private static void keytool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "keytool " + args[0] + ": " + out);
    }

    /** The documented TLS settings (docs/reliability.md, "Artery over TLS") over these stores. */
    private static Map<String, Object> tls(Path[] stores) {
        String p = "pekko.remote.artery.ssl.config-ssl-engine.";
        return Map.of("pekko.remote.artery.transport", "tls-tcp",
                p + "key-store", stores[0].toString(), p + "trust-store", stores[1].toString(),
                p + "key-store-password", PASSWORD, p + "key-password", PASSWORD, p + "trust-store-password", PASSWORD,
                p + "protocol", "TLSv1.3", p + "enabled-algorithms", List.of("TLS_AES_128_GCM_SHA256"),
                p + "require-mutual-authentication", "on",
                // peers are addressed by IP on one machine here; a deployment with host certificates turns it on
                p + "hostname-verification", "off");
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
        Path[] network = stores("acme");
        Path[] stranger = stores("stranger");
        List<PeerNode> nodes = new ArrayList<>();
        try {
            PeerNode a = start("a", List.of(), tls(network));
            nodes.add(a);
            assertEquals("pekko", a.clusterAddress().protocol());
            PeerNode b = start("b", List.of(ClusterLab.seed(a)), tls(network));
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
}
