package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.DhtStats;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.TestNetwork;
import org.peerdex.actors.dht.WireCost;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.wire.PresenceTable;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.rwi.Posting;

/**
 * A confirmation's questions as one presence table, answered by a real holder on LevelDB: the same answers as the
 * presence lookups of the same questions, in a fraction of the bytes; a malformed table is refused with an error.
 */
class PresenceTableLookupTest {
    static final Config CONFIG = ConfigFactory.parseString("pekko.actor.provider = local\n"
            + "peerdex.dht.use-receptionist = off").withFallback(ConfigFactory.load());
    static final ActorTestKit KIT = ActorTestKit.create(CONFIG);

    @TempDir
    Path dir;

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    @Test
    void aHolderAnswersATableAsItsPresenceLookupsInAFractionOfTheBytes() {
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, TestNetwork.PLACEMENT.partitions())) {
            WordHash a = WordHash.of("replication");
            WordHash b = WordHash.of("standby");
            var partitions = storage.rwi().partitions();
            // 12 URLs of one partition: alpha on the even ones and the first, beta on every third; 4 never stored
            List<UrlHash> urls = new ArrayList<>();
            for (int i = 0; urls.size() < 12; i++) {
                UrlHash u = UrlHash.of("https://presence.test/page-" + i);
                if (partitions.partitionOf(u) == 5) urls.add(u);
            }
            List<Posting> postings = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                if (i % 2 == 0 || i == 1) postings.add(JoinLookupTest.posting(a, urls.get(i), 2, false));
                if (i % 3 == 0) postings.add(JoinLookupTest.posting(b, urls.get(i), 3, true));
            }
            storage.rwi().add(postings, true);
            ActorRef<ShardOwner.Command> owner = KIT.spawn(ShardOwner.create(PeerId.random(new java.util.Random(3)),
                    storage, TestNetwork.PLACEMENT, DhtSettings.from(CONFIG), new DhtStats()));
            TestProbe<ShardOwner.LookupReply> probe = KIT.createTestProbe();

            RangeKey ka = new RangeKey(a, 5);
            RangeKey kb = new RangeKey(b, 5);
            List<UrlHash> askA = urls.subList(0, 10);
            List<UrlHash> askB = List.of(urls.get(9), urls.get(0), urls.get(3), urls.get(4), urls.get(6), urls.get(11));
            // as presence lookups, the way before tables
            owner.tell(new ShardOwner.LookupRequest(1, List.of(ShardOwner.Lookup.presence(ka, askA),
                    ShardOwner.Lookup.presence(kb, askB)), probe.getRef()));
            ShardOwner.LookupReply asLookups = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", asLookups.error());
            Set<UrlHash> lookA = ShardOwner.KeyPostings.held(asLookups.results().get(0).held(), askA);
            Set<UrlHash> lookB = ShardOwner.KeyPostings.held(asLookups.results().get(1).held(), askB);
            assertEquals(Set.of(urls.get(0), urls.get(1), urls.get(2), urls.get(4), urls.get(6)), lookA);
            assertEquals(Set.of(urls.get(0), urls.get(3), urls.get(6)), lookB);

            // as one table
            PresenceTable table = PresenceTable.of(List.of(ask(ka, askA), ask(kb, askB)));
            ShardOwner.LookupRequest tabled = ShardOwner.LookupRequest.presence(2, table, probe.getRef());
            owner.tell(tabled);
            ShardOwner.LookupReply asTable = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", asTable.error());
            assertTrue(asTable.results().isEmpty(), "the answers are in the held table only");
            assertNull(asTable.joinTable());
            List<Set<String>> held = table.held(asTable.heldTable());
            assertEquals(values(lookA), held.get(0));
            assertEquals(values(lookB), held.get(1));

            // both ways' bytes, request and reply, as a peer's messages cost them
            WireCost cost = new WireCost(KIT.system());
            long before = cost.bytes(new ShardOwner.LookupRequest(1, List.of(ShardOwner.Lookup.presence(ka, askA),
                    ShardOwner.Lookup.presence(kb, askB)), probe.getRef())) + cost.bytes(asLookups);
            long after = cost.bytes(tabled) + cost.bytes(asTable);
            assertTrue(after * 10 < before * 6, after + " bytes against " + before);

            // a malformed table, or one of more keys than a request may have, gets an error and no answer
            byte[] cut = java.util.Arrays.copyOf(table.write(), 20);
            owner.tell(new ShardOwner.LookupRequest(3, List.of(), probe.getRef(), false, false, cut));
            ShardOwner.LookupReply bad = probe.receiveMessage(Duration.ofSeconds(10));
            assertTrue(bad.error().startsWith("malformed presence table"), bad.error());
            assertNull(bad.heldTable());
            int max = DhtSettings.from(CONFIG).maxKeysPerRequest();
            List<PresenceTable.Ask> many = new ArrayList<>();
            for (int p = 0; p <= max; p++) many.add(new PresenceTable.Ask(a.value(), p, List.of(urls.get(0).value())));
            owner.tell(ShardOwner.LookupRequest.presence(4, PresenceTable.of(many), probe.getRef()));
            assertTrue(probe.receiveMessage(Duration.ofSeconds(10)).error().contains("more than " + max + " keys"));
            KIT.stop(owner);
        }
    }

    private static PresenceTable.Ask ask(RangeKey k, List<UrlHash> urls) {
        return new PresenceTable.Ask(k.word().value(), k.partition(), urls.stream().map(UrlHash::value).toList());
    }

    private static Set<String> values(Set<UrlHash> urls) {
        Set<String> out = new HashSet<>();
        for (UrlHash u : urls) out.add(u.value());
        return out;
    }
}
