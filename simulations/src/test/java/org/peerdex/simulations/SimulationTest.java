package org.peerdex.simulations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.simulations.workload.QueryWorkload;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;

/** Whole simulations of the real DHT actors; small enough to take seconds each. */
class SimulationTest {
    private static final long SECOND = 1_000_000L;

    private static Scenario scenario(String hocon) {
        return Scenario.load(ConfigFactory.parseString(hocon + "\nindex-window = 1m\nrepair-tail = 1m\n"
                + "doc-length-median = 40\nvocabulary = 5000\ndht.repair-interval = 1h"));
    }

    @Test
    void twoRunsWithTheSameSeedGiveTheSameFigures() {
        String hocon = "peers = 20, docs = 150, queries = 30, duration = 8m, samples = 3, churn = \"weibull:0.5,5m\","
                + " seed = 7, dht.rebalance-delay = 10s";
        Map<String, Object> a = comparable(run(scenario(hocon)));
        Map<String, Object> b = comparable(run(scenario(hocon)));
        assertEquals(a, b);
        @SuppressWarnings("unchecked")
        Map<String, Object> churn = (Map<String, Object>) a.get("churn");
        assertTrue(churn.size() > 1, "the run had churn: " + churn);
    }

    private static Map<String, Object> run(Scenario sc) {
        try (Simulation sim = new Simulation(sc)) {
            return sim.run();
        }
    }

    /**
     * Everything but wall time and heap, and the bytes RemoteSearch counts itself (its serializer sees actor refs
     * with Pekko's random uids; the network's own byte counts pad every uid to its widest and are compared).
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> comparable(Map<String, Object> s) {
        Map<String, Object> m = new LinkedHashMap<>(s);
        m.remove("time");
        m.remove("memory");
        Map<String, Object> q = new LinkedHashMap<>((Map<String, Object>) m.get("queries"));
        q.remove("bytesPerQuery");
        m.put("queries", q);
        return m;
    }

    @Test
    @SuppressWarnings("unchecked")
    void aMembershipBootstrapPlacesAsHellosDoWithoutMembershipTrafficAndWithHandlesLinearInPeers() {
        String hocon = "peers = 100, docs = 200, queries = 20, duration = 1m, samples = 2";
        Map<String, Object> hellos = run(scenario(hocon));
        Map<String, Object> membership = run(scenario(hocon + "\nbootstrap = membership"));
        for (Map<String, Object> s : List.of(hellos, membership)) {
            Map<String, Object> postings = (Map<String, Object>) s.get("postings");
            assertEquals(0, ((Number) postings.get("zeroLiveCopies")).intValue(), "lost: " + postings);
            assertEquals(0L, ((Number) ((Map<String, Object>) s.get("time")).get("networkFailures")).longValue());
            // one handle per actor, shared by every peer: O(N), not a handle per pair of peers
            int handles = ((Number) ((Map<String, Object>) s.get("memory")).get("networkHandles")).intValue();
            assertTrue(handles < 10 * 100, "handles: " + handles);
        }
        assertEquals(((Map<String, Object>) hellos.get("postings")).get("liveCopiesHistogram"),
                ((Map<String, Object>) membership.get("postings")).get("liveCopiesHistogram"));
        Map<String, Object> helloTraffic = (Map<String, Object>) hellos.get("traffic");
        assertEquals(100L * 99, ((Number) ((Map<String, Object>) helloTraffic.get("membership")).get("messages")).longValue());
        assertTrue(!((Map<String, Object>) membership.get("traffic")).containsKey("membership"),
                "no Hellos: " + membership.get("traffic"));
    }

    /**
     * With bootstrap = membership, churn reaches the directories as rounds of the membership service (one shared
     * map a round to every live peer) instead of a Hello or a Forget from every peer for every change: the views
     * end complete, no Hello crosses the network, the replicas are restored, and a seed still fixes the run.
     */
    @Test
    @SuppressWarnings("unchecked")
    void churnUnderTheMembershipServiceArrivesInRoundsAndEndsWithCompleteViews() {
        String hocon = "peers = 60, docs = 300, queries = 30, duration = 4m, samples = 2, churn = \"weibull:0.5,4m\","
                + " seed = 11, detect = 5s, dht.rebalance-delay = 10s, bootstrap = membership";
        Map<String, Object> first;
        try (Simulation sim = new Simulation(scenario(hocon))) {
            first = sim.run();
            Map<String, Object> churn = (Map<String, Object>) first.get("churn");
            long changes = ((Number) churn.getOrDefault("crash", 0L)).longValue()
                    + ((Number) churn.getOrDefault("leave", 0L)).longValue();
            long joins = ((Number) churn.getOrDefault("join", 0L)).longValue();
            long rounds = ((Number) churn.getOrDefault("membership-round", 0L)).longValue();
            assertTrue(changes > 5 && joins > 5, "the run had churn: " + churn);
            assertTrue(rounds > 0 && rounds <= changes + joins, "changes came in rounds: " + churn);
            assertTrue(sim.viewsComplete(), "every live peer's view holds exactly the live peers");
            assertTrue(!((Map<String, Object>) first.get("traffic")).containsKey("membership"),
                    "no Hellos: " + first.get("traffic"));
            int[] h = sim.histogram();
            for (int k = 1; k < sim.scenario().redundancy(); k++) {
                assertEquals(0, h[k], "the repair tail restores R copies of what survived: " + Arrays.toString(h));
            }
            Map<String, Object> queries = (Map<String, Object>) first.get("queries");
            assertTrue((Double) queries.get("recallAt10") > 0.9, "queries found their pages: " + queries);
        }
        assertEquals(comparable(first), comparable(run(scenario(hocon))));
    }

