package org.peerdex.actors.dht;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.peerdex.actors.dht.DhtSettings.Exchange.CONFIRM_POSTINGS;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
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
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * Confirmation in a network of one peer that answers presence tables and three that answer them as peers before
 * tables did (their {@code presence-tables} is off: a table is a request without keys to them). A made-up result
 * planted at every holder of its keys but one older peer is shown without confirmation, and refuted with it: the
 * searcher asks the older peer again the older way, and its denial counts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MixedPresenceTableTest {
    private TestNetwork net;
    private TestNetwork.Peer current;
    private TestNetwork.Peer searcher;
    private final List<TestNetwork.Peer> older = new ArrayList<>();
    private List<IndexedDocument> docs;

    @BeforeAll
    void startNetwork() throws Exception {
        net = new TestNetwork();
        Random ids = new Random(11);
        // no rebalance or repair while the test runs: either could copy the planted posting to the one holder left
        // without it (a rebalance after the last view change, 2 s later, did so in a slow run), and then no holder
        // can deny it; the crawler's own replication does not wait for them
        com.typesafe.config.Config quiet = ConfigFactory.parseString(
                "peerdex.dht.rebalance-delay = 10m\npeerdex.dht.repair-interval = 1h");
        current = net.start("a", true, PeerId.random(ids), quiet);
        for (String name : List.of("b", "c", "d")) {
            older.add(net.start(name, true, PeerId.random(ids),
                    ConfigFactory.parseString("peerdex.dht.presence-tables = off").withFallback(quiet)));
        }
        searcher = net.start("p", false, PeerId.random(ids), quiet);
        net.awaitConverged(Duration.ofSeconds(30));
        docs = TestCorpus.documents(120, 11);
        TestCorpus.index(current, docs);
    }

    @AfterAll
    void stopNetwork() throws Exception {
        if (net != null) net.close();
    }

    @Test
    void aPostingOnlyOlderPeersCanDenyIsRefutedByAskingThemTheOlderWay() {
        TestNetwork.await(Duration.ofSeconds(20), "replication to R holders",
                () -> net.placed(current, docs.stream().flatMap(d -> d.postings().stream()).toList()));
        WordHash linux = WordHash.of("linux");
        WordHash kernel = WordHash.of("kernel");
        Ring ring = TestNetwork.view(current).ring();
        // a made-up URL whose partition has an older holder of "linux" that holds no "kernel" there (so it never
        // answers the partition's join, which needs both): the one peer left without the fake
        UrlHash fake = null;
        String fakeUrl = null;
        TestNetwork.Peer honest = null;
        for (int i = 0; fake == null; i++) {
            String url = "https://fake.test/best-deal-" + i;
            UrlHash u = UrlHash.of(url);
            int p = TestNetwork.PLACEMENT.partitions().partitionOf(u);
            List<PeerId> kernelHolders = TestNetwork.PLACEMENT.holders(kernel, p, ring);
            for (TestNetwork.Peer o : older) {
                if (TestNetwork.PLACEMENT.holders(linux, p, ring).contains(o.id()) && !kernelHolders.contains(o.id())) {
                    fake = u;
                    fakeUrl = url;
                    honest = o;
                    break;
                }
            }
        }
        int partition = TestNetwork.PLACEMENT.partitions().partitionOf(fake);
        for (WordHash w : List.of(linux, kernel)) {
            for (PeerId h : TestNetwork.PLACEMENT.holders(w, partition, ring)) {
                if (h.equals(honest.id())) continue;
                TestNetwork.Peer at = net.peers.stream().filter(x -> x.id().equals(h)).findFirst().orElseThrow();
                at.storage().rwi().add(List.of(fakePosting(w, fake, current.id())), true);
            }
        }
        UrlMetadata md = new UrlMetadata(fake, fakeUrl, "Best deal linux kernel", "", "",
                List.of(), "en", "h", "text/html", 2_000, 1_760_000_000_000L, 1_760_000_000_000L, 3, 3, 60, null,
                "f00d", List.of());
        for (TestNetwork.Peer p : net.peers) p.storage().metadata().put(md);

        RemoteSearch.Request request = new RemoteSearch.Request(List.of(linux, kernel), 15);
        DhtSettings trusting = searcher.dht().settings().with(CONFIRM_POSTINGS, false);
        RemoteSearch.Finished believed = TestNetwork.search(searcher, request, trusting);
        UrlHash planted = fake;
        assertTrue(believed.candidates().stream().anyMatch(c -> c.url().equals(planted)),
                "without confirmation the planted result is shown (the plant works): " + believed.cost());

        RemoteSearch.Finished confirmed = TestNetwork.search(searcher, request,
                searcher.dht().settings().with(CONFIRM_POSTINGS, true));
        assertFalse(confirmed.candidates().stream().anyMatch(c -> c.url().equals(planted)),
                "the older holder's denial refutes it: " + confirmed.cost());
        assertTrue(confirmed.cost().refuted() >= 1, confirmed.cost().toString());
        assertTrue(confirmed.candidates().size() >= 10, "the page fills from the reserve: " + confirmed.candidates().size());
    }

    /** A posting built to rank first: the word in title, URL, headings and emphasis, often and early. */
    private static Posting fakePosting(WordHash word, UrlHash url, PeerId holder) {
        int flags = Posting.IN_TITLE | Posting.IN_URL | Posting.IN_HEADING | Posting.IN_EMPHASIS
                | Posting.IN_DESCRIPTION | Posting.IN_KEYWORDS;
        return new Posting(word, url, holder, flags, 25, new int[] {0, 1, 2, 3, 4, 5, 6, 7}, 60, 4, 20_300, "en",
                'h', 3, 3, 32, 2, 0);
    }
}
