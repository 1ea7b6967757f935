package org.peerdex.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.node.Main;
import org.peerdex.node.OpenNetwork;
import org.peerdex.node.PeerNode;
import org.peerdex.node.StartupException;
import org.peerdex.node.TestPeers;
import org.peerdex.node.http.Json;

/**
 * Private networks after the shared secret's retirement: a network secret (config key, environment or command line)
 * stops the peer at start with a message naming the CA commands that replaced it, never silently ignored; intranet
 * mode needs its own network name and runs as a cluster (a trust domain), with no peer-protocol port for strangers.
 * That only certificate holders join such a cluster is {@link ArteryTlsTest}'s part.
 */
class PrivateNetworkTest {
    @TempDir
    Path dir;

    @Test
    void aNetworkSecretIsRefusedAtStartWithTheCommandsThatReplacedIt() throws Exception {
        Path d = Files.createDirectories(dir.resolve("s"));
        for (Map<String, Object> m : List.<Map<String, Object>>of(
                Map.of("peerdex.network-secret", "correct horse battery staple"),
                Map.of("peerdex.mode", "intranet", "peerdex.network", "acme",
                        "peerdex.network-secret", "correct horse battery staple"))) {
            StartupException e = assertThrows(StartupException.class, () -> PeerNode.start(ClusterLab.config(d, List.of(), m)));
            assertTrue(e.getMessage().contains("retired") && e.getMessage().contains("peerdex network init")
                    && e.getMessage().contains("--cluster-tls"), e.getMessage());
        }
        // the command line: a failed start, exit code 2, before any port is opened
        assertEquals(2, Main.run("--data", d.resolve("cli").toString(), "--http", "127.0.0.1:0",
                "--network-secret", "correct horse battery staple"));
    }

    @Test
    void intranetModeNeedsANetworkNameAndRunsAsAPrivateCluster() throws Exception {
        StartupException e = assertThrows(StartupException.class, () -> PeerNode.start(ClusterLab.config(
                Files.createDirectories(dir.resolve("public")), List.of(), Map.of("peerdex.mode", "intranet"))));
        assertTrue(e.getMessage().contains("--network NAME"), e.getMessage());

        // the transport chosen with every cluster key at its default: the open network for p2p, a cluster for intranet
        assertTrue(OpenNetwork.selected(ConfigFactory.load()));
        assertFalse(OpenNetwork.selected(ConfigFactory.parseMap(Map.of("peerdex.mode", "intranet", "peerdex.network",
                "acme")).withFallback(ConfigFactory.load()).resolve()));
        try (PeerNode n = PeerNode.start(ClusterLab.config(Files.createDirectories(dir.resolve("acme")), List.of(),
                Map.of("peerdex.mode", "intranet", "peerdex.network", "acme", "peerdex.transport", "auto")))) {
            HttpResponse<String> r = TestPeers.HTTP.send(HttpRequest.newBuilder(URI.create(n.baseUrl() + "/api/status"))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            var status = Json.MAPPER.readTree(r.body());
            assertEquals("cluster", status.path("transport").asText(), r.body());
            assertTrue(status.path("peerProtocol").isMissingNode(), "no peer protocol for strangers: " + r.body());
            int members = 0;
            for (var m : Cluster.get(n.context().system()).state().getMembers()) members++;
            assertEquals(1, members, "a cluster of one");
        }
    }
}
