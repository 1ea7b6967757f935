package org.peerdex.simulations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.peerdex.simulations.Simulation.QueryResult;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;

/**
 * {@code indexing = settled} writes the holders' stores as the real replication leaves them, and
 * {@code settled-query-words} costs every query what the whole corpus would: the two shortcuts the bytes-per-query
 * measurement at a million documents rests on, each checked against the way it stands in for.
 */
class SettledIndexingTest {
    private static final String HOCON = "peers = 30, docs = 500, queries = 60, duration = 5m, samples = 1, seed = 5,"
            + " bootstrap = membership, index-window = 1m, repair-tail = 30s, doc-length-median = 40,"
            + " vocabulary = 3000, dht.repair-interval = 1h";

    private record Run(Map<String, Object> summary, List<QueryResult> queries, List<Long> stores) {}

    private static Run run(String indexing) {
        Scenario sc = Scenario.load(ConfigFactory.parseString(HOCON + ", indexing = " + indexing));
        try (Simulation sim = new Simulation(sc)) {
            Map<String, Object> summary = sim.run();
            List<Long> stores = new ArrayList<>();
            for (int i = 0; i < sim.size(); i++) stores.add(digest(sim, i));
            return new Run(summary, List.copyOf(sim.results()), stores);
        }
    }

    /**
     * A checksum of one peer's stored postings (keys and values, in store order) and metadata; not the postings its
     * queries cached, whose expiry the coordinator takes from the wall clock.
     */
    private static long digest(Simulation sim, int peer) {
        CRC32 crc = new CRC32();
        sim.storage(peer).rwi().scanEntries((key, value) -> {
            if ((PostingCodec.flags(value) & Posting.CACHED) != 0) return;
            crc.update(key);
            crc.update(value);
        });
        sim.storage(peer).metadata().scanAll(md -> crc.update(md.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return crc.getValue();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> postings(Run r) {
        return (Map<String, Object>) r.summary().get("postings");
    }

    @Test
    void settledStoresAreWhatReplicationLeavesAndQueriesCostTheSame() {
        Run replicated = run(Scenario.REPLICATE);
        Run settled = run(Scenario.SETTLED);
        assertEquals(replicated.stores(), settled.stores(), "every peer's postings and metadata, byte for byte");
        assertEquals(postings(replicated).get("liveCopiesHistogram"), postings(settled).get("liveCopiesHistogram"));
        assertEquals(0, ((Number) postings(settled).get("noCopyOnAHolder")).intValue());
        assertEquals(replicated.queries().size(), settled.queries().size());
        assertTrue(settled.queries().stream().anyMatch(q -> q.results() > 0), "queries found documents");
        for (int i = 0; i < settled.queries().size(); i++) {
            QueryResult a = replicated.queries().get(i);
            QueryResult b = settled.queries().get(i);
            assertEquals(List.of(a.index(), a.words(), a.results(), a.recall(), a.messages(), a.bytes()),
                    List.of(b.index(), b.words(), b.results(), b.recall(), b.messages(), b.bytes()), "query " + i);
        }
    }

    @Test
    void onlyTheQueriedWordsGiveEveryQueryTheSameAnswerAndCost() {
        Run all = run(Scenario.SETTLED);
        Run asked = run(Scenario.SETTLED_QUERY_WORDS);
        long allPostings = ((Number) postings(all).get("total")).longValue();
        long askedPostings = ((Number) postings(asked).get("total")).longValue();
        assertTrue(askedPostings > 0 && askedPostings < allPostings / 2,
                "only the asked words' postings are written: " + askedPostings + " of " + allPostings);
        assertEquals(0, ((Number) postings(asked).get("zeroLiveCopies")).intValue(), "every written posting is held");
        assertEquals(all.queries().size(), asked.queries().size());
        long multiWord = 0;
        for (int i = 0; i < all.queries().size(); i++) {
            QueryResult a = all.queries().get(i);
            QueryResult b = asked.queries().get(i);
            if (a.words() > 1 && a.results() > 0) multiWord++;
            assertEquals(List.of(a.index(), a.words(), a.results(), a.recall(), a.recallTrueN(), a.messages(), a.bytes()),
                    List.of(b.index(), b.words(), b.results(), b.recall(), b.recallTrueN(), b.messages(), b.bytes()),
                    "query " + i);
        }
        assertTrue(multiWord > 10, "multi-word queries with answers were compared: " + multiWord);
    }
}