    /**
     * A ring change moves what the peers around the changed peer's points hold, and nothing elsewhere: a peer
     * whose neighbourhood stayed the same does not put its pending rebalance off. With a crash every second and a
     * rebalance delay of two, the peers around each crash still rebalance while the crashes go on (before, every
     * ring change restarted every peer's timer, and no peer planned until the changes stopped), and once they stop
     * every surviving posting has R copies again.
     */
    @Test
    void peersAroundEachCrashRebalanceWhileCrashesElsewhereGoOn() {
        Scenario sc = scenario("peers = 300, docs = 300, queries = 0, detect = 500ms, dht.rebalance-delay = 2s,"
                + " bootstrap = membership");
        try (Simulation sim = new Simulation(sc)) {
            sim.bootstrap();
            sim.index();
            sim.settle();
            long before = plans(sim);
            for (int k = 0; k < 15; k++) {
                sim.stop(10 + 19 * k, SECOND / 2);
                sim.runFor(SECOND);
            }
            long during = plans(sim) - before;
            assertTrue(during > 15, during + " rebalances planned during 15 s of a crash a second");
            sim.runFor(20 * SECOND);
            sim.settle();
            int[] h = sim.histogram();
            for (int k = 1; k < sc.redundancy(); k++) assertEquals(0, h[k], "R copies again: " + Arrays.toString(h));
            assertTrue(sim.viewsComplete());
        }
    }

    private static long plans(Simulation sim) {
        long n = 0;
        for (int i = 0; i < sim.size(); i++) if (sim.isUp(i)) n += sim.peer(i).stats().repairRounds.get();
        return n;
    }

    @Test
    void twoHundredPeersWithoutChurnLoseNothingAndFindTheOracleTopTen() {
        Scenario sc = scenario("peers = 200, docs = 400, queries = 60, duration = 1m, samples = 2");
        try (Simulation sim = new Simulation(sc)) {
            Map<String, Object> s = sim.run();
            int[] h = sim.histogram();
            assertEquals(0, h[0], "postings without a live copy: " + Arrays.toString(h));
            for (int k = 1; k < sc.redundancy(); k++) assertEquals(0, h[k], "postings with fewer than R copies: " + Arrays.toString(h));
            assertTrue(sim.oracle().totalPostings() > 10_000, "a real corpus: " + sim.oracle().totalPostings());
            assertEquals(60, sim.results().size());
            // queries go through the real QueryCoordinator and Ranking over the local index and the DHT; the
            // oracle ranks the central index with the same Scorer (under the querying peer's estimate of N):
            // without faults every ranked page is the oracle's top ten
            for (Simulation.QueryResult r : sim.results()) {
                assertTrue(r.complete() && r.messages() > 0, "query " + r);
                assertTrue(r.results() > 0 && r.latencyMicros() >= r.firstResultMicros() && r.firstResultMicros() >= 0,
                        "every query has answers (its words come from a document): " + r);
                assertEquals(1.0, r.recall(), "recall@10 of query " + r);
            }
            assertTrue(sim.results().stream().anyMatch(r -> r.words() >= 2), "multi-word queries ran");
            @SuppressWarnings("unchecked")
            Map<String, Object> queries = (Map<String, Object>) s.get("queries");
            assertEquals(1.0, (Double) queries.get("recallAt10"), "recall@10 of the ranked page: " + queries);
            @SuppressWarnings("unchecked")
            Map<String, Object> load = (Map<String, Object>) s.get("loadPerPeer");
            assertEquals(200, load.get("livePeers"));
        }
    }

