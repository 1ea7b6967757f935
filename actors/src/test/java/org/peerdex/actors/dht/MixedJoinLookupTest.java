package org.peerdex.actors.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.peerdex.actors.dht.DhtSettings.Exchange.JOIN_LOOKUPS;
import static org.peerdex.actors.dht.DhtSettings.Exchange.TOP_LOOKUPS;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.peerdex.actors.dht.search.RemoteSearch;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.rwi.Posting;

/**
 * A network of one peer that answers join lookups and three that read them as peers before join lookups did (their
 * {@code join-lookups} is off): a join-aware search over it finds the same first page as the older protocol, with
 * the partitions only older peers hold searched the older way and the rest joined.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MixedJoinLookupTest {
    private TestNetwork net;
    private TestNetwork.Peer aware;
    private TestNetwork.Peer searcher;
    private List<IndexedDocument> docs;

    @BeforeAll
    void startNetwork() throws Exception {
        net = new TestNetwork();
        Random ids = new Random(7);
        aware = net.start("a", true, PeerId.random(ids), ConfigFactory.empty());
        for (String older : List.of("b", "c", "d")) {
            net.start(older, true, PeerId.random(ids), ConfigFactory.parseString("peerdex.dht.join-lookups = off"));
        }
        searcher = net.start("p", false, PeerId.random(ids), ConfigFactory.empty());
        net.awaitConverged(Duration.ofSeconds(30));
        docs = TestCorpus.documents(120, 11);
        TestCorpus.index(aware, docs);
    }

    @AfterAll
    void stopNetwork() throws Exception {
        if (net != null) net.close();
    }

    private boolean placed() {
        return net.placed(aware, docs.stream().flatMap(d -> d.postings().stream()).toList());
    }

    private RemoteSearch.Finished search(int limit, DhtSettings settings, WordHash... words) {
        return TestNetwork.search(searcher, new RemoteSearch.Request(List.of(words), limit), settings);
    }

    @Test
    void aJoinAwareSearchFallsBackToTheOlderProtocolWhereOnlyOlderPeersHoldAPartition() {
        TestNetwork.await(Duration.ofSeconds(20), "replication to R holders", this::placed);
        WordHash linux = WordHash.of("linux");
        WordHash kernel = WordHash.of("kernel");
        Ring ring = TestNetwork.view(aware).ring();
        // the partitions the join-aware peer holds both words of: joined there; the others only older peers join
        TreeSet<Integer> olderOnly = new TreeSet<>();
        for (int p = 0; p < TestNetwork.PLACEMENT.partitions().count(); p++) {
            if (!TestNetwork.PLACEMENT.holders(linux, p, ring).contains(aware.id())
                    || !TestNetwork.PLACEMENT.holders(kernel, p, ring).contains(aware.id())) olderOnly.add(p);
        }
        assertFalse(olderOnly.isEmpty(), "this placement leaves partitions to the older peers alone");
        assertTrue(olderOnly.size() < TestNetwork.PLACEMENT.partitions().count(), "and some to the join-aware peer");

        DhtSettings asOlder = searcher.dht().settings().with(JOIN_LOOKUPS, false).with(TOP_LOOKUPS, false);
        RemoteSearch.Finished older = search(100, asOlder, linux, kernel);
        RemoteSearch.Finished mixed = search(15, searcher.dht().settings(), linux, kernel);
        assertTrue(older.complete(), "older protocol: " + older.cost());
        assertTrue(mixed.complete(), "join lookups with fallback: " + mixed.cost());
        var kinds = mixed.cost().byKind();
        assertTrue(kinds.containsKey("join-reply"), "joined where a join-aware holder is: " + kinds);
        // the older way where none is (lists this short take the filters, not top lookups)
        assertTrue(kinds.containsKey("count") && kinds.containsKey("filter"), "the older way where none is: " + kinds);
        long matches = docs.stream().filter(d -> d.postings().stream().anyMatch(p -> p.word().equals(linux))
                && d.postings().stream().anyMatch(p -> p.word().equals(kernel))).count();
        assertTrue(matches > 15);
        assertEquals(15, mixed.candidates().size());
        List<UrlHash> top = new ArrayList<>();
        for (var c : older.candidates().subList(0, 10)) top.add(c.url());
        assertEquals(top, mixed.candidates().stream().limit(10).map(RemoteSearch.RemoteCandidate::url).toList(),
                "the same first page as the older protocol");
    }
}
