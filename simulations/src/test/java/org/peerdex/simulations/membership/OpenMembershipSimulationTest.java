package org.peerdex.simulations.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.membership.Membership;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.simulations.Scenario;
import org.peerdex.simulations.Simulation;
import org.peerdex.simulations.hostile.Population;

/**
 * The node's own membership run by every virtual peer over the virtual network: a Sybil operator at two /24s gets
 * into each honest peer's ring only as far as that peer's own admission bounds allow, and a peer that never answers
 * a challenge is admitted by nobody.
 */
class OpenMembershipSimulationTest {
    private static Scenario scenario(String hocon) {
        // the test's own keys first, then these
        return Scenario.load(ConfigFactory.parseString(hocon).withFallback(ConfigFactory.parseString(
                "index-window = 1m\nrepair-tail = 30s\ndoc-length-median = 30\nvocabulary = 2000\n"
                + "dht.repair-interval = 1h\nbootstrap = open-membership\nsettle-max = 10m\nduration = 1m\nsamples = 2")));
    }

    @Test
    void eachHonestPeerAdmitsAtMostThePrefixLimitOfASybilOperatorAndNobodyAdmitsAPeerThatDoesNotAnswer() {
        // 12 Sybil ids aimed at two frequent words' positions, all from two /24s; admission: 4 per prefix
        Scenario sc = scenario("peers = 40, docs = 20, queries = 0, seed = 7, hostile.share = 0.3,"
                + " hostile.kind = sybil, hostile.prefixes = 2, hostile.target-words = 2, hostile.mint-tries = 32");
        try (Simulation sim = new Simulation(sc)) {
            Population pop = sim.population();
            OpenMembershipNet open = sim.openMembership();
            assertNotNull(open);
            int silent = -1;
            for (int i = 0; i < pop.size() && silent < 0; i++) {
                if (!pop.hostile(i) && !open.seeds().contains(open.address(i))) silent = i;
            }
            open.silence(silent);
            long wall = System.nanoTime();
            sim.bootstrap();
            System.out.printf("bootstrap: %d s simulated, %.1f s wall%n", sim.runtime().nowMicros() / 1_000_000,
                    (System.nanoTime() - wall) / 1e9);

            Set<String> operatorPrefixes = new HashSet<>();
            int honest = 0;
            for (int i = 0; i < pop.size(); i++) {
                if (pop.hostile(i)) operatorPrefixes.add(pop.member(i).prefix());
                else honest++;
            }
            assertEquals(2, operatorPrefixes.size());
            Set<Set<PeerId>> hostileSets = new HashSet<>();
            for (int i = 0; i < pop.size(); i++) {
                assertTrue(sim.isUp(i), "every peer runs; each decides whom it admits");
                if (pop.hostile(i) || i == silent) continue;
                Membership m = open.membership(i);
                Map<String, Integer> hostileAt = new HashMap<>();
                Set<PeerId> hostileIds = new HashSet<>();
                int honestAdmitted = 0;
                for (int j = 0; j < pop.size(); j++) {
                    if (!m.isAdmitted(pop.id(j))) continue;
                    if (pop.hostile(j)) {
                        hostileAt.merge(pop.member(j).prefix(), 1, Integer::sum);
                        hostileIds.add(pop.id(j));
                    } else {
                        honestAdmitted++;
                    }
                }
                hostileSets.add(hostileIds);
                for (int n : hostileAt.values()) assertTrue(n <= 4, "peer " + i + " per prefix: " + hostileAt);
                assertTrue(hostileIds.size() <= 4 * 2, "peer " + i + ": " + hostileIds.size());
                assertTrue(hostileIds.size() > 0, "the operator's peers answer challenges: some get in at " + i);
                assertFalse(m.isAdmitted(pop.id(silent)), "peer " + i + " admitted a peer that never answered");
                // honest peers outside the crowded arcs get in: all but a few of the other honest peers
                assertTrue(honestAdmitted >= honest - 1 - 5, "peer " + i + " admitted " + honestAdmitted + " honest");
                // the directory holds what this peer's membership admitted, and nothing else
                PeerView v = sim.peer(i).view().get();
                Set<PeerId> inView = new HashSet<>(v.peers().keySet());
                inView.remove(pop.id(i));
                assertEquals(m.admitted(), inView, "peer " + i + "'s view is its membership's");
            }
            assertTrue(hostileSets.size() > 1, "directories admitted the operator's peers in their own order");
            // the peer nobody reached back took itself for unreachable: it holds no ranges
            assertEquals("passive", open.membership(silent).status().role());
            Map<String, Object> f = open.figures(sim::isUp);
            System.out.println("open membership: " + f);
            assertTrue(((Number) f.get("maxHostileAdmittedPerPrefix")).intValue() <= 4, "figures: " + f);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void twoRunsWithTheSameSeedGiveTheSameSummary() {
        String hocon = "peers = 24, docs = 60, queries = 10, seed = 13, hostile.share = 0.25, hostile.kind = all,"
                + " hostile.prefixes = 1, hostile.mint-tries = 16, index-window = 30s, duration = 30s, settle-max = 2m";
        Map<String, Object> a;
        Map<String, Object> b;
        try (Simulation sim = new Simulation(scenario(hocon))) {
            a = sim.run();
        }
        try (Simulation sim = new Simulation(scenario(hocon))) {
            b = sim.run();
        }
        Map<String, Object> ha = (Map<String, Object>) a.get("hostile");
        System.out.println("open membership run: " + ha);
        assertEquals(ha, b.get("hostile"));
        for (String section : new String[] {"traffic", "queries", "postings", "loadPerPeer"}) {
            assertEquals(a.get(section), b.get(section), section);
        }
        assertTrue(((Number) ((Map<String, Object>) ha.get("openMembership")).get("directories")).intValue() > 0);
    }
}