    @Test
    void crashedPeersLeaveFewerCopiesUntilRepairRestoresThem() {
        Scenario sc = scenario("peers = 40, docs = 300, queries = 0, detect = 10s");
        try (Simulation sim = new Simulation(sc)) {
            sim.bootstrap();
            sim.index();
            sim.settle();
            int[] before = sim.histogram();
            assertEquals(0, before[0] + before[1] + before[2], Arrays.toString(before));
            int[] heldBefore = sim.holderHistogram();
            assertEquals(0, heldBefore[0] + heldBefore[1] + heldBefore[2], "R copies on the holders: " + Arrays.toString(heldBefore));
            // 8 crashes spread over the ring, never all R holders of one position: what R - 1 crashes leave is
            // restored by the holders' repair (all R at once leave only the crawler's copy, offered again at its
            // crawl repair, an hour later)
            for (int i : crashesSparingOneHolderEverywhere(sim, 8)) sim.stop(i, 10 * SECOND);
            int[] hit = sim.histogram();
            int degraded = hit[1] + hit[2];
            assertTrue(degraded > 1000, "crashes must take copies away: " + Arrays.toString(hit));
            // the live ring names new holders at once; they have no copies yet, the survivors still do
            int[] heldHit = sim.holderHistogram();
            assertEquals(0, heldHit[0], "a holder of every position survived: " + Arrays.toString(heldHit));
            assertTrue(heldHit[1] + heldHit[2] >= degraded, Arrays.toString(hit) + " " + Arrays.toString(heldHit));
            sim.runFor(15 * SECOND); // detected, ring changed, rebalance debounced
            sim.settle();
            sim.runFor(60 * SECOND);
            int[] after = sim.histogram();
            assertEquals(0, after[1] + after[2], "repair restores R copies of everything that survived: "
                    + Arrays.toString(hit) + " -> " + Arrays.toString(after));
            assertEquals(hit[0], after[0], "lost postings stay lost");
            int[] heldAfter = sim.holderHistogram();
            assertEquals(0, heldAfter[0] + heldAfter[1] + heldAfter[2], "the new holders have their copies: "
                    + Arrays.toString(heldHit) + " -> " + Arrays.toString(heldAfter));
            assertTrue(sim.viewsComplete());
        }
    }

    @Test
    void aPostingWhoseHoldersAllCrashIsLostToSearchesThoughItsCrawlerKeepsACopy() {
        Scenario sc = scenario("peers = 40, docs = 300, queries = 0, detect = 10s");
        try (Simulation sim = new Simulation(sc)) {
            sim.bootstrap();
            sim.index();
            sim.settle();
            Ring ring = sim.peer(0).view().get().ring();
            // a posting of some crawler's own crawl that the crawler does not hold itself
            byte[][] chosen = {null};
            List<PeerId> holders = new ArrayList<>();
            for (int c = 0; c < sim.size() && chosen[0] == null; c++) {
                PeerId crawler = sim.peerId(c);
                var rwi = sim.storage(c).rwi();
                rwi.scanEntries((key, value) -> {
                    if (chosen[0] != null || PostingCodec.holderOffset(value) >= 0) return;
                    List<PeerId> h = sim.placement().holders(rwi.position(key), ring);
                    if (h.contains(crawler)) return;
                    chosen[0] = key.clone();
                    holders.addAll(h);
                });
            }
            assertTrue(chosen[0] != null, "some crawler's posting is held elsewhere");
            int id = sim.oracle().postingId(chosen[0]);
            assertTrue(id >= 0);
            for (int i = 0; i < sim.size(); i++) if (holders.contains(sim.peerId(i))) sim.stop(i, 10 * SECOND);
            int[] onHolders = new int[sim.oracle().totalPostings()];
            int[] live = sim.copies(null, onHolders);
            assertTrue(live[id] >= 1, "the crawler's copy is live: " + live[id]);
            assertEquals(0, onHolders[id], "but no holder of the ring without the crashed peers has it");
            assertTrue(sim.holderHistogram()[0] > 0, Arrays.toString(sim.holderHistogram()));
        }
    }

