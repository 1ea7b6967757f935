package org.peerdex.simulations.lab;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.search.SearchResult;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.simulations.Scenario;
import org.peerdex.simulations.Simulation;
import org.peerdex.simulations.workload.Corpus;

/**
 * A lab of virtual peers for other people's tests: N peers of the real DHT actors over the modelled network, in
 * simulated time (a minute of network life takes milliseconds). Add documents at a peer, wait for replication,
 * crash, restart and partition peers, search from any peer, count live copies. Peers are numbered 0..N-1 in ring
 * order. Not thread-safe: drive it from the test's thread.
 *
 * <pre>{@code
 * try (VirtualLab lab = VirtualLab.start(20)) {
 *     lab.addDocument(3, "http://example.org/a", "Peer search", "peers search the distributed index");
 *     lab.awaitReplication();
 *     lab.kill(3);
 *     lab.awaitReplication(); // until repair, a lookup may ask a new holder that has no copy yet
 *     assertEquals(List.of("http://example.org/a"), lab.search(7, "distributed index"));
 * }
 * }</pre>
 */
public final class VirtualLab implements AutoCloseable {
    private final Simulation sim;
    private long modified = 1_700_000_000_000L;
    private final Map<UrlHash, String> urls = new HashMap<>();

    private VirtualLab(Simulation sim) {
        this.sim = sim;
    }

    /** Starts {@code peers} virtual peers with default settings (R = 3, 16 partitions, 80 ms RTT) and joins them. */
    public static VirtualLab start(int peers) {
        return start(peers, "");
    }

    /** As {@link #start(int)}, with scenario keys (see scenario.conf), e.g. {@code "redundancy = 2, loss = 0.01"}. */
    public static VirtualLab start(int peers, String scenario) {
        Scenario sc = Scenario.load(ConfigFactory.parseString(scenario)
                .withFallback(ConfigFactory.parseString("peers = " + peers + ", docs = 1, queries = 0")));
        Simulation sim = new Simulation(sc);
        sim.bootstrap();
        if (!sim.viewsComplete()) throw new IllegalStateException("the peers did not form one ring");
        return new VirtualLab(sim);
    }

    public int peers() {
        return sim.size();
    }

    /** The simulation underneath (storage, views, traffic counters). */
    public Simulation simulation() {
        return sim;
    }

    /** Indexes a page at {@code peer} (as its crawler would) and hands its postings to the peer's Replicator. */
    public void addDocument(int peer, String url, String title, String text) {
        var doc = Corpus.build(url, title, text, modified += 60_000);
        urls.put(doc.metadata().urlHash(), doc.metadata().url());
        sim.indexDocuments(peer, List.of(doc));
    }

    /** Waits (simulated time, at most 30 minutes) until every live peer's outbox is empty. */
    public void awaitReplication() {
        sim.settle();
        if (!sim.replicationIdle()) throw new IllegalStateException("replication did not finish within settle-max");
    }

    /**
     * Crashes a peer; the others notice after the scenario's detect time (default 10 s; with bootstrap = membership
     * at the membership service's next round after it), which this waits for.
     */
    public void kill(int peer) {
        sim.stop(peer, sim.scenario().detectMicros());
        sim.runFor(sim.scenario().detectMicros() + Simulation.MEMBERSHIP_ROUND_MICROS);
    }

    /** Restarts a peer over its storage and introduces it to every live peer. */
    public void restart(int peer) {
        sim.start(peer);
        for (int j = 0; j < sim.size(); j++) sim.introduce(peer, j);
        sim.runFor(5_000_000);
    }

    /** Splits the ring into {@code groups} arcs; waits until the peers have noticed. */
    public void partition(int groups) {
        sim.network().model().partition(groups);
        sim.runFor(0);
        forgetAcross();
    }

    private void forgetAcross() {
        for (int j = 0; j < sim.size(); j++) {
            if (!sim.isUp(j)) continue;
            for (int k = 0; k < sim.size(); k++) {
                if (k != j && !sim.network().model().canReach(j, k)) {
                    sim.peer(j).directory().tell(new PeerDirectory.Forget(sim.peerId(k)));
                }
            }
        }
        sim.runFor(sim.scenario().detectMicros());
    }

    /** Heals a partition; the sides greet each other again. */
    public void heal() {
        sim.network().model().heal();
        for (int j = 0; j < sim.size(); j++) for (int k = j + 1; k < sim.size(); k++) sim.introduce(j, k);
        sim.runFor(5_000_000);
    }

    /** Lets simulated time pass. */
    public void runFor(Duration d) {
        sim.runFor(d.toNanos() / 1000);
    }

    /**
     * A search from {@code peer} as its node would answer it (resource=global: QueryCoordinator over its own index
     * and the DHT, ranked by the default profile): the URLs of the first page of 10, best first.
     */
    public List<String> search(int peer, String query) {
        List<String> out = new ArrayList<>();
        for (SearchResult r : sim.queryAndWait(peer, QueryParser.parse(query)).done().results()) out.add(r.url());
        return out;
    }

    /** The oracle's answer to the same query: the top 10 of a central index over every document added. */
    public List<String> centralSearch(String query) {
        List<String> out = new ArrayList<>();
        for (var url : sim.oracle().top(QueryParser.parse(query), 10)) out.add(url(url));
        return out;
    }

    private String url(UrlHash hash) {
        String u = urls.get(hash);
        if (u == null) throw new IllegalStateException("no document " + hash);
        return u;
    }

    /** Postings by number of live copies: [0] lost, [1], ..., [R+1 or more]. */
    public int[] liveCopies() {
        return sim.histogram();
    }

    public boolean isUp(int peer) {
        return sim.isUp(peer);
    }

    @Override
    public void close() {
        sim.close();
    }
}
