package org.peerdex.benchmarks.lab;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.remote.RARP;
import org.apache.pekko.remote.transport.ThrottlerTransportAdapter;
import org.apache.pekko.remote.transport.ThrottlerTransportAdapter$Direction$Both$;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.benchmarks.BenchPeers;
import org.peerdex.node.PeerNode;
import org.peerdex.node.http.Json;

/**
 * A lab of real peers for other people's tests: N {@link PeerNode}s in this JVM, each its own ActorSystem (a
 * Pekko Cluster member over Artery on 127.0.0.1, port 0), LevelDB directory under one temp directory and HTTP
 * server on 127.0.0.1 port 0. Documents go in through {@code POST /api/index/document} or a crawl
 * ({@code POST /api/crawl}), searches through {@code GET /api/search}; {@link #kill} terminates a peer's
 * ActorSystem without leaving the cluster (the others' failure detectors and split-brain resolver notice, as
 * with a crashed process), {@link #restart} starts it again over the same data directory, {@link #partition}
 * blackholes Artery traffic between groups (Artery's test mode). Waits poll with deadlines; nothing sleeps
 * blindly. Drive it from the test's thread.
 */
public final class RealLab implements AutoCloseable {
    /** How long a wait may take before it fails. */
    public static final Duration WAIT = Duration.ofSeconds(45);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final Path root;
    private final Map<String, Object> settings;
    private final PeerNode[] nodes;
    private final Address[] addresses;

    private RealLab(Path root, int n, Map<String, Object> settings) {
        this.root = root;
        this.settings = settings;
        this.nodes = new PeerNode[n];
        this.addresses = new Address[n];
    }

    /** Starts {@code peers} real peers with the lab's defaults and waits until every one sees all of them. */
    public static RealLab start(int peers) {
        return start(peers, Map.of());
    }