    @Test
    void holdersInSyncFindNothingToRepairAtOneAndAtSixteenPositionsPerPeer() {
        for (int v : new int[] {1, 16}) {
            Scenario sc = Scenario.load(ConfigFactory.parseString("peers = 40, docs = 300, queries = 0, index-window = 1m\n"
                    + "doc-length-median = 40\nvocabulary = 5000\ndht.repair-interval = 20s\npositions-per-peer = " + v));
            try (Simulation sim = new Simulation(sc)) {
                sim.bootstrap();
                sim.index();
                sim.settle();
                assertEquals(0, sim.histogram()[1] + sim.histogram()[2], "R copies after indexing");
                long[] before = repairCounters(sim);
                // a few periodic rounds: every peer offers digests of what it holds to its co-holders
                sim.runFor(70 * SECOND);
                long[] after = repairCounters(sim);
                assertTrue(after[0] > before[0], "digests were compared (" + v + " positions)");
                // digests of ranges in sync agree: a bucket with positions only one side holds counts alike on both
                assertEquals(before[1], after[1], "postings repaired between holders in sync (" + v + " positions)");
            }
        }
    }

    @Test
    void aHolderThatLostSomePostingsIsSentThoseAloneNotTheirRangesWhole() {
        // the same loss twice: with key lists in the digest replies (the default) and without (whole ranges)
        long[] withLists = repairAfterLoss("");
        long[] whole = repairAfterLoss("\ndht.repair-held-hashes = 0");
        long lost = withLists[0];
        assertEquals(lost, whole[0], "the same postings lost in both runs");
        System.out.println("repair after loss, {lost, repaired, listed and not sent}: key lists "
                + Arrays.toString(withLists) + ", whole ranges " + Arrays.toString(whole));
        // (a lost copy beyond the R a position needs is not sent back: R copies is what repair restores)
        assertTrue(withLists[1] > 0, "lost postings are sent back: " + Arrays.toString(withLists));
        // each lost posting comes back from a co-holder (now and then from two at once), and nothing else does
        assertTrue(withLists[1] <= 2 * lost, "only the lost postings are sent: " + Arrays.toString(withLists));
        assertTrue(withLists[2] > withLists[1], "the entries the holder listed were not sent: " + Arrays.toString(withLists));
        assertTrue(whole[1] > 2 * withLists[1], "whole ranges send far more: " + Arrays.toString(whole) + " against "
                + Arrays.toString(withLists));
        assertEquals(0, whole[2]);
    }

    /**
     * Settles 5 peers (dense ranges: about 15 postings a range), deletes every twentieth posting one peer holds (lost
     * writes), runs the periodic repair and checks every posting has its R copies again: {lost, repaired postings,
     * entries not sent as held}.
     */
    private static long[] repairAfterLoss(String extra) {
        Scenario sc = Scenario.load(ConfigFactory.parseString("peers = 5, docs = 2000, queries = 0, index-window = 1m\n"
                + "doc-length-median = 40\nvocabulary = 5000\ndht.repair-interval = 20s" + extra));
        try (Simulation sim = new Simulation(sc)) {
            sim.bootstrap();
            sim.index();
            sim.settle();
            sim.runFor(70 * SECOND); // the first periodic rounds, in sync
            assertEquals(0, sim.histogram()[1] + sim.histogram()[2], "R copies after indexing");
            List<Posting> gone = new ArrayList<>();
            int[] n = {0};
            sim.storage(2).rwi().scanAll(p -> !p.has(Posting.CACHED), p -> {
                if (n[0]++ % 20 == 0) gone.add(p);
            });
            sim.storage(2).rwi().delete(gone);
            assertTrue(sim.histogram()[2] > 0, "the loss leaves postings with fewer copies");
            long before = repaired(sim)[0];
            sim.runFor(70 * SECOND);
            sim.settle();
            assertEquals(0, sim.histogram()[1] + sim.histogram()[2], "repair restores R copies of the lost postings");
            long[] after = repaired(sim);
            return new long[] {gone.size(), after[0] - before, after[1]};
        }
    }

