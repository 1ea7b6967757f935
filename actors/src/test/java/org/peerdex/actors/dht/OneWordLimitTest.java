package org.peerdex.actors.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.peerdex.actors.dht.DhtSettings.Exchange.JOIN_LOOKUPS;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.peerdex.actors.dht.search.RemoteSearch;
import org.peerdex.actors.dht.shard.PartialScore;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.rwi.Posting;

/**
 * Without join lookups, a one-word remote search that ranks as the holders do asks each partition for only as many postings as it
 * wants, and still finds the network's best; one that ranks otherwise keeps top-k as a margin.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class OneWordLimitTest {
    private static final WordHash LINUX = WordHash.of("linux");
    private TestNetwork net;
    private TestNetwork.Peer crawler;
    private TestNetwork.Peer searcher;
    private List<IndexedDocument> docs;

    @BeforeAll
    void startNetwork() throws Exception {
        net = new TestNetwork();
        Random ids = new Random(13);
        crawler = net.start("a", true, PeerId.random(ids), ConfigFactory.empty());
        for (String other : List.of("b", "c")) net.start(other, true, PeerId.random(ids), ConfigFactory.empty());
        searcher = net.start("p", false, PeerId.random(ids), ConfigFactory.empty());
        net.awaitConverged(Duration.ofSeconds(30));
        docs = TestCorpus.documents(1_200, 17);
        TestCorpus.index(crawler, docs);
    }

    @AfterAll
    void stopNetwork() throws Exception {
        if (net != null) net.close();
    }

    private boolean placed() {
        List<Posting> postings = new ArrayList<>();
        for (IndexedDocument d : docs) for (Posting p : d.postings()) if (p.word().equals(LINUX)) postings.add(p);
        return net.placed(crawler, postings);
    }

    /** The best {@code n} pages with the word by its one-word score (ties: URL hash), over every document. */
    private List<UrlHash> centralTop(int n) {
        List<Posting> all = new ArrayList<>();
        for (IndexedDocument d : docs) for (Posting p : d.postings()) if (p.word().equals(LINUX)) all.add(p);
        all.sort(Comparator.comparingDouble(PartialScore::of).reversed().thenComparing(Posting::url));
        return all.stream().limit(n).map(Posting::url).toList();
    }

    private static long postingsReceived(RemoteSearch.Finished f) {
        RemoteSearch.Traffic t = f.cost().byKind().get("filtered-reply");
        return t == null ? 0 : t.bytes();
    }

    @Test
    void aSearchRankingAsTheHoldersDoAsksForNoMoreThanItWantsAndFindsTheBestAllTheSame() {
        TestNetwork.await(Duration.ofSeconds(30), "replication to R holders", this::placed);
        List<UrlHash> central = centralTop(10);
        // without join lookups (as during a hand-off, or towards older peers) each partition's holder is asked
        DhtSettings older = searcher.dht().settings().with(JOIN_LOOKUPS, false);
        RemoteSearch.Finished alike = TestNetwork.search(searcher, new RemoteSearch.Request(List.of(LINUX), 10), older);
        // the same order, but not declared the holders': top-k postings of every partition
        RemoteSearch.CandidateOrder otherwise = df -> Comparator.comparingDouble(RemoteSearch.RemoteCandidate::partialScore).reversed();
        RemoteSearch.Finished margin = TestNetwork.search(searcher, new RemoteSearch.Request(List.of(LINUX), 10, otherwise),
                older);
        assertTrue(alike.complete() && margin.complete(), alike.cost() + " / " + margin.cost());
        assertEquals(central, alike.candidates().stream().map(RemoteSearch.RemoteCandidate::url).toList(),
                "the holders' best 10 of each partition hold the network's best 10");
        assertEquals(central, margin.candidates().stream().limit(10).map(RemoteSearch.RemoteCandidate::url).toList());
        long few = postingsReceived(alike);
        long many = postingsReceived(margin);
        // 600 pages have the word, about 150 a partition: 10 of them a partition against top-k (100); a pack of
        // many postings compresses better, so the bytes differ less than the postings
        assertTrue(few > 0 && few * 2 < many, "lookup replies " + few + " bytes against " + many);
    }
}
