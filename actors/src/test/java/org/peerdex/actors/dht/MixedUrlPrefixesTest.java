package org.peerdex.actors.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.peerdex.actors.dht.DhtSettings.Exchange.JOIN_LOOKUPS;
import static org.peerdex.actors.dht.DhtSettings.Exchange.TOP_LOOKUPS;
import static org.peerdex.actors.dht.DhtSettings.Exchange.URL_PREFIXES;

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
 * Exact URL sets named by prefixes, in a network of one holder that reads them and three that answer as peers
 * before them did (their {@code url-prefixes} is off: the prefixes unread, the key's best sent, no mark): the
 * searcher asks those again by URLs, and finds the same first page as when it names every URL in full (real peers on
 * loopback, LevelDB, 6,000 documents: lists long enough for top lookups).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MixedUrlPrefixesTest {
    private static final WordHash LINUX = WordHash.of("linux");
    private static final WordHash KERNEL = WordHash.of("kernel");
    private TestNetwork net;
    private TestNetwork.Peer current;
    private TestNetwork.Peer searcher;
    private List<IndexedDocument> docs;

    @BeforeAll
    void startNetwork() throws Exception {
        net = new TestNetwork();
        Random ids = new Random(37);
        current = net.start("a", true, PeerId.random(ids), ConfigFactory.empty());
        for (String name : List.of("b", "c", "d")) {
            net.start(name, true, PeerId.random(ids), ConfigFactory.parseString("peerdex.dht.url-prefixes = off"));
        }
        searcher = net.start("p", false, PeerId.random(ids), ConfigFactory.empty());
        net.awaitConverged(Duration.ofSeconds(30));
        docs = TestCorpus.documents(6_000, 41);
        TestCorpus.index(current, docs);
    }

    @AfterAll
    void stopNetwork() throws Exception {
        if (net != null) net.close();
    }

    /** Requests of exact URL sets: completions, candidates' postings, the rarest word's postings. */
    private static long exact(RemoteSearch.Finished f) {
        long n = 0;
        for (String kind : List.of("complete", "full", "rarest")) {
            RemoteSearch.Traffic t = f.cost().byKind().get(kind);
            if (t != null) n += t.messages();
        }
        return n;
    }

    @Test
    void holdersThatDoNotReadPrefixesAreAskedAgainByUrlsAndTheFirstPageIsTheSame() {
        List<Posting> postings = TestCorpus.postingsOf(docs, LINUX, KERNEL);
        TestNetwork.await(Duration.ofSeconds(90), "replication to R holders", () -> net.placed(current, postings));
        DhtSettings tops = searcher.dht().settings().with(JOIN_LOOKUPS, false).with(TOP_LOOKUPS, true);
        RemoteSearch.Request request = new RemoteSearch.Request(List.of(LINUX, KERNEL), 5);
        for (DhtSettings s : List.of(tops, tops.with(TOP_LOOKUPS, false))) {
            RemoteSearch.Finished byUrls = TestNetwork.search(searcher, request, s.with(URL_PREFIXES, false));
            RemoteSearch.Finished byPrefixes = TestNetwork.search(searcher, request, s);
            assertTrue(byUrls.complete() && byPrefixes.complete(), byUrls.cost() + " / " + byPrefixes.cost());
            assertEquals(5, TestNetwork.first(byUrls, 5).size(), byUrls.cost().toString());
            assertEquals(TestNetwork.first(byUrls, 5), TestNetwork.first(byPrefixes, 5), "top lookups " + s.topLookups());
            assertEquals(s.topLookups(), byPrefixes.cost().byKind().containsKey("complete"), byPrefixes.cost().toString());
            // the older holders' exact lookups were sent twice: by prefixes, then by URLs
            assertTrue(exact(byUrls) > 0 && exact(byPrefixes) > exact(byUrls),
                    byPrefixes.cost() + " against " + byUrls.cost());
        }
    }
}
