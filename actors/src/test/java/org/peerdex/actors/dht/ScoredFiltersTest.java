package org.peerdex.actors.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.peerdex.actors.dht.DhtSettings.Exchange.JOIN_LOOKUPS;
import static org.peerdex.actors.dht.DhtSettings.Exchange.SCORED_FILTERS;
import static org.peerdex.actors.dht.DhtSettings.Exchange.TOP_LOOKUPS;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.peerdex.actors.dht.search.RemoteSearch;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.rwi.Posting;

/**
 * Scored filters on real peers (loopback, LevelDB, 6,000 documents): "kernel" (every third document, about 125 a
 * partition) is short enough for the Bloom filters at a first page of ten and long enough to be scored, and "linux"
 * (every second) passes its filter in a thousand documents. Two holders read scored filters and two refuse them as
 * peers before them did ({@code scored-filters = off}); the searcher asks those again for postings.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ScoredFiltersTest {
    private static final WordHash LINUX = WordHash.of("linux");
    private static final WordHash KERNEL = WordHash.of("kernel");
    private TestNetwork net;
    private TestNetwork.Peer crawler;
    private TestNetwork.Peer searcher;
    private List<IndexedDocument> docs;

    @BeforeAll
    void startNetwork() throws Exception {
        net = new TestNetwork();
        Random ids = new Random(53);
        crawler = net.start("a", true, PeerId.random(ids), ConfigFactory.empty());
        net.start("b", true, PeerId.random(ids), ConfigFactory.empty());
        for (String name : List.of("c", "d")) {
            net.start(name, true, PeerId.random(ids), ConfigFactory.parseString("peerdex.dht.scored-filters = off"));
        }
        searcher = net.start("p", false, PeerId.random(ids), ConfigFactory.empty());
        net.awaitConverged(Duration.ofSeconds(30));
        docs = TestCorpus.documents(6_000, 43);
        TestCorpus.index(crawler, docs);
    }

    @AfterAll
    void stopNetwork() throws Exception {
        if (net != null) net.close();
    }

    private static RemoteSearch.Traffic kind(RemoteSearch.Finished f, String kind) {
        return f.cost().byKind().getOrDefault(kind, new RemoteSearch.Traffic(0, 0));
    }

    @Test
    void scoredFiltersFindTheSameFirstPageForFewerBytesAndOlderHoldersAreAskedForPostings() {
        List<Posting> postings = TestCorpus.postingsOf(docs, LINUX, KERNEL);
        TestNetwork.await(Duration.ofSeconds(90), "replication to R holders", () -> net.placed(crawler, postings));
        DhtSettings s = searcher.dht().settings().with(JOIN_LOOKUPS, false).with(TOP_LOOKUPS, true);
        RemoteSearch.Request request = new RemoteSearch.Request(List.of(KERNEL, LINUX), 10);
        RemoteSearch.Finished plain = TestNetwork.search(searcher, request, s.with(SCORED_FILTERS, false));
        assertTrue(plain.complete(), plain.cost().toString());
        assertEquals(10, TestNetwork.first(plain, 10).size(), plain.cost().toString());
        long plainAnswers = kind(plain, "filtered-reply").bytes() + kind(plain, "rarest-reply").bytes();
        // each search picks the holders it asks by its query id: search again until one asked a refusing holder
        boolean askedAgain = false;
        long fewestAnswerBytes = Long.MAX_VALUE;
        for (int i = 0; i < 12 && !(askedAgain && i >= 2); i++) {
            RemoteSearch.Finished scored = TestNetwork.search(searcher, request, s);
            assertTrue(scored.complete(), scored.cost().toString());
            // the searcher ranks by the sum of partial scores, as the scores do: the best ten are among the candidates
            assertEquals(TestNetwork.first(plain, 10), TestNetwork.first(scored, 10), scored.cost().toString());
            assertTrue(kind(scored, "full").messages() > 0, scored.cost().toString());
            // a refusing holder is asked again: more filtered requests than keys' holders asked without scores
            askedAgain |= kind(scored, "filtered").messages() > kind(plain, "filtered").messages();
            fewestAnswerBytes = Math.min(fewestAnswerBytes,
                    kind(scored, "filtered-reply").bytes() + kind(scored, "rarest-reply").bytes());
        }
        assertTrue(askedAgain, "no search asked a holder with scored filters off again");
        // the holders that read them answered in scores: fewer bytes of filtered and rarest answers
        assertTrue(fewestAnswerBytes < plainAnswers, fewestAnswerBytes + " against " + plain.cost());
    }
}