    private static long[] repaired(Simulation sim) {
        long repaired = 0;
        long held = 0;
        for (int i = 0; i < sim.size(); i++) {
            repaired += sim.peer(i).stats().repairedPostings.get();
            held += sim.peer(i).stats().repairHeldSkipped.get();
        }
        return new long[] {repaired, held};
    }

    /** Repair rounds and repaired entries summed over the peers. */
    private static long[] repairCounters(Simulation sim) {
        long digests = 0;
        long repaired = 0;
        for (int i = 0; i < sim.size(); i++) {
            digests += sim.peer(i).stats().repairRounds.get();
            repaired += sim.peer(i).stats().repairedPostings.get() + sim.peer(i).stats().repairedMetadata.get();
        }
        return new long[] {digests, repaired};
    }

    /** Up to {@code n} peers, one every few places of the first points, such that every position keeps a holder. */
    private static List<Integer> crashesSparingOneHolderEverywhere(Simulation sim, int n) {
        Ring ring = sim.peer(0).view().get().ring();
        List<Integer> out = new ArrayList<>();
        Set<PeerId> down = new HashSet<>();
        for (int step = 0; step < 5 && out.size() < n; step++) {
            for (int i = step; i < sim.size() && out.size() < n; i += 5) {
                down.add(sim.peerId(i));
                boolean spares = true;
                for (int k = 0; k < ring.points() && spares; k++) {
                    spares = !down.containsAll(sim.placement().holders(ring.positionAt(k), ring));
                }
                if (spares) out.add(i);
                else down.remove(sim.peerId(i));
            }
        }
        assertEquals(n, out.size(), "crashes found: " + out);
        return out;
    }

    @Test
    void aPartitionSplitsTheRingAndHealingRestoresOneRingAndFullRecall() {
        Scenario sc = scenario("peers = 30, docs = 300, queries = 0, detect = 10s, partition-groups = 2");
        try (Simulation sim = new Simulation(sc)) {
            sim.bootstrap();
            sim.index();
            sim.settle();
            List<QueryWorkload.Query> qs = new QueryWorkload(new double[] {40, 35, 15, 10})
                    .generate(sim.oracle(), 20, 3);
            sim.partition();
            sim.runFor(15 * SECOND);
            assertEquals(15, sim.peer(0).view().get().ring().size(), "side A sees only itself");
            assertEquals(15, sim.peer(29).view().get().ring().size(), "side B sees only itself");
            sim.settle();
            List<Double> split = recalls(sim, qs);
            sim.heal();
            sim.runFor(15 * SECOND);
            assertTrue(sim.viewsComplete(), "one ring again");
            assertEquals(30, sim.peer(0).view().get().ring().size());
            sim.settle();
            sim.runFor(60 * SECOND);
            int[] h = sim.histogram();
            assertEquals(0, h[0] + h[1] + h[2], Arrays.toString(h));
            List<Double> healed = recalls(sim, qs);
            double healedMean = healed.stream().mapToDouble(Double::doubleValue).average().orElse(0);
            double splitMean = split.stream().mapToDouble(Double::doubleValue).average().orElse(1);
            // healed, nothing is missing: every ranked page is the oracle's top ten again
            assertTrue(splitMean < 1.0, "a split ring misses what the other side holds: " + split);
            assertEquals(1.0, healedMean, "after healing " + healed + ", split " + split);
        }
    }

    private static List<Double> recalls(Simulation sim, List<QueryWorkload.Query> qs) {
        List<Double> out = new ArrayList<>();
        for (QueryWorkload.Query q : qs) out.add(sim.searchAndWait(0, q.words()).recall());
        return out;
    }
}
