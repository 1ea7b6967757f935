package org.peerdex.simulations.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.peerdex.simulations.Scenario;
import org.peerdex.simulations.Simulation;

/** Hostile peers as a scenario knob: Sybil placement against the admission bounds, fake answers, dropped stores. */
class HostileSimulationTest {
    private static Scenario scenario(String hocon) {
        return Scenario.load(ConfigFactory.parseString(hocon + "\nindex-window = 1m\nrepair-tail = 30s\n"
                + "doc-length-median = 30\nvocabulary = 2000\ndht.repair-interval = 1h\nbootstrap = membership\n"
                + "duration = 1m\nsamples = 2"));
    }

    private static Map<String, Object> run(Scenario sc) {
        try (Simulation sim = new Simulation(sc)) {
            return sim.run();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> hostile(Map<String, Object> summary) {
        return (Map<String, Object>) summary.get("hostile");
    }

    @Test
    void twoRunsWithTheSameSeedGiveTheSameHostileFigures() {
        String hocon = "peers = 60, docs = 120, queries = 30, seed = 11, hostile.share = 0.2, hostile.kind = all";
        Map<String, Object> a = hostile(run(scenario(hocon)));
        Map<String, Object> b = hostile(run(scenario(hocon)));
        assertEquals(a, b);
        assertTrue(((Number) a.get("hostileAdmitted")).intValue() > 0, "some hostile peers got in: " + a);
    }

    @Test
    void fakingPeersGetFakeResultsServedAndAnHonestNetworkServesNone() {
        Map<String, Object> faked = hostile(run(scenario(
                "peers = 80, docs = 150, queries = 40, seed = 5, hostile.share = 0.2, hostile.kind = fake")));
        Map<String, Object> honest = hostile(run(scenario(
                "peers = 80, docs = 150, queries = 40, seed = 5, hostile.share = 0, hostile.kind = fake")));
        System.out.println("fake 0.2: " + faked);
        System.out.println("fake 0:   " + honest);
        assertEquals(16, ((Number) faked.get("hostilePeers")).intValue());
        assertTrue(((Number) faked.get("fakeResultsServed")).longValue() > 0, "fakes were served: " + faked);
        assertTrue((Double) faked.get("fakeResultShare") > 0, "fake share: " + faked);
        assertEquals(0L, ((Number) honest.get("fakeResultsServed")).longValue(), "no fakes without hostile peers: " + honest);
        assertEquals(0.0, (Double) honest.get("fakeResultShare"));
        assertTrue(((Number) honest.get("resultsServed")).longValue() > 0, "results were served: " + honest);
    }

    @Test
    void aSecondHolderKeepsFakesOffThePageWhenATenthOfThePeersFake() {
        String base = "peers = 80, docs = 150, queries = 40, seed = 5, hostile.share = 0.1, hostile.kind = fake\n";
        Map<String, Object> believed = run(scenario(base + "dht.confirm-postings = off"));
        Map<String, Object> confirmed = run(scenario(base + "dht.confirm-postings = on"));
        double fakesBelieved = (Double) hostile(believed).get("fakeResultShare");
        double fakesConfirmed = (Double) hostile(confirmed).get("fakeResultShare");
        double recallBelieved = recall(believed);
        double recallConfirmed = recall(confirmed);
        System.out.printf("fake 0.1: one holder believed: fake share %.3f recall@10 %.3f; confirmed by a second: "
                + "fake share %.3f recall@10 %.3f%n", fakesBelieved, recallBelieved, fakesConfirmed, recallConfirmed);
        assertTrue(fakesBelieved > 0.1, "faking holders are believed without confirmation: " + fakesBelieved);
        assertTrue(fakesConfirmed < fakesBelieved / 4, "confirmation drops most fakes: " + fakesConfirmed);
        assertTrue(recallConfirmed > recallBelieved, "and the real results take their places");
    }

    @SuppressWarnings("unchecked")
    private static double recall(Map<String, Object> summary) {
        return ((Number) ((Map<String, Object>) summary.get("queries")).get("recallAt10")).doubleValue();
    }

    @Test
    @SuppressWarnings("unchecked")
    void aSybilOperatorFromTwoPrefixesGetsAtMostThePrefixLimitAdmittedPerPrefix() {
        // 30 Sybil ids aimed at the positions of two frequent words, from two /24s: at most 4 per prefix get in
        Scenario sc = scenario("peers = 100, docs = 50, queries = 0, seed = 3, hostile.share = 0.3,"
                + " hostile.kind = sybil, hostile.prefixes = 2, hostile.target-words = 2, hostile.mint-tries = 512");
        try (Simulation sim = new Simulation(sc)) {
            Population pop = sim.population();
            Map<String, Integer> admittedAt = new HashMap<>();
            int hostile = 0;
            for (int i = 0; i < pop.size(); i++) {
                Population.Member m = pop.member(i);
                if (!m.hostile()) continue;
                hostile++;
                if (m.admitted()) admittedAt.merge(m.prefix(), 1, Integer::sum);
            }
            assertEquals(30, hostile);
            assertTrue(admittedAt.size() <= 2, "two prefixes: " + admittedAt);
            for (int n : admittedAt.values()) assertTrue(n <= 4, "per prefix: " + admittedAt);
            sim.bootstrap();
            for (int i = 0; i < pop.size(); i++) assertEquals(pop.admitted(i), sim.isUp(i), "peer " + i + " runs iff admitted");
            Map<String, Object> f = pop.figures(sim.placement());
            System.out.println("sybil: " + f);
            assertEquals(8, ((Number) f.get("hostileAdmitted")).intValue(), "both prefixes filled: " + f);
            assertEquals(22L, ((Map<String, Long>) f.get("refused")).get("hostile prefix full"), "refused: " + f);
            assertEquals(4, ((Number) f.get("maxHostileAdmittedPerPrefix")).intValue());
            // the arc bound refuses few honest peers (their 16 points each fall at random)
            int honest = ((Number) f.get("honestAdmitted")).intValue();
            assertTrue(honest >= 66, "honest peers admitted: " + f);
            assertTrue((Double) f.get("ringShare") <= 8.0 / (8 + honest) + 1e-9, "ring share: " + f);
            // the 8 admitted ids were aimed: several targets now have a hostile primary holder
            assertTrue(((Number) f.get("targetsWithHostilePrimary")).intValue() > 0, "aimed ids: " + f);
        }
    }

    @Test
    void withoutHostilePeersTheNetworkIsTheOneItAlwaysWas() {
        Scenario plain = scenario("peers = 40, docs = 50, queries = 0, seed = 9");
        Scenario knob = scenario("peers = 40, docs = 50, queries = 0, seed = 9, hostile.kind = sybil");
        try (Simulation a = new Simulation(plain); Simulation b = new Simulation(knob)) {
            for (int i = 0; i < 40; i++) {
                assertEquals(a.peerId(i), b.peerId(i));
                assertTrue(a.population().admitted(i));
                assertFalse(a.population().hostile(i));
            }
        }
    }

    @Test
    void admissionBoundsPrefixesAndArcsAsTheOpenMembershipDoes() {
        org.peerdex.protocol.ring.Admission admission = new AdmissionRules("on", 2, 3, 2).table(1);
        java.util.SplittableRandom r = new java.util.SplittableRandom(1);
        // same prefix: the third is refused
        assertTrue(admission.admit(org.peerdex.protocol.hash.PeerId.random(r), "p").isEmpty());
        assertTrue(admission.admit(org.peerdex.protocol.hash.PeerId.random(r), "p").isEmpty());
        assertEquals("prefix full", admission.admit(org.peerdex.protocol.hash.PeerId.random(r), "p").orElseThrow());
        // one arc (4 arcs): max(3, 2 * ceil((members + 1) / 4)) = 3 while few peers are in
        org.peerdex.protocol.ring.Admission arcs = new AdmissionRules("on", 100, 3, 2).table(1);
        Map<String, Integer> outcome = new LinkedHashMap<>();
        for (int i = 0; i < 5; i++) {
            org.peerdex.protocol.hash.PeerId id = org.peerdex.protocol.hash.PeerId.atPosition(1000L + i, r);
            outcome.merge(arcs.admit(id, "p" + i).orElse("admitted"), 1, Integer::sum);
        }
        assertEquals(Map.of("admitted", 3, "arc full", 2), outcome);
    }
}
