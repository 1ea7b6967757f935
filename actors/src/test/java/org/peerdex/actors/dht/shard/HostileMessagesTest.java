package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.DhtStats;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.TestCorpus;
import org.peerdex.actors.dht.TestNetwork;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.kv.LevelDbStore;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * A hostile peer against a real ShardOwner, across real ActorSystems (Artery on loopback, serialize-messages on):
 * oversized, malformed, out-of-range, replayed and flooding messages are refused and counted, the sender is rate
 * limited and blocked, nothing outside the receiver's ranges is stored, and the ShardOwner keeps answering.
 */
@Tag("reliability")
class HostileMessagesTest {
    static TestNetwork net;
    static TestNetwork.Peer victim;
    static TestNetwork.Peer attacker;
    static ActorRef<ShardOwner.Command> target;
    static final Map<String, String> FIGURES = new LinkedHashMap<>();

    @BeforeAll
    static void start() throws Exception {
        net = new TestNetwork();
        for (int i = 0; i < 4; i++) start("hostile-" + i);
        net.awaitConverged(Duration.ofSeconds(40));
        victim = net.peers.get(0);
        attacker = net.peers.get(1);
        // the victim's ShardOwner as the attacker's system sees it: a remote reference over Artery
        String ref = ActorRefResolver.get(victim.system()).toSerializationFormat(victim.dht().shardOwner());
        target = ActorRefResolver.get(attacker.system()).resolveActorRef(ref);
        TestNetwork.await(Duration.ofSeconds(20), "victim's ring", () -> {
            PeerView v = TestNetwork.view(victim);
            return v != null && v.ring().size() == 4;
        });
    }

    /** A peer as TestNetwork starts one, with serialize-messages on and low limits for the hostile cases. */
    static void start(String name) {
        Config cfg = ConfigFactory.parseString(String.join("\n",
                "pekko.actor.serialize-messages = on",
                "peerdex.dht.block-after-rejections = 5",
                "peerdex.dht.sender-lookup-rate = 100",
                "peerdex.dht.sender-lookup-burst = 50")).withFallback(TestNetwork.config(true));
        ActorSystem<SpawnProtocol.Command> system = ActorSystem.create(SpawnProtocol.create(), "peerdex-test", cfg);
        Cluster cluster = Cluster.get(system);
        cluster.manager().tell(Join.create(net.peers.isEmpty() ? cluster.selfMember().address()
                : Cluster.get(net.peers.get(0).system()).selfMember().address()));
        PeerStorage storage = new PeerStorage(LevelDbStore.open(tempDir(name), 4L << 20),
                TestNetwork.PLACEMENT.partitions(), 1L << 20, false);
        PeerId id = PeerId.random(new Random(name.hashCode()));
        DhtPeer dht = DhtPeer.spawn(DhtPeer.via(system), id, storage, TestNetwork.PLACEMENT, DhtSettings.from(cfg),
                cluster.selfMember().address().toString(), "");
        net.peers.add(new TestNetwork.Peer(name, system, storage, dht));
    }

