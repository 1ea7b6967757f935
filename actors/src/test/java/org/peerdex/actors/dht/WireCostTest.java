package org.peerdex.actors.dht;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.shard.PostingPack;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.WordHash;

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
}
