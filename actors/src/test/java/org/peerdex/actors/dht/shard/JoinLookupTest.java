package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.rwi.Posting;

/**
 * A join lookup on a real LevelDB holder: of two long posting lists, only URLs having both words come back, the best
 * {@code limit} by the sum of their partial scores (over every partition of the request together), with each key's
 * full count for document frequencies, while the plain lookups of the same lists would ship them whole.
 */
class JoinLookupTest {
    static final Config CONFIG = ConfigFactory.parseString("pekko.actor.provider = local\n"
            + "peerdex.dht.use-receptionist = off").withFallback(ConfigFactory.load());
    static final ActorTestKit KIT = ActorTestKit.create(CONFIG);

    @TempDir
    Path dir;

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    /** A posting whose partial score grows with {@code hits} (and the title flag). */
    static Posting posting(WordHash word, UrlHash url, int hits, boolean title) {
        return new Posting(word, url, null, title ? Posting.IN_TITLE : 0, hits, new int[] {3, 40}, 300, 5, 20_000,
                "en", 'h', 4, 2, 30, 2, 0);
    }

    @Test
    void aJoinLookupReturnsOnlyTheBestUrlsHavingEveryWordAndTheKeysFullCounts() {
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, TestNetwork.PLACEMENT.partitions())) {
            WordHash a = WordHash.of("alpha");
            WordHash b = WordHash.of("beta");
            var partitions = storage.rwi().partitions();
            Map<Integer, List<UrlHash>> urls = new HashMap<>();
            for (int i = 0; urls.getOrDefault(0, List.of()).size() < 400 || urls.getOrDefault(1, List.of()).size() < 400; i++) {
                UrlHash u = UrlHash.of("http://join.test/page-" + i);
                int p = partitions.partitionOf(u);
                if (p <= 1 && urls.computeIfAbsent(p, x -> new ArrayList<>()).size() < 400) urls.get(p).add(u);
            }
            // per partition: alpha on 400 URLs, beta on the last 300 of them and on 100 URLs of its own
            List<Posting> postings = new ArrayList<>();
            Map<UrlHash, Double> both = new HashMap<>();
            for (int p = 0; p <= 1; p++) {
                List<UrlHash> us = urls.get(p);
                for (int i = 0; i < us.size(); i++) {
                    Posting pa = posting(a, us.get(i), 1 + i % 7, i % 11 == 0);
                    postings.add(pa);
                    if (i >= 100) {
                        Posting pb = posting(b, us.get(i), 1 + i % 5, i % 13 == 0);
                        postings.add(pb);
                        both.put(us.get(i), PartialScore.of(pa) + PartialScore.of(pb));
                    }
                }
                for (int i = 0; i < 100; i++) {
                    UrlHash only = UrlHash.of("http://beta-only.test/" + p + "/" + i);
                    if (partitions.partitionOf(only) == p) postings.add(posting(b, only, 9, true));
                }
            }
            storage.rwi().add(postings, true);
            int betaCount0 = (int) postings.stream().filter(x -> x.word().equals(b) && partitions.partitionOf(x.url()) == 0).count();

            ActorRef<ShardOwner.Command> owner = KIT.spawn(ShardOwner.create(PeerId.random(new java.util.Random(1)),
                    storage, TestNetwork.PLACEMENT, DhtSettings.from(CONFIG), new DhtStats()));
            TestProbe<ShardOwner.LookupReply> probe = KIT.createTestProbe();
            // one lookup per partition answers for both words
            owner.tell(new ShardOwner.LookupRequest(1, List.of(
                    new ShardOwner.Lookup(new RangeKey(a, 0), null, null, 10, List.of(a, b)),
                    new ShardOwner.Lookup(new RangeKey(a, 1), null, null, 10, List.of(a, b))), probe.getRef()));
            ShardOwner.LookupReply reply = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", reply.error());
            assertEquals(4, reply.results().size(), "one entry per (word, partition): " + reply.results());

            Map<RangeKey, ShardOwner.KeyPostings> byKey = new HashMap<>();
            for (ShardOwner.KeyPostings kp : reply.results()) byKey.put(kp.key(), kp);
            assertEquals(400, byKey.get(new RangeKey(a, 0)).matched(), "the key's whole count, for df");
            assertEquals(betaCount0, byKey.get(new RangeKey(b, 0)).matched());
            assertTrue(byKey.values().stream().allMatch(ShardOwner.KeyPostings::truncated));

            // the 10 best joined URLs over both partitions, each with both postings
            List<UrlHash> expected = both.entrySet().stream()
                    .sorted(Map.Entry.<UrlHash, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                    .limit(10).map(Map.Entry::getKey).sorted().toList();
            List<UrlHash> gotA = new ArrayList<>();
            List<UrlHash> gotB = new ArrayList<>();
            int sent = 0;
            for (var e : byKey.entrySet()) {
                List<Posting> ps = e.getValue().postings().postings();
                sent += ps.size();
                for (Posting p : ps) {
                    assertEquals(e.getKey().word(), p.word());
                    assertEquals(e.getKey().partition(), partitions.partitionOf(p.url()));
                    (p.word().equals(a) ? gotA : gotB).add(p.url());
                }
            }
            gotA.sort(Comparator.naturalOrder());
            gotB.sort(Comparator.naturalOrder());
            assertEquals(expected, gotA);
            assertEquals(expected, gotB);
            assertEquals(20, sent, "10 URLs, 2 postings each, out of " + postings.size());
            assertFalse(gotB.stream().anyMatch(u -> !both.containsKey(u)), "no URL without both words");

            // an asker that reads keyed packs gets the same postings, each pack without its key's word and with the
            // holder written once (every posting here is this holder's own)
            owner.tell(new ShardOwner.LookupRequest(2, List.of(
                    new ShardOwner.Lookup(new RangeKey(a, 0), null, null, 10, List.of(a, b)),
                    new ShardOwner.Lookup(new RangeKey(a, 1), null, null, 10, List.of(a, b))), probe.getRef(), true));
            ShardOwner.LookupReply keyed = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals(4, keyed.results().size());
            for (ShardOwner.KeyPostings kp : keyed.results()) {
                ShardOwner.KeyPostings plain = byKey.get(kp.key());
                int n = plain.postings().count();
                assertEquals(n > 0, kp.postings().keyed());
                assertEquals(plain.matched(), kp.matched());
                assertEquals(plain.postings().postings(), kp.postingList());
                if (n > 0) assertEquals(plain.postings().byteSize() - 9 * n - 9 * (n - 1), kp.postings().byteSize());
                assertThrows(IllegalArgumentException.class, () -> kp.postings().postings(), "a keyed pack needs its key");
            }

            // an asker that reads join tables gets the same answers in one table, and no key postings for them; a
            // plain lookup beside the joins still comes as key postings
            RangeKey plainKey = new RangeKey(b, 2);
            owner.tell(new ShardOwner.LookupRequest(3, List.of(
                    new ShardOwner.Lookup(new RangeKey(a, 0), null, null, 10, List.of(a, b)),
                    new ShardOwner.Lookup(plainKey, null, null, 10),
                    new ShardOwner.Lookup(new RangeKey(a, 1), null, null, 10, List.of(a, b))), probe.getRef(), true, true));
            ShardOwner.LookupReply tabled = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals(List.of(plainKey), tabled.results().stream().map(ShardOwner.KeyPostings::key).toList());
            assertTrue(tabled.joinTable() != null && tabled.joinTable().length > 0);
            List<ShardOwner.KeyPostings> answers = tabled.answers(5);
            assertEquals(5, answers.size());
            for (ShardOwner.KeyPostings kp : answers.subList(1, 5)) {
                ShardOwner.KeyPostings plain = byKey.get(kp.key());
                assertEquals(plain.matched(), kp.matched());
                assertEquals(plain.truncated(), kp.truncated());
                assertEquals(plain.postings().postings(), kp.postingList());
            }
            assertThrows(IllegalArgumentException.class, () -> tabled.answers(3), "more answers than keys asked");
            // the same four answers as a message: each URL once a partition, no key, counts or field names a key
            long asTable = new WireCost(KIT.system()).bytes(
                    new ShardOwner.LookupReply(2, keyed.by(), List.of(), "", tabled.joinTable()));
            long asKeys = new WireCost(KIT.system()).bytes(keyed);
            assertTrue(asTable < asKeys - 9 * 10 - 4 * 40, asTable + " bytes against " + asKeys);

            // the same join lookups as one Joins, the words named once: the same table, in a lighter request
            ShardOwner.LookupRequest spelled = new ShardOwner.LookupRequest(4, List.of(
                    new ShardOwner.Lookup(new RangeKey(a, 0), null, null, 10, List.of(a, b)),
                    new ShardOwner.Lookup(new RangeKey(a, 1), null, null, 10, List.of(a, b))), probe.getRef(), true, true);
            ShardOwner.LookupRequest joins = ShardOwner.LookupRequest.joins(5,
                    new ShardOwner.Joins(List.of(a, b), List.of(0, 1), 10), probe.getRef());
            owner.tell(spelled);
            ShardOwner.LookupReply bySpelled = probe.receiveMessage(Duration.ofSeconds(10));
            owner.tell(joins);
            ShardOwner.LookupReply byJoins = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", byJoins.error());
            assertTrue(java.util.Arrays.equals(bySpelled.joinTable(), byJoins.joinTable()), "the same table");
            assertEquals(4, byJoins.answers(4).size());
            long spelledBytes = new WireCost(KIT.system()).bytes(spelled);
            long joinsBytes = new WireCost(KIT.system()).bytes(joins);
            assertTrue(joinsBytes < spelledBytes - 40, joinsBytes + " bytes against " + spelledBytes);
            // the message reads back as the same joins (what crosses between cluster peers)
            var serialization = org.apache.pekko.serialization.SerializationExtension.get(
                    org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(KIT.system()));
            ShardOwner.LookupRequest back = (ShardOwner.LookupRequest) serialization.deserialize(
                    serialization.serialize(joins).get(), ShardOwner.LookupRequest.class).get();
            assertEquals(spelled.lookups(), back.allLookups());
            // malformed joins get an error, nothing else
            owner.tell(ShardOwner.LookupRequest.joins(6, new ShardOwner.Joins(List.of(a, b), List.of(0, 0), 10),
                    probe.getRef()));
            ShardOwner.LookupReply bad = probe.receiveMessage(Duration.ofSeconds(10));
            assertTrue(bad.error().startsWith("malformed joins"), bad.error());
            assertTrue(bad.results().isEmpty() && bad.joinTable() == null);
            KIT.stop(owner);
        }
    }

    @Test
    void anAskerThatReadsRowsGetsTheSameRecordsInFewerBytes() {
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, TestNetwork.PLACEMENT.partitions())) {
            List<UrlHash> urls = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String url = "https://rows.test/docs/page-" + i + ".html";
                UrlHash u = UrlHash.of(url);
                urls.add(u);
                storage.metadata().put(new org.peerdex.storage.meta.UrlMetadata(u, url, "Page " + i,
                        "a description of page " + i, "", List.of("rows", "test"), "en", "h", "text/html", 4_000 + i,
                        1_700_000_000_000L, 1_700_000_100_000L, 12, 3, 420, null, "c0ffee" + i,
                        List.of("Synopsis", "Description", "Parameters")));
            }
            ActorRef<ShardOwner.Command> owner = KIT.spawn(ShardOwner.create(PeerId.random(new java.util.Random(2)),
                    storage, TestNetwork.PLACEMENT, DhtSettings.from(CONFIG), new DhtStats()));
            TestProbe<ShardOwner.MetadataReply> probe = KIT.createTestProbe();
            owner.tell(new ShardOwner.FetchMetadata(1, urls, probe.getRef()));
            ShardOwner.MetadataReply records = probe.receiveMessage(Duration.ofSeconds(10));
            owner.tell(new ShardOwner.FetchMetadata(2, urls, probe.getRef(), true));
            ShardOwner.MetadataReply rows = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals(6, records.metadata().size());
            assertNull(records.rows());
            assertTrue(rows.metadata().isEmpty());
            assertEquals(6, rows.rows().size());
            assertEquals(records.records(), rows.records(), "the same records, the holder's id filled in alike");
            long asRecords = new WireCost(KIT.system()).bytes(new ShardOwner.MetadataReply(1, null, records.metadata(), ""));
            long asRows = new WireCost(KIT.system()).bytes(new ShardOwner.MetadataReply(1, null, List.of(), "", rows.rows()));
            assertTrue(asRows < asRecords - 6 * 100, asRows + " bytes against " + asRecords);
            // a row with a malformed URL hash is left out, the others read
            List<MetadataRow> bad = new ArrayList<>(rows.rows());
            MetadataRow r0 = bad.get(0);
            bad.set(0, new MetadataRow("tooShort", r0.url(), r0.title(), r0.description(), r0.author(), r0.keywords(),
                    r0.language(), r0.doctype(), r0.mimeType(), r0.size(), r0.lastModified(), r0.fetched(),
                    r0.linksLocal(), r0.linksOther(), r0.wordsInText(), r0.holder(), r0.contentHash(), r0.headings()));
            assertEquals(records.records().subList(1, 6), new ShardOwner.MetadataReply(3, null, List.of(), "", bad).records());
            KIT.stop(owner);
        }
    }

    @Test
    void aJoinLookupMustNameItsKeysWordAndNoFilter() {
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, TestNetwork.PLACEMENT.partitions())) {
            ActorRef<ShardOwner.Command> owner = KIT.spawn(ShardOwner.create(PeerId.random(new java.util.Random(2)),
                    storage, TestNetwork.PLACEMENT, DhtSettings.from(CONFIG), new DhtStats()));
            TestProbe<ShardOwner.LookupReply> probe = KIT.createTestProbe();
            WordHash a = WordHash.of("alpha");
            owner.tell(new ShardOwner.LookupRequest(1, List.of(new ShardOwner.Lookup(new RangeKey(a, 0), null, null, 10,
                    List.of(WordHash.of("beta")))), probe.getRef()));
            assertFalse(probe.receiveMessage(Duration.ofSeconds(10)).error().isEmpty());
            KIT.stop(owner);
        }
    }

    @Test
    void aPresenceLookupMarksWhichUrlsHaveAPostingWithoutSendingThem() {
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, TestNetwork.PLACEMENT.partitions())) {
            WordHash a = WordHash.of("alpha");
            var partitions = storage.rwi().partitions();
            List<UrlHash> asked = new ArrayList<>();
            List<Posting> postings = new ArrayList<>();
            List<UrlHash> here = new ArrayList<>();
            for (int i = 0; asked.size() < 19; i++) {
                UrlHash u = UrlHash.of("http://presence.test/page-" + i);
                if (partitions.partitionOf(u) != 2) continue;
                asked.add(u);
                if (asked.size() % 3 != 0) {
                    postings.add(posting(a, u, 2, false));
                    here.add(u);
                }
            }
            postings.add(posting(a, UrlHash.of("http://presence.test/not-asked"), 9, true));
            storage.rwi().add(postings, true);
            ActorRef<ShardOwner.Command> owner = KIT.spawn(ShardOwner.create(PeerId.random(new java.util.Random(3)),
                    storage, TestNetwork.PLACEMENT, DhtSettings.from(CONFIG), new DhtStats()));
            TestProbe<ShardOwner.LookupReply> probe = KIT.createTestProbe();
            owner.tell(new ShardOwner.LookupRequest(1, List.of(ShardOwner.Lookup.presence(new RangeKey(a, 2), asked)),
                    probe.getRef()));
            ShardOwner.LookupReply reply = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", reply.error());
            ShardOwner.KeyPostings kp = reply.results().get(0);
            assertEquals(0, kp.postings().count(), "no postings travel");
            assertEquals(3, kp.held().length, "a bit for each of the 19 URLs asked");
            assertEquals(new java.util.HashSet<>(here), ShardOwner.KeyPostings.held(kp.held(), asked));
            assertTrue(ShardOwner.KeyPostings.held(new byte[2], asked).isEmpty(), "a bitmap of the wrong size says nothing");
            // a presence lookup has a URL set and nothing else
            owner.tell(new ShardOwner.LookupRequest(2, List.of(new ShardOwner.Lookup(new RangeKey(a, 2), null, null, 5,
                    null, true)), probe.getRef()));
            assertFalse(probe.receiveMessage(Duration.ofSeconds(10)).error().isEmpty());
            KIT.stop(owner);
        }
    }
}
