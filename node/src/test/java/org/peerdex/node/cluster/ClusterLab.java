package org.peerdex.node.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.remote.RARP;
import org.apache.pekko.remote.transport.ThrottlerTransportAdapter;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.node.PeerNode;
import org.peerdex.node.TestPeers;
import org.peerdex.node.http.DocumentRoutes;
import org.peerdex.node.http.Json;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.rwi.Posting;

/**
 * Helpers for tests of real peers in one JVM under network faults: explicit failure-detector and downing
 * settings, Artery's test mode (blackholes between two peers), indexing and searching over HTTP, and counting
 * copies by reading every peer's LevelDB.
 */
final class ClusterLab {
    private ClusterLab() {}

    /**
     * Settings of every peer in these tests: failures are detected in about 2.5 s, the split-brain resolver
     * decides after 4 s of stable reachability, a downed peer comes back after 1 s; Artery's test mode is on.
     */
    static Config config(Path dataDir, List<String> seeds, Map<String, Object> more) {
        Map<String, Object> m = new java.util.HashMap<>(Map.of(
                "pekko.remote.artery.advanced.test-mode", "on",
                "pekko.cluster.failure-detector.heartbeat-interval", "300ms",
                "pekko.cluster.failure-detector.acceptable-heartbeat-pause", "2s",
                "pekko.cluster.split-brain-resolver.stable-after", "4s",
                "pekko.cluster.gossip-interval", "300ms",
                "pekko.cluster.seed-node-timeout", "2s",
                "pekko.cluster.retry-unsuccessful-join-after", "2s",
                "pekko.loglevel", "WARNING",
                "peerdex.cluster.seeds", seeds,
                "peerdex.cluster.rejoin-delay", "1s"));
        m.putAll(Map.of(
                "peerdex.dht.rebalance-delay", "500ms",
                "peerdex.dht.lookup-timeout", "1s",
                "peerdex.dht.ack-timeout", "2s",
                "peerdex.dht.retry-min-backoff", "100ms",
                "peerdex.dht.retry-max-backoff", "1s"));
        m.putAll(more);
        return TestPeers.config(dataDir, m);
    }

    static String seed(PeerNode n) {
        return "127.0.0.1:" + n.clusterAddress().port().get();
    }

    /** Drops (or lets through again) all Artery traffic between this peer and that one, both directions, at this side. */
    static void blackhole(PeerNode from, PeerNode to, boolean drop) {
        RARP rarp = (RARP) RARP.get(Adapter.toClassic(from.context().system()));
        rarp.provider().transport().managementCommand(new ThrottlerTransportAdapter.SetThrottle(to.clusterAddress(),
                ThrottlerTransportAdapter.bothDirection(), drop
                        ? ThrottlerTransportAdapter.blackholeThrottleMode()
                        : ThrottlerTransportAdapter.unthrottledThrottleMode()));
    }

    static PeerView view(PeerNode n) {
        DhtPeer dht = n.services().network().dht();
        return dht == null ? null : dht.view().get();
    }

    static int ringSize(PeerNode n) {
        PeerView v = view(n);
        return v == null ? -1 : v.ring().size();
    }

    /** The body of a document for {@code POST /api/index/document}. */
    static Map<String, Object> document(String url, String text) {
        return Map.of("url", url, "title", url, "text", text);
    }

    /** Indexes a document through the admin API; true when acknowledged (200 after a durable write). */
    static boolean index(PeerNode at, Map<String, Object> doc) throws Exception {
        return postDocument(at, doc).status() == 200;
    }

    /** {@code POST /api/index/document} with this body; the whole answer. */
    static TestPeers.Reply postDocument(PeerNode at, Map<String, Object> doc) throws Exception {
        return TestPeers.send(HttpRequest.newBuilder(URI.create(at.baseUrl() + "/api/index/document"))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.MAPPER.writeValueAsString(doc))).build());
    }

    /** The URLs a global search for one word finds from this peer (empty on any error). */
    static Set<String> search(PeerNode from, String word) {
        Set<String> out = new HashSet<>();
        try {
            JsonNode r = TestPeers.get(from.baseUrl() + "/api/search?count=100&q="
                    + URLEncoder.encode(word, StandardCharsets.UTF_8)).json();
            for (JsonNode x : r.path("results")) out.add(x.path("url").asText());
        } catch (Exception e) {
            // a peer starting again answers nothing for a moment: the caller polls
        }
        return out;
    }

    /** True when every posting of these documents is stored (not cached) by each of its R holders of the current ring. */
    static boolean onAllHolders(List<PeerNode> peers, List<Map<String, Object>> docs) {
        PeerView v = view(peers.get(0));
        if (v == null || v.ring().size() != peers.size()) return false;
        Map<PeerId, PeerNode> byId = new java.util.HashMap<>();
        for (PeerNode p : peers) byId.put(p.peerId(), p);
        for (Map<String, Object> d : docs) {
            IndexedDocument doc = DocumentRoutes.document(d);
            for (Posting p : doc.postings()) {
                for (PeerId h : peers.get(0).context().placement().holders(p.word(), p.url(), v.ring())) {
                    PeerNode holder = byId.get(h);
                    if (holder == null || holder.context().storage().rwi().get(p.word(), p.url())
                            .filter(x -> !x.has(Posting.CACHED)).isEmpty()) return false;
                }
            }
        }
        return true;
    }

    /** The least number of copies (over all peers' storage) any posting of these documents has. */
    static int fewestCopies(List<PeerNode> peers, List<Map<String, Object>> docs) {
        int min = Integer.MAX_VALUE;
        for (Map<String, Object> d : docs) {
            for (Posting p : DocumentRoutes.document(d).postings()) {
                int c = 0;
                for (PeerNode n : peers) {
                    if (n.context().storage().rwi().get(p.word(), p.url()).filter(x -> !x.has(Posting.CACHED)).isPresent()) c++;
                }
                min = Math.min(min, c);
            }
        }
        return min;
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void await(Duration timeout, String what, Check c) throws Exception {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            if (c.ok()) return;
            TimeUnit.MILLISECONDS.sleep(200); // polling interval of a deadline-bounded wait
        }
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
    }
}
