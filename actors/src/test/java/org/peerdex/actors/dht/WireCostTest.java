package org.peerdex.actors.dht;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.shard.PostingPack;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.rwi.Posting;

class WireCostTest {
    static final ActorTestKit KIT = ActorTestKit.create("vp", ConfigFactory.parseString("pekko.actor.provider = local"));

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    @Test
    void aRefOfAHostlessSystemCountsAsARealPeersWidestAddress() {
        TestProbe<ShardOwner.CountReply> probe = KIT.createTestProbe();
        ShardOwner.CountRequest request = new ShardOwner.CountRequest(42L,
                List.of(new RangeKey(WordHash.of("peer"), 3)), probe.getRef());
        byte[] raw = SerializationExtension.get(Adapter.toClassic(KIT.system())).serialize(request).get();
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        String uid = text.substring(text.indexOf('#') + 1).replaceAll("[^-0-9].*", "");
        // the ref as a real peer's at the widest IPv4 address, its uid at 11 characters
        long expected = raw.length + (WireCost.WIDEST_ADDRESS.length() - "pekko://vp".length()) + (11 - uid.length());
        assertEquals(expected, new WireCost(KIT.system()).bytes(request));
    }

    /**
     * A lookup without a URL set (a top lookup, one by prefixes, a filtered one) writes no {@code urls} key, 6 bytes
     * less, and reads back as without one; an empty URL set (which asks for nothing) is still written and read as
     * empty, as every peer before this change reads both.
     */
    @Test
    void aLookupWithoutAUrlSetWritesNoUrlsKeyAndAnEmptyOneStaysEmpty() {
        var serialization = SerializationExtension.get(Adapter.toClassic(KIT.system()));
        TestProbe<ShardOwner.LookupReply> probe = KIT.createTestProbe();
        RangeKey key = new RangeKey(WordHash.of("peer"), 3);
        ShardOwner.LookupRequest none = new ShardOwner.LookupRequest(42L,
                List.of(ShardOwner.Lookup.scores(key, null, 28)), probe.getRef());
        ShardOwner.LookupRequest empty = new ShardOwner.LookupRequest(42L,
                List.of(ShardOwner.Lookup.scores(key, List.of(), 28)), probe.getRef());
        byte[] rawNone = serialization.serialize(none).get();
        byte[] rawEmpty = serialization.serialize(empty).get();
        assertFalse(new String(rawNone, StandardCharsets.ISO_8859_1).contains("urls"));
        assertTrue(new String(rawEmpty, StandardCharsets.ISO_8859_1).contains("urls"));
        ShardOwner.Lookup backNone = ((ShardOwner.LookupRequest) serialization.deserialize(rawNone,
                ShardOwner.LookupRequest.class).get()).lookups().get(0);
        ShardOwner.Lookup backEmpty = ((ShardOwner.LookupRequest) serialization.deserialize(rawEmpty,
                ShardOwner.LookupRequest.class).get()).lookups().get(0);
        assertEquals(null, backNone.urls());
        assertEquals(List.of(), backEmpty.urls());
        assertEquals(28, backNone.limit());
        assertTrue(backNone.scores() && backEmpty.scores());
    }

    @Test
    void aPresenceAnswerIsWrittenAsItsKeyAndBitsAndReadsBackWithEmptyPostings() {
        var serialization = SerializationExtension.get(Adapter.toClassic(KIT.system()));
        RangeKey key = new RangeKey(WordHash.of("peer"), 3);
        ShardOwner.LookupReply presence = new ShardOwner.LookupReply(42L, null,
                List.of(new ShardOwner.KeyPostings(key, PostingPack.NONE, 0, false, new byte[] {3})), "");
        ShardOwner.LookupReply empty = new ShardOwner.LookupReply(42L, null,
                List.of(new ShardOwner.KeyPostings(key, PostingPack.EMPTY, 0, false)), "");
        byte[] raw = serialization.serialize(presence).get();
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        assertFalse(text.contains("postings") || text.contains("matched") || text.contains("truncated"), text);
        ShardOwner.LookupReply back = (ShardOwner.LookupReply) serialization.deserialize(raw,
                ShardOwner.LookupReply.class).get();
        ShardOwner.KeyPostings kp = back.results().get(0);
        assertEquals(key, kp.key());
        assertEquals(0, kp.postings().count(), "an absent pack reads as the empty one");
        assertArrayEquals(new byte[] {3}, kp.held());
        // any other empty answer still names its (empty) postings, as peers before this change expect
        assertTrue(new String(serialization.serialize(empty).get(), StandardCharsets.ISO_8859_1).contains("postings"));
        assertTrue(new WireCost(KIT.system()).bytes(presence) < new WireCost(KIT.system()).bytes(empty));
    }

    @Test
    void aKeyedPackTravelsBetweenClusterPeersAndReadsBackAsTheSamePostings() {
        var serialization = SerializationExtension.get(Adapter.toClassic(KIT.system()));
        RangeKey key = new RangeKey(WordHash.of("peer"), 3);
        PeerId crawler = new PeerId("AbCdEfGh_-12");
        List<Posting> ps = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ps.add(new Posting(key.word(), UrlHash.of("http://keyed.test/" + i), crawler, 0, 1 + i, new int[] {i, 9 + i},
                    200, 4, 20_000, "en", 'h', 3, 1, 25, 2, 0));
        }
        ShardOwner.LookupReply keyed = new ShardOwner.LookupReply(42L, null,
                List.of(new ShardOwner.KeyPostings(key, PostingPack.of(ps, true), 5, false)), "");
        ShardOwner.LookupReply plain = new ShardOwner.LookupReply(42L, null,
                List.of(new ShardOwner.KeyPostings(key, PostingPack.of(ps), 5, false)), "");
        byte[] raw = serialization.serialize(keyed).get();
        ShardOwner.KeyPostings back = ((ShardOwner.LookupReply) serialization.deserialize(raw,
                ShardOwner.LookupReply.class).get()).results().get(0);
        assertTrue(back.postings().keyed());
        assertEquals(ps, back.postingList());
        // the plain pack does not write the flag at all; the keyed one is 9 bytes a posting and 9 a repeated holder lighter
        assertFalse(new String(serialization.serialize(plain).get(), StandardCharsets.ISO_8859_1).contains("keyed"));
        assertEquals(new WireCost(KIT.system()).bytes(plain) - 9 * 5 - 9 * 4 + "keyed".length() + 2,
                new WireCost(KIT.system()).bytes(keyed));
    }
}
