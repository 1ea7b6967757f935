package org.peerdex.actors.search;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.text.DocumentText;

/**
 * A DHT holder has postings of pages whose metadata lives elsewhere: its own index offers them first, without
 * metadata; the DHT source brings the metadata later, and the page must still be shown.
 */
class RemoteMetadataResolutionTest {
    static final ActorTestKit KIT = ActorTestKit.create(com.typesafe.config.ConfigFactory.parseString(
            "pekko.actor.provider = local"));

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    static IndexedDocument doc(String url, String title, String body) {
        UrlMetadata meta = new UrlMetadata(UrlHash.of(url), url, title, "", "", List.of(), "en", "h", "text/html",
                body.length(), 0, 0, 0, 0, body.split(" ").length, null, "", List.of());
        return PostingFactory.build(meta, new DocumentText(url, title, "", List.of(), "", List.of(), List.of(),
                List.of(), body));
    }

    /** A remote source that answers with its candidates (storing their metadata first) once released. */
    static final class HeldBackSource implements CandidateSource {
        private final PeerStorage storage;
        private final IndexedDocument doc;
        private ActorRef<Answer> replyTo;

        HeldBackSource(PeerStorage storage, IndexedDocument doc) {
            this.storage = storage;
            this.doc = doc;
        }

        @Override
        public String name() {
            return "dht";
        }

        @Override
        public boolean remote() {
            return true;
        }

        @Override
        public synchronized void start(SearchRequest request, ActorRef<Answer> replyTo) {
            this.replyTo = replyTo;
        }

        synchronized void release() {
            storage.metadata().put(doc.metadata()); // as DhtCandidateSource does before passing candidates on
            replyTo.tell(new CandidatesFound(name(), List.of(new Candidate(doc.metadata().urlHash(), doc.postings())),
                    new CorpusStats(2, Map.of("tape", 2L), 0), true));
        }
    }

    @Test
    void aPageHeldHereWithoutMetadataIsShownOnceTheDhtBringsItsMetadata() {
        PeerStorage storage = PeerStorage.inMemory(new Partitions(Partitions.DEFAULT_EXPONENT));
        IndexedDocument crawled = doc("http://a.test/crawled.html", "Tape notes", "tape drives and tape libraries");
        IndexedDocument held = doc("http://b.test/held.html", "Tape tape tape", "tape tape tape tape rotation");
        storage.writer().add(crawled);
        storage.writer().flush();
        storage.rwi().add(held.postings(), false); // a holder's copy: postings only, the metadata is elsewhere
        HeldBackSource dht = new HeldBackSource(storage, held);
        Executor blocking = KIT.system().dispatchers().lookup(DispatcherSelector.fromConfig(org.peerdex.actors.Dispatchers.SEARCH));
        SearchContext context = new SearchContext(new LocalIndexSource(storage, blocking), () -> List.of(dht),
                MetadataSource.of(storage.metadata()), RankingProfile::defaults, () -> LinkRank.NONE, null, blocking,
                Duration.ofSeconds(10), null, Duration.ofDays(1), "");
        TestProbe<QueryCoordinator.Event> events = KIT.createTestProbe();
        SearchRequest request = new SearchRequest(QueryParser.parse("tape"), 10, 0, "global", "false", Set.of(),
                false, "text");
        KIT.spawn(QueryCoordinator.create(request, context, events.getRef()));
        // the local answer resolved: the crawled page is shown, the held one had no metadata yet
        QueryCoordinator.ResultFound first = events.fishForMessage(Duration.ofSeconds(10), e ->
                e instanceof QueryCoordinator.ResultFound ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
                        : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore())
                .stream().map(QueryCoordinator.ResultFound.class::cast).findFirst().orElseThrow();
        assertEquals("http://a.test/crawled.html", first.result().url());
        dht.release();
        QueryCoordinator.Done done = (QueryCoordinator.Done) events.fishForMessage(Duration.ofSeconds(10), e ->
                e instanceof QueryCoordinator.Done ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
                        : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore())
                .get(0);
        assertEquals(Set.of("http://a.test/crawled.html", "http://b.test/held.html"),
                Set.copyOf(done.results().stream().map(SearchResult::url).toList()));
    }

    @Test
    void aStoredRecordWithAScriptUrlNeverBecomesAResult() {
        PeerStorage storage = PeerStorage.inMemory(new Partitions(Partitions.DEFAULT_EXPONENT));
        // as an older peer cached it before metadata was checked on receipt
        IndexedDocument trap = doc("http://evil.test/x", "Tape trap", "tape tape tape");
        UrlMetadata m = trap.metadata();
        storage.writer().add(new IndexedDocument(new UrlMetadata(m.urlHash(), "javascript:alert(document.cookie)//x",
                m.title(), m.description(), m.author(), m.keywords(), m.language(), m.doctype(), m.mimeType(), m.size(),
                m.lastModified(), m.fetched(), m.linksLocal(), m.linksOther(), m.wordsInText(), m.holder(),
                m.contentHash(), m.headings()), trap.text(), trap.postings()));
        storage.writer().add(doc("http://a.test/real.html", "Tape notes", "tape drives"));
        storage.writer().flush();
        Executor blocking = KIT.system().dispatchers().lookup(DispatcherSelector.fromConfig("peerdex.blocking-dispatcher"));
        SearchContext context = new SearchContext(new LocalIndexSource(storage, blocking), List::of,
                MetadataSource.of(storage.metadata()), RankingProfile::defaults, () -> LinkRank.NONE, null, blocking,
                Duration.ofSeconds(10), null, Duration.ofDays(1), "");
        TestProbe<QueryCoordinator.Event> events = KIT.createTestProbe();
        KIT.spawn(QueryCoordinator.create(new SearchRequest(QueryParser.parse("tape"), 10, 0, "local", "false",
                Set.of(), false, "text"), context, events.getRef()));
        QueryCoordinator.Done done = (QueryCoordinator.Done) events.fishForMessage(Duration.ofSeconds(10), e ->
                e instanceof QueryCoordinator.Done ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
                        : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore())
                .get(0);
        assertEquals(List.of("http://a.test/real.html"), done.results().stream().map(SearchResult::url).toList());
    }
}
