package org.peerdex.node.peer;

import com.typesafe.config.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.peerdex.node.PeerNode;
import org.peerdex.node.TestPeers;

/** Real open-network peers on 127.0.0.1 for tests: peer protocol on a free port, no cluster, fast probes. */
final class OpenPeers {
    private OpenPeers() {}

    /** An open-network peer config: identities without proof of work, loopback addresses admitted. */
    static Config config(Path dataDir, List<String> seeds, Map<String, Object> more) {
        Map<String, Object> m = new HashMap<>();
        m.put("peerdex.transport", "peer");
        m.put("peerdex.peer.host", "127.0.0.1");
        m.put("peerdex.peer.port", 0);
        m.put("peerdex.peer.seeds", seeds);
        m.put("peerdex.peer.identity-work-bits", 0);
        m.put("peerdex.peer.min-work-bits", 0);
        m.put("peerdex.peer.allow-private-addresses", true);
        m.put("peerdex.peer.probe-interval", "500ms");
        m.put("peerdex.peer.prefix-bits-v4", 32);
        m.putAll(more);
        return TestPeers.config(dataDir, m);
    }

    /** Starts {@code n} peers, each seeded with the first, and waits until every one has all others in its ring. */
    static List<PeerNode> network(Path dir, int n, Map<String, Object> more) throws Exception {
        List<PeerNode> nodes = new ArrayList<>();
        try {
            nodes.add(PeerNode.start(config(Files.createDirectories(dir.resolve("p0")), List.of(), more)));
            String seed = address(nodes.get(0));
            for (int i = 1; i < n; i++) {
                nodes.add(PeerNode.start(config(Files.createDirectories(dir.resolve("p" + i)), List.of(seed), more)));
            }
            await(Duration.ofSeconds(30), () -> {
                for (PeerNode p : nodes) {
                    if (TestPeers.get(p.baseUrl() + "/api/status").json().get("peers").asInt() != n) return false;
                }
                return true;
            });
            return nodes;
        } catch (Exception | AssertionError e) {
            for (PeerNode p : nodes) p.close();
            throw e;
        }
    }

    static String address(PeerNode p) {
        return p.openNetwork().orElseThrow().address();
    }

    static void await(Duration timeout, org.peerdex.node.NetworkTest.Check c) throws Exception {
        org.peerdex.node.NetworkTest.await(timeout, c);
    }
}
