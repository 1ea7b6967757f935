package org.peerdex.actors.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.peerdex.actors.dht.ring.LatestView;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.actors.dht.search.DhtCandidateSource;
import org.peerdex.actors.dht.search.RemoteSearch;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.rwi.Posting;

/**
 * Peer churn on a real 5-peer network (5 ActorSystems over Artery on 127.0.0.1, 5 LevelDB directories), R = 3.
 * Documents are indexed at three peers; every peer's results for a set of queries are recorded. Each round (one
 * seed) picks a partition of a query word and kills R−1 = 2 of its holders hard (ActorSystem terminated, no
 * leave): every recorded result is still found from every live peer, right after the kill (the dead still in
 * the ring: timeouts), right after the ring change (hand-off: new holders have no copies yet), and after the two
 * restart on their data directories; then every posting is on all R holders of the current ring again (counted
 * by reading every peer's LevelDB). A hand-off delay of 3 s makes the window where new holders are empty wide.
 * Two more tests: indexing while two holders are down (the restarted holders must get those postings), and a
 * holder that lost its data directory rejoining under its old id (it must get its share back).
 * Rounds: {@code -Dpeerdex.churn.rounds=N} (default 2), figures on stdout (docs/reliability.md, "Churn").
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChurnTest {
    private static final List<List<String>> QUERIES = List.of(List.of("kernel"), List.of("linux"),
            List.of("linux", "kernel"), List.of("alpha", "tango"), List.of("unique7"));
    private static final Duration HANDOFF_WINDOW = Duration.ofSeconds(60);
    private static final Config CHURN = ConfigFactory.parseString(String.join("\n",
            // copies move 3 s after a ring change: lookups in between meet new holders without copies
            "peerdex.dht.rebalance-delay = 3s",
            "pekko.cluster.split-brain-resolver.stable-after = 3s",
            "pekko.cluster.failure-detector.heartbeat-interval = 300ms",
            "pekko.cluster.failure-detector.acceptable-heartbeat-pause = 2s",
            "pekko.cluster.down-removal-margin = 1s"));

    private TestNetwork net;
    private final Map<String, PeerId> ids = new LinkedHashMap<>();
    private List<IndexedDocument> docs;
    /** what each peer (by name) found for each query before any churn */
    private final Map<String, Map<List<String>, Set<UrlHash>>> recorded = new HashMap<>();
    private final List<String> figures = new ArrayList<>();

    static Stream<Long> seeds() {
        int rounds = Integer.getInteger("peerdex.churn.rounds", 2);
        return LongStream.rangeClosed(1, rounds).boxed();
    }

    @BeforeAll
    void startNetworkIndexAndRecord() throws Exception {
        net = new TestNetwork();
        Random r = new Random(2026);
        for (String n : List.of("a", "b", "c", "d", "e")) {
            PeerId id = PeerId.random(r);
            ids.put(n, id);
            net.start(n, true, id, CHURN);
        }
        net.awaitConverged(Duration.ofSeconds(60));
        docs = TestCorpus.documents(90, 11);
        for (int i = 0; i < 3; i++) {
            List<IndexedDocument> share = new ArrayList<>();
            for (int d = i; d < docs.size(); d += 3) share.add(docs.get(d));
            TestCorpus.index(net.peers.get(i), share);
        }
        TestNetwork.await(Duration.ofSeconds(60), "R copies of every posting", this::everyPostingOnAllHolders);
        for (TestNetwork.Peer p : net.peers) {
            Map<List<String>, Set<UrlHash>> mine = new HashMap<>();
            for (List<String> q : QUERIES) {
                RemoteSearch.Finished f = search(p, q, true);
                Set<UrlHash> found = urls(f);
                Set<UrlHash> missing = new HashSet<>(expected(docs, q));
                missing.removeAll(found);
                assertEquals(Set.of(), missing, p.name() + " finds every document of " + q + " " + f.cost());
                mine.put(q, found);
            }
            recorded.put(p.name(), mine);
        }
    }

    @AfterAll
    void stopNetwork() throws Exception {
        figures.forEach(System.out::println);
        if (net != null) net.close();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void killingRMinusOneHoldersLosesNoResultAndRestartRestoresRCopies(long seed) {
        Random r = new Random(seed);
        List<String> q = QUERIES.get(r.nextInt(QUERIES.size()));
        int partition = r.nextInt(TestNetwork.PLACEMENT.partitions().count());
        Ring ring = TestNetwork.view(net.peers.get(0)).ring();
        List<PeerId> holders = new ArrayList<>(TestNetwork.PLACEMENT.holders(WordHash.of(q.get(0)), partition, ring));
        Collections.shuffle(holders, r);
        List<String> victims = new ArrayList<>();
        for (PeerId id : holders.subList(0, 2)) {
            TestNetwork.Peer p = byId(id);
            victims.add(p.name());
            net.kill(p);
        }
        Tally atOnce = searchEverywhere(true);
        TestNetwork.await(Duration.ofSeconds(30), "the dead out of every ring",
                () -> net.peers.stream().allMatch(p -> ringSize(p) == 3));
        Tally changed = searchEverywhere(true);
        Tally changedUnfixed = searchEverywhere(false);
        for (String v : victims) net.start(v, true, ids.get(v), CHURN);
        net.awaitConverged(Duration.ofSeconds(60));
        Tally restarted = searchEverywhere(true);
        Tally restartedUnfixed = searchEverywhere(false);
        TestNetwork.await(Duration.ofSeconds(60), "R copies of every posting after the restart",
                this::everyPostingOnAllHolders);
        int[] copies = copies();
        figures.add(String.format("churn seed=%d partition=%d of '%s' killed=%s | searches=%d lost: at once=%d "
                        + "after ring change=%d (without hand-off requests %d) after restart=%d (without %d) | messages "
                        + "after ring change %d (without %d, hand-off requests %d), after restart %d (without %d, "
                        + "hand-off requests %d) | postings=%d copies min=%d max=%d on holders all",
                seed, partition, q.get(0), victims, atOnce.searches + changed.searches + restarted.searches,
                atOnce.lost, changed.lost, changedUnfixed.lost, restarted.lost, restartedUnfixed.lost,
                changed.messages, changedUnfixed.messages, changed.handoffRequests, restarted.messages,
                restartedUnfixed.messages, restarted.handoffRequests, copies[0], copies[1], copies[2]));
        System.out.println(figures.get(figures.size() - 1));
        assertEquals(0, atOnce.lost, "results lost right after the kill" + atOnce.detail);
        assertEquals(0, changed.lost, "results lost right after the ring change" + changed.detail);
        assertEquals(0, restarted.lost, "results lost right after the restart" + restarted.detail);
        assertTrue(copies[1] >= 3, "every posting has R copies");
    }

    /**
     * Writes while holders are down: 2 of the 3 holders of a partition are killed, and after the ring has dropped
     * them 30 new documents are indexed at a live peer, so their postings of that partition go to substitutes.
     * Every new document is found from every live peer then, and from every peer (the restarted ones too) right
     * after the two restart on their old data (which lacks the new documents); then every posting, old and new, is
     * on all R holders of the ring again.
     */
    @org.junit.jupiter.api.Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void documentsIndexedWhileRMinusOneHoldersAreDownAreFoundEverywhereAndGetRCopiesAfterTheirRestart() {
        List<IndexedDocument> fresh = TestCorpus.documents(1000, 30, 77);
        Ring ring = TestNetwork.view(net.peers.get(0)).ring();
        Posting first = fresh.get(0).postings().get(0);
        List<PeerId> holders = new ArrayList<>(TestNetwork.PLACEMENT.holders(first.word(), first.url(), ring));
        List<String> victims = new ArrayList<>();
        for (PeerId id : holders.subList(0, 2)) {
            TestNetwork.Peer p = byId(id);
            victims.add(p.name());
            net.kill(p);
        }
        TestNetwork.await(Duration.ofSeconds(30), "the dead out of every ring",
                () -> net.peers.stream().allMatch(p -> ringSize(p) == 3));
        TestNetwork.Peer writer = net.peers.stream().filter(p -> !victims.contains(p.name())).findFirst().orElseThrow();
        TestCorpus.index(writer, fresh);
        docs.addAll(fresh);
        List<List<String>> queries = new ArrayList<>(List.of(List.of("linux"), List.of("kernel")));
        for (int i = 0; i < fresh.size(); i += 3) queries.add(List.of("unique" + (1000 + i)));
        // the substitutes hold the new postings once the writer's replicator has sent them
        TestNetwork.await(Duration.ofSeconds(30), "the new documents found from the live peers",
                () -> missingFresh(fresh, queries).lost == 0);
        Tally whileDown = missingFresh(fresh, queries);
        for (String v : victims) net.start(v, true, ids.get(v), CHURN);
        net.awaitConverged(Duration.ofSeconds(60));
        Tally restarted = missingFresh(fresh, queries);
        TestNetwork.await(Duration.ofSeconds(60), "R copies of every posting, old and new, after the restart",
                this::everyPostingOnAllHolders, () -> missingCopies(fresh));
        int[] copies = copies();
        figures.add(String.format("churn writes while down: killed=%s, %d documents indexed at %s | searches=%d lost:"
                        + " while down=%d after restart=%d | postings=%d copies min=%d max=%d on holders all",
                victims, fresh.size(), writer.name(), whileDown.searches + restarted.searches, whileDown.lost,
                restarted.lost, copies[0], copies[1], copies[2]));
        System.out.println(figures.get(figures.size() - 1));
        assertEquals(0, restarted.lost, "new documents lost right after the restart" + restarted.detail);
        assertTrue(copies[1] >= 3, "every posting has R copies");
    }

    /**
     * A holder loses its disk: it is killed, its data directory deleted, and it starts again at once with its old
     * peer id and an empty store, before the cluster has dropped its old incarnation (so the ring may never change).
     * Its co-holders must notice the new incarnation and give it back its share: every posting on all R holders.
     */
    @org.junit.jupiter.api.Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aHolderThatLostItsDataDirectoryGetsItsShareBackWhenItRejoins() throws Exception {
        TestNetwork.Peer victim = net.peers.get(net.peers.size() - 1);
        String name = victim.name();
        long held = victim.storage().stats().postings();
        net.kill(victim);
        net.wipe(name);
        long t0 = System.nanoTime();
        TestNetwork.Peer back = net.start(name, true, ids.get(name), CHURN);
        net.awaitConverged(Duration.ofSeconds(60));
        TestNetwork.await(Duration.ofSeconds(60), "R copies of every posting after " + name + " lost its data",
                this::everyPostingOnAllHolders, () -> missingCopies(List.of()));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        figures.add(String.format("churn disk lost: %s held %d postings, restarted empty with its id; all R copies"
                + " again %d ms after the restart, %d postings back on it", name, held, ms,
                back.storage().stats().postings()));
        System.out.println(figures.get(figures.size() - 1));
        assertTrue(back.storage().stats().postings() > 0, "the restarted holder got its share back");
    }

    /** Searches the queries from every live peer; counts new documents that match a query and are not found. */
    private Tally missingFresh(List<IndexedDocument> fresh, List<List<String>> queries) {
        Map<List<String>, Set<UrlHash>> wanted = new HashMap<>();
        for (List<String> q : queries) wanted.put(q, expected(fresh, q));
        return searchEverywhere(queries, true, (peer, q) -> wanted.get(q));
    }

    /** Searches every query from every live peer; counts recorded results not found. */
    private Tally searchEverywhere(boolean handoff) {
        return searchEverywhere(QUERIES, handoff, (peer, q) -> recorded.get(peer.name()).get(q));
    }

    /** Searches each query from every live peer; counts the results it should find (by peer and query) that it did not. */
    private Tally searchEverywhere(List<List<String>> queries, boolean handoff,
                                   java.util.function.BiFunction<TestNetwork.Peer, List<String>, Set<UrlHash>> expected) {
        Tally t = new Tally();
        for (TestNetwork.Peer p : net.peers) {
            for (List<String> q : queries) {
                RemoteSearch.Finished f = search(p, q, handoff);
                Set<UrlHash> missing = new HashSet<>(expected.apply(p, q));
                missing.removeAll(urls(f));
                t.searches++;
                t.lost += missing.size();
                if (!missing.isEmpty()) {
                    t.detail.append(String.format("%n  %s lost %d of %s (complete=%s, timeouts=%d, asked=%d, hand-off requests=%d)",
                            p.name(), missing.size(), q, f.complete(), f.cost().timeouts(), f.cost().peersAsked(),
                            f.cost().handoffRequests()));
                }
                t.messages += f.cost().messages();
                t.handoffRequests += f.cost().handoffRequests();
            }
        }
        return t;
    }

    /** Counts of one series of searches. */
    private static final class Tally {
        int searches;
        int lost;
        long messages;
        long handoffRequests;
        final StringBuilder detail = new StringBuilder();
    }

    private RemoteSearch.Finished search(TestNetwork.Peer from, List<String> words, boolean handoff) {
        // as DhtCandidateSource does: the view and the rings before it from the same LatestView
        PeerView view = from.dht().view().get();
        List<Ring> previous = handoff ? from.dht().view().recentRings(HANDOFF_WINDOW, System.currentTimeMillis())
                : List.of();
        List<WordHash> hashes = words.stream().map(WordHash::of).toList();
        return TestNetwork.search(from, new RemoteSearch.Request(hashes, 200), view, previous, from.dht().settings(),
                Duration.ofSeconds(20), e -> { });
    }

    private static Set<UrlHash> urls(RemoteSearch.Finished f) {
        Set<UrlHash> out = new HashSet<>();
        for (RemoteSearch.RemoteCandidate c : f.candidates()) out.add(c.url());
        return out;
    }

    /** The documents among {@code among} that hold every one of the words. */
    private static Set<UrlHash> expected(List<IndexedDocument> among, List<String> words) {
        Set<UrlHash> out = new HashSet<>();
        for (IndexedDocument d : among) {
            boolean all = words.stream().allMatch(w -> d.postings().stream().anyMatch(p -> p.word().equals(WordHash.of(w))));
            if (all) out.add(d.metadata().urlHash());
        }
        return out;
    }

    private TestNetwork.Peer byId(PeerId id) {
        return net.peers.stream().filter(p -> p.id().equals(id)).findFirst().orElseThrow();
    }

    private static int ringSize(TestNetwork.Peer p) {
        PeerView v = TestNetwork.view(p);
        return v == null ? -1 : v.ring().size();
    }

    private static boolean has(TestNetwork.Peer peer, Posting p) {
        return peer.storage().rwi().get(p.word(), p.url()).filter(x -> !x.has(Posting.CACHED)).isPresent();
    }

    /** Every posting of the corpus is stored (not as a cache entry) by every one of its R current holders. */
    private boolean everyPostingOnAllHolders() {
        PeerView v = TestNetwork.view(net.peers.get(0));
        if (v == null || v.ring().size() != net.peers.size()) return false;
        for (IndexedDocument d : docs) {
            for (Posting p : d.postings()) {
                for (PeerId h : TestNetwork.PLACEMENT.holders(p.word(), p.url(), v.ring())) {
                    if (!has(byId(h), p)) return false;
                }
            }
        }
        return true;
    }

    /** Which holders of the current ring lack which postings (for a failure message). */
    private String missingCopies(List<IndexedDocument> fresh) {
        PeerView v = TestNetwork.view(net.peers.get(0));
        if (v == null) return " (no view)";
        Set<UrlHash> freshUrls = new HashSet<>();
        for (IndexedDocument d : fresh) freshUrls.add(d.metadata().urlHash());
        Map<String, int[]> byHolder = new java.util.TreeMap<>();
        for (IndexedDocument d : docs) {
            for (Posting p : d.postings()) {
                for (PeerId h : TestNetwork.PLACEMENT.holders(p.word(), p.url(), v.ring())) {
                    if (!has(byId(h), p)) byHolder.computeIfAbsent(byId(h).name(), k -> new int[2])[freshUrls.contains(p.url()) ? 1 : 0]++;
                }
            }
        }
        StringBuilder b = new StringBuilder(" ring=" + v.ring().size() + "; missing (old, new) by holder:");
        byHolder.forEach((n, c) -> b.append(' ').append(n).append('=').append(c[0]).append('/').append(c[1]));
        for (TestNetwork.Peer p : net.peers) {
            b.append("\n  ").append(p.name()).append(' ').append(p.dht().stats().snapshot()).append(' ')
                    .append(TestNetwork.progress(p));
        }
        return b.toString();
    }

    /** Postings of the corpus, and the least and most copies any of them has over all peers' storage. */
    private int[] copies() {
        int n = 0;
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (IndexedDocument d : docs) {
            for (Posting p : d.postings()) {
                int c = 0;
                for (TestNetwork.Peer peer : net.peers) if (has(peer, p)) c++;
                n++;
                min = Math.min(min, c);
                max = Math.max(max, c);
            }
        }
        return new int[] {n, min, max};
    }
}