    /**
     * As {@link #start(int)}, with config keys over the lab's defaults (e.g. {@code "peerdex.dht.redundancy"}
     * or any {@code pekko.*} key); the defaults shorten failure detection and downing to seconds.
     */
    public static RealLab start(int peers, Map<String, Object> config) {
        if (peers < 1) throw new IllegalArgumentException("a lab needs at least one peer");
        Map<String, Object> m = new HashMap<>();
        // a kill is a crash: terminating the system must not run the coordinated shutdown (which leaves)
        m.put("pekko.coordinated-shutdown.run-by-actor-system-terminate", "off");
        m.put("pekko.remote.artery.advanced.test-mode", "on");
        m.put("pekko.cluster.split-brain-resolver.stable-after", "3s");
        m.put("pekko.cluster.failure-detector.acceptable-heartbeat-pause", "2s");
        m.put("pekko.cluster.failure-detector.heartbeat-interval", "500ms");
        m.put("pekko.loglevel", "WARNING");
        m.putAll(config);
        Path root;
        try {
            root = Files.createTempDirectory("peerdex-lab-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RealLab lab = new RealLab(root, peers, m);
        try {
            for (int i = 0; i < peers; i++) lab.boot(i);
            lab.awaitRing();
        } catch (RuntimeException e) {
            lab.close();
            throw e;
        }
        return lab;
    }

    private void boot(int i) {
        Map<String, Object> m = new HashMap<>(settings);
        List<String> seeds = new ArrayList<>();
        for (int j = 0; j < nodes.length; j++) {
            if (j != i && nodes[j] != null) seeds.add("127.0.0.1:" + nodes[j].clusterAddress().port().get());
        }
        if (!seeds.isEmpty()) m.put("peerdex.cluster.seeds", seeds);
        try {
            nodes[i] = PeerNode.start(BenchPeers.config(Files.createDirectories(root.resolve("peer-" + i)), m));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        addresses[i] = nodes[i].clusterAddress();
    }

    public int peers() {
        return nodes.length;
    }

    /** The running node (embedding API: its context, storage, actor system), or null when killed. */
    public PeerNode node(int peer) {
        return nodes[peer];
    }

    public boolean isUp(int peer) {
        return nodes[peer] != null;
    }

    /** The base URL of a live peer's HTTP server, e.g. {@code http://127.0.0.1:40123}. */
    public String url(int peer) {
        return live(peer).baseUrl();
    }

    private PeerNode live(int peer) {
        PeerNode n = nodes[peer];
        if (n == null) throw new IllegalStateException("peer " + peer + " is down");
        return n;
    }

    // ---- content

    /** Indexes a page at {@code peer} through {@code POST /api/index/document}; it replicates from there. */
    public void addDocument(int peer, String url, String title, String text) {
        JsonNode r = send(peer, "POST", "/api/index/document", Json.write(Map.of("url", url, "title", title, "text", text)));
        if (!r.path("durable").asBoolean()) throw new IllegalStateException("not indexed: " + r);
    }

    /** Crawls {@code url} from {@code peer} ({@code POST /api/crawl}, depth 1) and waits until the crawl finished. */
    public JsonNode crawl(int peer, String url) {
        return crawl(peer, Map.of("url", url, "depth", 1));
    }

    /** Starts a crawl with this profile (the JSON of POST /api/crawl) and waits until it finished; its progress. */
    public JsonNode crawl(int peer, Map<String, Object> profile) {
        String id = send(peer, "POST", "/api/crawl", Json.write(profile)).path("id").asText();
        JsonNode[] last = new JsonNode[1];
        await("crawl " + id + " finished", () -> {
            last[0] = send(peer, "GET", "/api/crawl/" + id, null);
            return !last[0].path("state").asText().equals("running");
        });
        return last[0];
    }

    /**
     * Waits until every live peer has planned what it was given to replicate, its outbox is empty and no hand-off
     * is pending.
     */
    public void awaitReplication() {
        await("replication idle", () -> {
            for (int i = 0; i < nodes.length; i++) {
                if (nodes[i] == null) continue;
                DhtPeer dht = nodes[i].services().network().dht();
                if (dht.stats().replicationsPlanning.get() > 0 || dht.stats().outboxEntries.get() > 0
                        || dht.stats().handoffPending.get() > 0) return false;
            }
            return true;
        });
    }

    /** Peers started and not stopped, killed or downed. */
    private int liveCount() {
        int up = 0;
        for (PeerNode n : nodes) if (n != null) up++;
        return up;
    }

    /** Waits until every live peer's ring holds exactly the live peers it can reach. */
    public void awaitRing() {
        await("every live peer sees the others", () -> {
            int up = liveCount();
            for (PeerNode n : nodes) {
                if (n == null) continue;
                PeerView v = n.services().network().dht().view().get();
                if (v == null || v.ring().size() != up) return false;
            }
            return true;
        }, this::membership);
    }

    /** What each live peer sees, for a failed wait: its ring's size and its cluster members with their status. */
    private String membership() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < nodes.length; i++) {
            PeerNode n = nodes[i];
            if (n == null) continue;
            PeerView v = n.services().network().dht().view().get();
            b.append("\n  peer ").append(i).append(" at ").append(addresses[i]).append(": ring of ")
                    .append(v == null ? "none" : v.ring().size()).append(", members");
            var state = Cluster.get(n.context().system()).state();
            state.getMembers().forEach(m -> b.append(' ').append(m.address().port().get()).append('=').append(m.status())
                    .append(state.getUnreachable().contains(m) ? "(unreachable)" : ""));
        }
        return b.toString();
    }

    // ---- search

    /** A search at {@code peer} over HTTP ({@code /api/search}, resource=global): the result URLs, best first. */
    public List<String> search(int peer, String query) {
        JsonNode r = searchJson(peer, query);
        List<String> out = new ArrayList<>();
        for (JsonNode x : r.path("results")) out.add(x.path("url").asText());
        return out;
    }

    /** The whole JSON answer of {@code /api/search?q=...&resource=global}. */
    public JsonNode searchJson(int peer, String query) {
        return send(peer, "GET", "/api/search?resource=global&q=" + URLEncoder.encode(query, StandardCharsets.UTF_8), null);
    }

    // ---- faults

    /**
     * Crashes a peer: its ActorSystem terminates without leaving the cluster and without the coordinated
     * shutdown (HTTP and Artery just go away); its LevelDB is closed as the OS would release a dead process's
     * files. The others notice through their failure detectors; the split-brain resolver downs it.
     */
    public void kill(int peer) {
        awaitMembersUp();
        PeerNode n = live(peer);
        nodes[peer] = null;
        n.context().system().terminate();
        try {
            n.whenTerminated().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("peer " + peer + " did not terminate", e);
        }
        n.context().storage().close();
    }

    /**
     * Waits until every live peer's cluster sees every live peer as Up. A peer the DHT already lists may still be
     * Joining in the cluster, and the split-brain resolver counts only Up members: a crash then can leave an even
     * split, which keep-majority breaks by the lowest address, downing the survivors (seen: two Up, one Joining, the
     * crashed peer had the lowest port). A crash in a lab is a crash of a settled network.
     */
    private void awaitMembersUp() {
        await("every live peer's cluster has every live peer Up", () -> {
            int up = liveCount();
            for (PeerNode n : nodes) {
                if (n == null) continue;
                var system = n.context().system();
                if (!"cluster".equals(system.settings().config().getString("pekko.actor.provider"))) return true;
                var state = Cluster.get(system).state();
                long members = 0;
                for (var m : state.getMembers()) {
                    if (m.status() != MemberStatus.up()) return false;
                    members++;
                }
                if (members != up || !state.getUnreachable().isEmpty()) return false;
            }
            return true;
        });
    }

    /** Stops a peer gracefully (it leaves the cluster, flushes and closes its index). */
    public void stop(int peer) {
        PeerNode n = live(peer);
        nodes[peer] = null;
        n.close();
    }

    /**
     * Starts a stopped, killed or downed peer (one that shut itself down on the minority side of a partition)
     * again over the same data directory (same peer id), joined to the others.
     */
    public void restart(int peer) {
        if (nodes[peer] != null) {
            if (!hasTerminated(peer)) throw new IllegalStateException("peer " + peer + " is running");
            nodes[peer].context().storage().close();
            nodes[peer] = null;
        }
        boot(peer);
        awaitRing();
    }

    /**
     * Cuts all Artery traffic between the groups (every peer not named is in a group of its own, so
     * {@code partition(List.of(0, 1))} on 4 peers splits {0, 1} from {2, 3}) by blackholing the links in Artery's
     * test transport. After the split-brain resolver's stable-after (3 s here) the minority side is downed and
     * its peers shut themselves down, as in production; {@link #heal()} restores traffic, {@link #restart} brings
     * downed peers back.
     */
    public void partition(List<Integer> side) {
        for (int i = 0; i < nodes.length; i++) {
            for (int j = 0; j < nodes.length; j++) {
                if (nodes[i] != null && side.contains(i) != side.contains(j)) throttle(i, j, ThrottlerTransportAdapter.Blackhole$.MODULE$);
            }
        }
    }

    /** Restores traffic between every pair of live peers. */
    public void heal() {
        for (int i = 0; i < nodes.length; i++) {
            for (int j = 0; j < nodes.length; j++) {
                if (i != j && nodes[i] != null) throttle(i, j, ThrottlerTransportAdapter.Unthrottled$.MODULE$);
            }
        }
    }

    private void throttle(int from, int to, ThrottlerTransportAdapter.ThrottleMode mode) {
        var classic = Adapter.toClassic(nodes[from].context().system());
        try {
            RARP rarp = (RARP) RARP.get(classic);
            scala.concurrent.Await.result(rarp.provider().transport().managementCommand(
                    new ThrottlerTransportAdapter.SetThrottle(addresses[to],
                            ThrottlerTransportAdapter$Direction$Both$.MODULE$, mode)),
                    scala.concurrent.duration.Duration.create(10, TimeUnit.SECONDS));
        } catch (Exception e) {
            throw new IllegalStateException("cannot throttle " + from + " -> " + to + " (test-mode on?)", e);
        }
    }

    /** Whether the peer's ActorSystem has terminated by itself (e.g. downed on the minority side of a partition). */
    public boolean hasTerminated(int peer) {
        PeerNode n = nodes[peer];
        return n == null || n.whenTerminated().toCompletableFuture().isDone();
    }

    // ---- plumbing

    private JsonNode send(int peer, String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(peer) + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        try {
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json = Json.MAPPER.readTree(r.body());
            if (r.statusCode() / 100 != 2) {
                throw new IllegalStateException(method + " " + path + " at peer " + peer + ": " + r.statusCode() + " " + json);
            }
            return json;
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " at peer " + peer, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Polls {@code condition} every 100 ms until it holds or {@link #WAIT} passed (then fails). */
    public static void await(String what, BooleanSupplier condition) {
        await(what, condition, () -> "");
    }

    /** As {@link #await(String, BooleanSupplier)}; a timeout's message ends with {@code state}, taken then. */
    public static void await(String what, BooleanSupplier condition, Supplier<String> state) {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) throw new IllegalStateException("timed out waiting for: " + what + state.get());
            try {
                TimeUnit.MILLISECONDS.sleep(100); // the polling interval of a deadline-bounded wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    /** Stops every live peer gracefully and deletes the data directories. */
    @Override
    public void close() {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] == null) continue;
            PeerNode n = nodes[i];
            nodes[i] = null;
            try {
                if (n.whenTerminated().toCompletableFuture().isDone()) n.context().storage().close();
                else n.close();
            } catch (RuntimeException e) {
                // best effort: the others still have to stop
            }
        }
        BenchPeers.deleteTree(root);
    }
}
