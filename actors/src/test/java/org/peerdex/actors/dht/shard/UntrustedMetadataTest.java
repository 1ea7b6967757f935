package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.peerdex.actors.dht.TestNetwork;
import org.peerdex.actors.dht.search.RemoteSearch;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.text.DocumentText;

/**
 * Metadata from other peers that would end up as a link on this peer's pages: a record whose URL is not http(s) or
 * does not hash to its URL hash is dropped and counted, on a stored transfer (ShardOwner) and on a search reply
 * (RemoteSearch). Real peers: two holders and a passive searcher, each its own ActorSystem and LevelDB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class UntrustedMetadataTest {
    private TestNetwork net;
    private TestNetwork.Peer h1;
    private TestNetwork.Peer h2;
    private TestNetwork.Peer searcher;

    @BeforeAll
    void start() throws Exception {
        net = new TestNetwork();
        h1 = net.start("h1", true);
        h2 = net.start("h2", true);
        searcher = net.start("s", false);
        net.awaitConverged(Duration.ofSeconds(40));
    }

    @AfterAll
    void stop() throws Exception {
        if (net != null) net.close();
    }

    static IndexedDocument doc(String url, String body) {
        UrlMetadata meta = new UrlMetadata(UrlHash.of(url), url, "title of " + url, "", "", List.of(), "en", "h",
                "text/html", body.length(), 0, 0, 0, 0, body.split(" ").length, null, "", List.of());
        return PostingFactory.build(meta, new DocumentText(url, meta.title(), "", List.of(), "", List.of(), List.of(),
                List.of(), body));
    }

    static UrlMetadata withUrl(UrlMetadata m, String url) {
        return new UrlMetadata(m.urlHash(), url, m.title(), m.description(), m.author(), m.keywords(), m.language(),
                m.doctype(), m.mimeType(), m.size(), m.lastModified(), m.fetched(), m.linksLocal(), m.linksOther(),
                m.wordsInText(), m.holder(), m.contentHash(), m.headings());
    }

    /** What a hostile holder serves: the document's postings, and metadata under its hash with another URL. */
    static void plant(TestNetwork.Peer holder, IndexedDocument d, String servedUrl) {
        KeyValueStore.Batch batch = holder.storage().store().newBatch();
        for (Posting p : d.postings()) holder.storage().rwi().addTo(batch, p);
        holder.storage().metadata().putTo(batch, servedUrl == null ? d.metadata() : withUrl(d.metadata(), servedUrl));
        holder.storage().store().write(batch, true);
    }

    @Test
    void aSearchReplyWithAScriptUrlOrAnotherUrlsHashIsDroppedAndCounted() {
        IndexedDocument good = doc("http://good.test/page.html", "zebracorn plain words here");
        IndexedDocument script = doc("http://x.test/a.html", "zebracorn script words here");
        IndexedDocument swapped = doc("http://x.test/b.html", "zebracorn swapped words here");
        for (TestNetwork.Peer holder : List.of(h1, h2)) {
            plant(holder, good, null);
            plant(holder, script, "javascript:alert(document.cookie)");
            plant(holder, swapped, "http://attacker.test/phish.html");
        }
        RemoteSearch.Finished finished = TestNetwork.search(searcher, new RemoteSearch.Request(
                List.of(WordHash.of("zebracorn")), 100), TestNetwork.view(searcher), List.of(),
                searcher.dht().settings(), Duration.ofSeconds(20), e -> {
                    if (e instanceof RemoteSearch.Found f) {
                        for (RemoteSearch.RemoteCandidate c : f.candidates()) {
                            assertTrue(c.metadata().url().startsWith("http://good.test/"), "passed on: " + c.metadata().url());
                        }
                    }
                });
        Set<String> urls = finished.candidates().stream().map(c -> c.metadata().url()).collect(Collectors.toSet());
        System.out.println("search reply: results " + urls + ", dropped records " + finished.cost().rejectedMetadata());
        assertEquals(Set.of("http://good.test/page.html"), urls);
        // each bad record is dropped from each holder that was asked for it (the other holder is asked next)
        assertTrue(finished.cost().rejectedMetadata() >= 2, "dropped and counted: " + finished.cost());
    }

    @Test
    void aStoredTransferWithAScriptUrlOrAnotherUrlsHashIsRejectedAndCounted() {
        String ref = ActorRefResolver.get(h1.system()).toSerializationFormat(h1.dht().shardOwner());
        ActorRef<ShardOwner.Command> owner = ActorRefResolver.get(searcher.system()).resolveActorRef(ref);
        IndexedDocument d = doc("http://transfer.test/page.html", "quagga transfer words");
        int n = 0;
        for (String served : List.of("http://attacker.test/other.html", "javascript:alert(1)", "data:text/html,x")) {
            long before = h1.dht().stats().rejectedMetadata.get();
            TestProbe<ShardOwner.StoreReply> reply = TestProbe.create(searcher.system());
            owner.tell(new ShardOwner.StorePostings(++n, PeerId.random(new java.util.Random(n)),
                    PostingPack.of(d.postings()), List.of(withUrl(d.metadata(), served)), reply.getRef()));
            ShardOwner.StoreReply r = reply.receiveMessage(Duration.ofSeconds(10));
            System.out.println("stored transfer with " + served + ": " + r.outcome() + " (" + r.reason() + ")");
            assertEquals(ShardOwner.Outcome.REJECTED, r.outcome(), r.reason());
            // at least this one (the holders' repairs may offer h1 the records planted by the other test meanwhile)
            assertTrue(h1.dht().stats().rejectedMetadata.get() >= before + 1);
            assertFalse(h1.storage().metadata().contains(d.metadata().urlHash()));
        }
        // the same batch with its true URL is stored
        TestProbe<ShardOwner.StoreReply> reply = TestProbe.create(searcher.system());
        owner.tell(new ShardOwner.StorePostings(++n, PeerId.random(new java.util.Random(n)),
                PostingPack.of(d.postings()), List.of(d.metadata()), reply.getRef()));
        assertEquals(ShardOwner.Outcome.STORED, reply.receiveMessage(Duration.ofSeconds(10)).outcome());
        assertEquals("http://transfer.test/page.html", h1.storage().metadata().get(d.metadata().urlHash()).get().url());
    }
}