    static java.nio.file.Path tempDir(String name) {
        try {
            return java.nio.file.Files.createTempDirectory("peerdex-hostile-" + name);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        System.out.println("hostile peer messages: " + FIGURES);
        if (net != null) net.close();
    }

    static DhtStats stats() {
        return victim.dht().stats();
    }

    static ShardOwner.StoreReply send(PeerId from, PostingPack pack, List<UrlMetadata> meta) {
        TestProbe<ShardOwner.StoreReply> probe = TestProbe.create(attacker.system());
        target.tell(new ShardOwner.StorePostings(1, from, pack, meta, probe.getRef()));
        return probe.receiveMessage(Duration.ofSeconds(10));
    }

    /** Postings of synthetic documents, split by whether the victim holds their position. */
    static List<Posting> postings(boolean victimHolds, int n, long seed) {
        PeerView v = TestNetwork.view(victim);
        List<Posting> out = new ArrayList<>();
        for (IndexedDocument d : TestCorpus.documents(400, seed)) {
            for (Posting p : d.postings()) {
                long pos = TestNetwork.PLACEMENT.partitions().position(p.word(), p.url());
                boolean holds = TestNetwork.PLACEMENT.holders(pos, v.ring()).contains(victim.id());
                if (holds == victimHolds && out.size() < n) out.add(p);
            }
        }
        assertEquals(n, out.size(), "enough postings " + (victimHolds ? "inside" : "outside") + " the victim's range");
        return out;
    }

    static PeerId sender(String name) {
        return PeerId.random(new Random(name.hashCode() * 31L));
    }

    @Test
    void oversizedMessagesAreRejectedAndCounted() {
        long before = stats().rejectedMessages.get();
        PeerId from = sender("oversized");
        ShardOwner.StoreReply tooMany = send(from, PostingPack.of(postings(true, 1001, 1)), List.of());
        assertEquals(ShardOwner.Outcome.REJECTED, tooMany.outcome(), tooMany.reason());
        byte[] big = new byte[300 << 10];
        ShardOwner.StoreReply tooBig = send(from, new PostingPack(10, big), List.of());
        assertEquals(ShardOwner.Outcome.REJECTED, tooBig.outcome(), tooBig.reason());
        ShardOwner.StoreReply lyingCount = send(from, new PostingPack(Integer.MAX_VALUE, new byte[10]), List.of());
        assertEquals(ShardOwner.Outcome.REJECTED, lyingCount.outcome());
        assertEquals(before + 3, stats().rejectedMessages.get());
        FIGURES.put("oversized", "3 tried, 3 rejected");
    }

    @Test
    void aMessageOverTheArteryFrameIsDroppedInTransitAndTheOwnerStillAnswers() {
        TestProbe<ShardOwner.StoreReply> probe = TestProbe.create(attacker.system());
        target.tell(new ShardOwner.StorePostings(2, sender("frame"), new PostingPack(1, new byte[2 << 20]), List.of(),
                probe.getRef()));
        probe.expectNoMessage(Duration.ofSeconds(2));
        assertOwnerAnswers();
        FIGURES.put("over-frame", "1 tried, dropped by Artery, owner answers");
    }

    @Test
    void malformedMessagesAreRejectedWithoutKillingTheOwner() {
        long before = stats().rejectedMessages.get();
        PeerId from = sender("malformed");
        Random r = new Random(3);
        int tried = 0;
        int rejected = 0;
        for (int i = 0; i < 3; i++) {
            byte[] garbage = new byte[50 + r.nextInt(500)];
            r.nextBytes(garbage);
            tried++;
            if (send(sender("garbage" + i), new PostingPack(1 + r.nextInt(20), garbage), List.of()).outcome()
                    == ShardOwner.Outcome.REJECTED) rejected++;
        }
        List<Posting> inRange = postings(true, 1, 4);
        Posting cached = inRange.get(0).asCached(from, System.currentTimeMillis() / 1000 + 3600);
        tried++;
        if (send(sender("cached"), PostingPack.of(List.of(cached)), List.of()).outcome() == ShardOwner.Outcome.REJECTED) rejected++;
        UrlMetadata js = new UrlMetadata(UrlHash.of("http://x.test/a"), "javascript:alert(1)", "t", "", "", List.of(),
                "en", "h", "text/html", 1, 0, 0, 0, 0, 1, null, "", List.of());
        tried++;
        if (send(sender("js"), PostingPack.EMPTY, List.of(js)).outcome() == ShardOwner.Outcome.REJECTED) rejected++;
        // a list with a null record gets through CBOR decoding; it used to make the handler throw and stop the actor
        tried++;
        if (send(sender("null"), PostingPack.EMPTY, Arrays.asList((UrlMetadata) null)).outcome()
                == ShardOwner.Outcome.REJECTED) rejected++;
        tried++;
        if (send(null, PostingPack.of(inRange), List.of()).outcome() == ShardOwner.Outcome.REJECTED) rejected++;
        assertEquals(tried, rejected);
        assertEquals(before + tried, stats().rejectedMessages.get());
        assertOwnerAnswers();
        // a lookup with a null key: answered as an error or dropped, never fatal
        TestProbe<ShardOwner.CountReply> counts = TestProbe.create(attacker.system());
        target.tell(new ShardOwner.CountRequest(9, Arrays.asList((RangeKey) null), counts.getRef()));
        List<RangeKey> tooMany = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) tooMany.add(new RangeKey(WordHash.of("w" + i), 0));
        TestProbe<ShardOwner.CountReply> big = TestProbe.create(attacker.system());
        target.tell(new ShardOwner.CountRequest(10, tooMany, big.getRef()));
        ShardOwner.CountReply refused = big.receiveMessage(Duration.ofSeconds(10));
        assertTrue(refused.error().contains("too many keys"), refused.error());
        assertOwnerAnswers();
        FIGURES.put("malformed", tried + " tried, " + rejected + " rejected; null-key and 10,000-key lookups answered");
    }

    @Test
    void postingsOutsideTheReceiversRangeAreRefusedAndNotStored() {
        List<Posting> outside = postings(false, 50, 5);
        long before = stats().refusedMessages.get();
        ShardOwner.StoreReply r = send(sender("outside"), PostingPack.of(outside), List.of());
        assertEquals(ShardOwner.Outcome.REFUSED, r.outcome(), r.reason());
        // one posting inside among many outside: the whole batch is refused
        List<Posting> mixed = new ArrayList<>(outside.subList(0, 10));
        mixed.addAll(postings(true, 1, 6));
        assertEquals(ShardOwner.Outcome.REFUSED, send(sender("outside"), PostingPack.of(mixed), List.of()).outcome());
        for (Posting p : outside) assertTrue(victim.storage().rwi().get(p.word(), p.url()).isEmpty(), "stored " + p);
        assertEquals(before + 2, stats().refusedMessages.get());
        FIGURES.put("out-of-range", "2 batches (60 postings) tried, 2 refused, 0 stored");
    }

