package org.peerdex.simulations.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.simulations.Simulation;
import org.peerdex.simulations.lab.VirtualLabExtension.Lab;
import org.peerdex.simulations.sim.SimRuntime;
import org.peerdex.storage.rwi.Posting;

/**
 * What a searcher caches of remote answers lives by the simulated clock, as its node's cache lives by the wall
 * clock: the cached copies expire a day of simulated time after the search (the virtual peers' cache TTL), answer
 * the peer alone until then, and not after; the host's own clock (months after the simulation's epoch) plays no part.
 */
@ExtendWith(VirtualLabExtension.class)
class CachedAnswersTest {
    private static final String URL = "http://example.org/dht";

    @Test
    void cachedCopiesExpireBySimulatedTime(@Lab(peers = 12) VirtualLab lab) {
        lab.addDocument(3, URL, "Distributed hash tables",
                "peers keep the reverse word index in a distributed hash table with three copies");
        lab.awaitReplication();
        WordHash word = WordHash.of("distributed");
        UrlHash url = UrlHash.of(URL);
        // a searcher that holds neither word for real, so what it keeps of the answer is a cached copy
        int searcher = -1;
        for (int i = 0; i < lab.peers() && searcher < 0; i++) {
            if (i == 3) continue;
            var rwi = lab.simulation().storage(i).rwi();
            if (rwi.get(word, url).isEmpty() && rwi.get(WordHash.of("hash"), url).isEmpty()) searcher = i;
        }
        assertTrue(searcher >= 0, "some peer holds neither word");

        assertEquals(List.of(URL), lab.search(searcher, "distributed hash"));
        lab.runFor(Duration.ofSeconds(5)); // the cache is written in the background
        long nowSeconds = lab.simulation().runtime().millis() / 1000;
        Posting cached = lab.simulation().storage(searcher).rwi().get(word, url).orElseThrow();
        assertTrue(cached.has(Posting.CACHED), "kept as a cached copy");
        assertTrue(cached.expiresAt() > nowSeconds && cached.expiresAt() <= nowSeconds + Duration.ofDays(1).toSeconds(),
                "expires a day of simulated time after the search: " + cached.expiresAt() + " at " + nowSeconds
                        + " (the simulation's epoch is " + SimRuntime.EPOCH_MILLIS / 1000 + ")");

        // alone, the searcher answers from its cache while the copies live, and not once they have expired; the
        // others crash at once (one by one, the last ones would hand the searcher real copies as holders leave)
        var sim = lab.simulation();
        for (int i = 0; i < lab.peers(); i++) if (i != searcher) sim.stop(i, sim.scenario().detectMicros());
        sim.runFor(sim.scenario().detectMicros() + Simulation.MEMBERSHIP_ROUND_MICROS);
        assertEquals(List.of(URL), lab.search(searcher, "distributed hash"), "answered from the cache");
        lab.runFor(Duration.ofDays(1).plusMinutes(1));
        assertTrue(sim.storage(searcher).rwi().get(word, url).orElseThrow().has(Posting.CACHED), "still a cached copy");
        assertFalse(lab.search(searcher, "distributed hash").contains(URL), "an expired copy is not shown");
    }
}