    @Test
    void aReplayedBatchIsStoredOnce() {
        List<Posting> batch = postings(true, 20, 7);
        PeerId from = sender("replay");
        assertEquals(ShardOwner.Outcome.STORED, send(from, PostingPack.of(batch), List.of()).outcome());
        long afterFirst = victim.storage().stats().postings();
        for (int i = 0; i < 4; i++) {
            ShardOwner.StoreReply r = send(from, PostingPack.of(batch), List.of());
            assertEquals(ShardOwner.Outcome.STORED, r.outcome(), r.reason());
        }
        for (Posting p : batch) assertTrue(victim.storage().rwi().get(p.word(), p.url()).isPresent());
        assertEquals(afterFirst, victim.storage().stats().postings(), "a replay adds nothing");
        FIGURES.put("replay", "1 batch of 20 sent 5 times, stored once (+20 postings)");
    }

    @Test
    void aFloodingSenderIsToldToPause() {
        PeerId from = sender("flood");
        TestProbe<ShardOwner.StoreReply> probe = TestProbe.create(attacker.system());
        PostingPack one = PostingPack.of(postings(true, 1, 8));
        int n = 400;
        for (int i = 0; i < n; i++) target.tell(new ShardOwner.StorePostings(i, from, one, List.of(), probe.getRef()));
        int stored = 0;
        int busy = 0;
        for (ShardOwner.StoreReply r : probe.receiveSeveralMessages(n, Duration.ofSeconds(30))) {
            if (r.outcome() == ShardOwner.Outcome.STORED) stored++;
            if (r.outcome() == ShardOwner.Outcome.BUSY) {
                busy++;
                assertTrue(r.retryAfterMillis() > 0);
            }
        }
        assertEquals(n, stored + busy);
        assertTrue(busy > 0, "the burst is 100 messages");
        FIGURES.put("store flood", n + " sent at once, " + stored + " stored, " + busy + " told BUSY");
        // lookups: a token bucket per sender address, and a bound on lookups running at once
        TestProbe<ShardOwner.CountReply> counts = TestProbe.create(attacker.system());
        List<RangeKey> keys = List.of(new RangeKey(WordHash.of("linux"), 0));
        int lookups = 1000;
        for (int i = 0; i < lookups; i++) target.tell(new ShardOwner.CountRequest(i, keys, counts.getRef()));
        int answered = 0;
        int refused = 0;
        for (ShardOwner.CountReply c : counts.receiveSeveralMessages(lookups, Duration.ofSeconds(30))) {
            if (c.error().isEmpty()) answered++;
            else if (c.error().startsWith("busy")) refused++;
        }
        assertEquals(lookups, answered + refused, "every lookup gets an answer");
        assertTrue(refused > 0);
        assertTrue(stats().busyLookups.get() >= refused);
        FIGURES.put("lookup flood", lookups + " sent at once, " + answered + " answered, " + refused + " told busy");
    }

    @Test
    void aSenderOfRepeatedGarbageIsBlockedAndABlockedAddressIsIgnored() {
        PeerId from = sender("repeat");
        for (int i = 0; i < 5; i++) {
            assertEquals(ShardOwner.Outcome.REJECTED, send(from, new PostingPack(3, new byte[7]), List.of()).outcome());
        }
        long blockedBefore = stats().blockedMessages.get();
        TestProbe<ShardOwner.StoreReply> probe = TestProbe.create(attacker.system());
        target.tell(new ShardOwner.StorePostings(1, from, PostingPack.of(postings(true, 1, 9)), List.of(), probe.getRef()));
        probe.expectNoMessage(Duration.ofSeconds(1));
        assertEquals(blockedBefore + 1, stats().blockedMessages.get());
        assertTrue(stats().blockedSenders >= 1);
        assertTrue(stats().snapshot().toString().contains("blockedMessages"));
        // by hand: block the attacker's address; its lookups go unanswered until it is unblocked
        String address = Cluster.get(attacker.system()).selfMember().address().toString();
        victim.dht().shardOwner().tell(new ShardOwner.BlockSender(address));
        TestProbe<ShardOwner.CountReply> counts = TestProbe.create(attacker.system());
        List<RangeKey> keys = List.of(new RangeKey(WordHash.of("linux"), 0));
        TestNetwork.await(Duration.ofSeconds(5), "block applied", () -> {
            target.tell(new ShardOwner.CountRequest(1, keys, counts.getRef()));
            return stats().blockedMessages.get() > blockedBefore + 1;
        });
        victim.dht().shardOwner().tell(new ShardOwner.UnblockSender(address));
        assertOwnerAnswers();
        FIGURES.put("blocking", "5 garbage messages -> sender blocked, its next message dropped; address block/unblock");
    }

    /** A well-formed count request from the attacker's system is answered (the owner is alive and not blocked). */
    static void assertOwnerAnswers() {
        TestProbe<ShardOwner.CountReply> probe = TestProbe.create(attacker.system());
        TestNetwork.await(Duration.ofSeconds(15), "an answer from the owner", () -> {
            target.tell(new ShardOwner.CountRequest(77, List.of(new RangeKey(WordHash.of("linux"), 0)), probe.getRef()));
            try {
                ShardOwner.CountReply r = probe.receiveMessage(Duration.ofSeconds(2));
                return r.error().isEmpty();
            } catch (AssertionError e) {
                return false;
            }
        });
    }
}
