package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.peerdex.actors.dht.DhtSettings.Exchange.SCORED_FILTERS;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
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
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.rwi.Posting;

/**
 * A holder's answer to a lookup keeps the best {@code limit} postings of a key by partial score, ties by URL hash as
 * the querying peer's ranking breaks them: of postings scoring alike, the smaller hashes stay, whichever came first
 * in the scan. (The heap used to drop the smallest hash among the tied worst when a better posting came later.)
 * Blocks whose highest partial score cannot enter the top are passed over without changing the answer.
 */
class HolderTopKTiesTest {
    static final Config CONFIG = ConfigFactory.parseString("pekko.actor.provider = local\n"
            + "peerdex.dht.use-receptionist = off").withFallback(ConfigFactory.load());
    static final ActorTestKit KIT = ActorTestKit.create(CONFIG);

    @TempDir
    Path dir;

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    static Posting posting(WordHash word, UrlHash url, int flags) {
        return new Posting(word, url, null, flags, 2, new int[] {3, 40}, 300, 5, 20_000, "en", 'h', 4, 2, 30, 2, 0);
    }

    @Test
    void amongEqualScoresTheHolderKeepsTheSmallestUrlHashes() {
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, TestNetwork.PLACEMENT.partitions())) {
            WordHash word = WordHash.of("ties");
            // URLs of one partition whose hashes give the same domain-length class: their postings score alike
            List<UrlHash> urls = new ArrayList<>();
            for (int i = 0; urls.size() < 7; i++) {
                UrlHash u = UrlHash.of("http://ties.test/page-" + i);
                if (storage.rwi().partitions().partitionOf(u) == 0 && (Base64Order.value(u.value().charAt(11)) & 3) == 0) {
                    urls.add(u);
                }
            }
            urls.sort(null);
            List<Posting> postings = new ArrayList<>();
            for (int i = 0; i < urls.size() - 1; i++) postings.add(posting(word, urls.get(i), 0));
            // the best posting has the largest hash: the scan meets it after every tied one
            UrlHash best = urls.get(urls.size() - 1);
            postings.add(posting(word, best, Posting.IN_TITLE));
            storage.rwi().add(postings, true);
            assertEquals(PartialScore.of(postings.get(0)), PartialScore.of(postings.get(1)));

            ActorRef<ShardOwner.Command> owner = KIT.spawn(ShardOwner.create(PeerId.random(new java.util.Random(1)),
                    storage, TestNetwork.PLACEMENT, DhtSettings.from(CONFIG), new DhtStats()));
            TestProbe<ShardOwner.LookupReply> probe = KIT.createTestProbe();
            owner.tell(new ShardOwner.LookupRequest(1, List.of(new ShardOwner.Lookup(new RangeKey(word, 0), null, null, 3)),
                    probe.getRef()));
            ShardOwner.LookupReply reply = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", reply.error());
            assertEquals(List.of(best, urls.get(0), urls.get(1)),
                    reply.results().get(0).postings().postings().stream().map(Posting::url).toList());
            assertEquals(7, reply.results().get(0).matched());
            KIT.stop(owner);
        }
    }

    /**
     * A holder answering a plain lookup passes over blocks whose highest partial score cannot enter its top: on a
     * key of 3,000 postings folded into blocks, with a few fresh ones and a cached copy among them, the answer is
     * exactly the best {@code limit} of scoring every posting (ties by URL hash), the match count is every posting
     * but the cached one, and a good share of the postings (900 of 3,000 here) were never decoded.
     */
    static Posting random(Random r, WordHash word, UrlHash url, int extraFlags) {
        int flags = extraFlags;
        for (int bit : new int[] {Posting.IN_TITLE, Posting.IN_URL, Posting.IN_HEADING, Posting.IN_ANCHOR}) {
            if (r.nextInt(12) == 0) flags |= bit;
        }
        int words = 50 + r.nextInt(3000);
        return new Posting(word, url, null, flags, 1 + r.nextInt(9), new int[] {r.nextInt(words)}, words,
                1 + r.nextInt(14), 15_000 + r.nextInt(5000), "en", 'h', r.nextInt(40), r.nextInt(40),
                20 + r.nextInt(80), r.nextInt(6), 0);
    }

    @Test
    void aPlainLookupSkipsBlocksThatCannotEnterItsTopAndAnswersExactly() {
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, TestNetwork.PLACEMENT.partitions())) {
            DhtStats stats = new DhtStats();
            ActorRef<ShardOwner.Command> owner = KIT.spawn(ShardOwner.create(PeerId.random(new Random(1)),
                    storage, TestNetwork.PLACEMENT, DhtSettings.from(CONFIG), stats));
            WordHash word = WordHash.of("common");
            Random r = new Random(42);
            List<Posting> all = new ArrayList<>();
            for (int i = 0; all.size() < 3000; i++) {
                UrlHash u = UrlHash.of("http://skip" + (i % 50) + ".test/page-" + i);
                if (storage.rwi().partitions().partitionOf(u) == 0) all.add(random(r, word, u, 0));
            }
            // the spawned holder has the index score its blocks: fold them
            TestProbe<ShardOwner.LookupReply> probe = KIT.createTestProbe();
            owner.tell(new ShardOwner.LookupRequest(0, List.of(), probe.getRef()));
            probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals(PartialScore.BLOCKS, storage.rwi().blockScore());
            storage.rwi().add(all, true);
            storage.rwi().foldAll();
            // both tiers: a few postings written again (fresh, replacing folded ones), one cached copy
            List<Posting> again = new ArrayList<>();
            for (int i = 0; i < all.size(); i += 500) {
                Posting p = random(r, word, all.get(i).url(), i == 1000 ? Posting.CACHED : 0);
                again.add(p);
                all.set(i, p);
            }
            storage.rwi().add(again, true);

            int limit = 10;
            owner.tell(new ShardOwner.LookupRequest(1, List.of(new ShardOwner.Lookup(new RangeKey(word, 0), null, null,
                    limit)), probe.getRef()));
            ShardOwner.LookupReply reply = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", reply.error());
            List<UrlHash> expected = all.stream().filter(p -> !p.has(Posting.CACHED))
                    .sorted(Comparator.comparingDouble(PartialScore::of).reversed().thenComparing(Posting::url))
                    .limit(limit).map(Posting::url).toList();
            assertEquals(expected, reply.results().get(0).postings().postings().stream().map(Posting::url).toList());
            assertEquals(all.size() - 1, reply.results().get(0).matched(), "every posting but the cached copy");
            assertTrue(stats.lookupPostingsSkipped.get() > all.size() / 5, "skipped " + stats.lookupPostingsSkipped.get());

            // a lookup with a URL set reads every posting
            long skipped = stats.lookupPostingsSkipped.get();
            List<UrlHash> some = expected.subList(0, 3);
            owner.tell(new ShardOwner.LookupRequest(2, List.of(new ShardOwner.Lookup(new RangeKey(word, 0), null, some,
                    limit)), probe.getRef()));
            ShardOwner.LookupReply sub = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals(some, sub.results().get(0).postings().postings().stream().map(Posting::url).toList());
            assertEquals(skipped, stats.lookupPostingsSkipped.get());

            // a score lookup: the same best, in the same order, as URLs and scores rounded up, no postings
            owner.tell(new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.scores(new RangeKey(word, 0), null,
                    limit), ShardOwner.Lookup.scores(new RangeKey(word, 0), some.subList(1, 3), 2)), probe.getRef(), true));
            ShardOwner.LookupReply scored = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", scored.error());
            ShardOwner.KeyPostings best = scored.results().get(0);
            assertTrue(best.postingList().isEmpty());
            assertEquals(all.size() - 1, best.matched());
            assertTrue(best.truncated());
            List<ScoreList.Entry> entries = ScoreList.read(best.scores());
            assertEquals(expected, entries.stream().map(ScoreList.Entry::url).toList());
            for (ScoreList.Entry e : entries) {
                Posting p = all.stream().filter(x -> x.url().equals(e.url())).findFirst().orElseThrow();
                double exact = PartialScore.of(p);
                assertTrue(e.score() >= exact && e.score() - exact < 1.0 / ScoreList.UNITS, e + " for " + exact);
            }
            assertEquals(some.subList(1, 3), ScoreList.read(scored.results().get(1).scores()).stream()
                    .map(ScoreList.Entry::url).toList());

            // the same asked with lists by prefix: the same best, each URL as its prefix's stand-in, the same scores;
            // a holder with url-prefixes off answers with whole hashes, as one before lists by prefix did
            owner.tell(new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.scores(new RangeKey(word, 0), null,
                    limit)), probe.getRef(), true, false, null, null, true));
            ShardOwner.KeyPostings byPrefix = probe.receiveMessage(Duration.ofSeconds(10)).results().get(0);
            assertTrue(byPrefix.scores() == null && byPrefix.truncated() && byPrefix.matched() == all.size() - 1);
            List<ScoreList.Entry> prefixEntries = ScoreList.readPrefixed(byPrefix.prefixScores());
            assertEquals(expected.stream().map(ScoreList::byPrefix).toList(),
                    prefixEntries.stream().map(ScoreList.Entry::url).toList());
            assertEquals(entries.stream().map(ScoreList.Entry::score).toList(),
                    prefixEntries.stream().map(ScoreList.Entry::score).toList());
            assertTrue(byPrefix.prefixScores().length < best.scores().length * 0.65);
            ActorRef<ShardOwner.Command> noPrefixes = KIT.spawn(ShardOwner.create(PeerId.random(new Random(3)), storage,
                    TestNetwork.PLACEMENT, DhtSettings.from(CONFIG).with(DhtSettings.Exchange.URL_PREFIXES, false),
                    new DhtStats()));
            noPrefixes.tell(new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.scores(new RangeKey(word, 0), null,
                    limit)), probe.getRef(), true, false, null, null, true));
            ShardOwner.KeyPostings wholeAnswer = probe.receiveMessage(Duration.ofSeconds(10)).results().get(0);
            assertTrue(wholeAnswer.prefixScores() == null);
            assertEquals(expected, ScoreList.read(wholeAnswer.scores()).stream().map(ScoreList.Entry::url).toList());

            // a deeper round: the same ranking, less the best the asker has; a skip beside a URL set is refused
            owner.tell(new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.deeper(new RangeKey(word, 0), limit, 2)),
                    probe.getRef(), true, false, null, null, true));
            ShardOwner.KeyPostings below = probe.receiveMessage(Duration.ofSeconds(10)).results().get(0);
            assertEquals(prefixEntries.subList(2, prefixEntries.size()), ScoreList.readPrefixed(below.prefixScores()));
            assertTrue(below.truncated() && below.matched() == all.size() - 1);
            owner.tell(new ShardOwner.LookupRequest(3, List.of(new ShardOwner.Lookup(new RangeKey(word, 0), null, some,
                    limit, null, false, true, null, 0, false, 2)), probe.getRef(), true));
            assertTrue(probe.receiveMessage(Duration.ofSeconds(10)).error().contains("skips"));

            // a completion of URLs known by prefix: a filter over their prefixes, tested with the postings' prefixes;
            // a holder with url-prefixes off tests whole hashes (none passes) and answers with whole hashes
            List<UrlHash> completing = new ArrayList<>();
            for (int i = 0; i < 40; i++) completing.add(all.get(37 + i * 71).url());
            org.peerdex.protocol.filter.BloomFilter overPrefixes = org.peerdex.protocol.filter.BloomFilter.of(
                    completing.stream().map(u -> org.peerdex.protocol.wire.UrlPrefixes.of(u.value())).toList(), 16);
            owner.tell(new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.prefixFilteredScores(
                    new RangeKey(word, 0), overPrefixes, 60)), probe.getRef(), true, false, null, null, true));
            ShardOwner.KeyPostings completed = probe.receiveMessage(Duration.ofSeconds(10)).results().get(0);
            List<UrlHash> found = ScoreList.readPrefixed(completed.prefixScores()).stream()
                    .map(ScoreList.Entry::url).toList();
            // every URL asked (none is a cached copy here), and a few false positives of 3,000 tested at 16 bits
            assertTrue(found.containsAll(completing.stream().map(ScoreList::byPrefix).toList()), found.toString());
            assertTrue(found.size() <= completing.size() + 10, "a few false positives at most: " + found.size());
            noPrefixes.tell(new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.prefixFilteredScores(
                    new RangeKey(word, 0), overPrefixes, 10)), probe.getRef(), true, false, null, null, true));
            ShardOwner.KeyPostings misread = probe.receiveMessage(Duration.ofSeconds(10)).results().get(0);
            assertTrue(misread.prefixScores() == null && misread.scores() != null);
            // a filter over prefixes is a score lookup's only
            owner.tell(new ShardOwner.LookupRequest(3, List.of(new ShardOwner.Lookup(new RangeKey(word, 0), overPrefixes,
                    null, 10, null, false, false, null, 0, true)), probe.getRef(), true));
            assertTrue(probe.receiveMessage(Duration.ofSeconds(10)).error().contains("prefixes"));

            // a score lookup naming its query's shape: the best by the word's part of a 2-word query's score (the
            // blocks' one-word bounds still bound it: no posting the part ranks in the top is skipped)
            int part = WordPart.of(2, 0.3);
            owner.tell(new ShardOwner.LookupRequest(4, List.of(ShardOwner.Lookup.scores(new RangeKey(word, 0), null,
                    limit).withPart(part)), probe.getRef(), true));
            ShardOwner.LookupReply parted = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", parted.error());
            List<Posting> byPart = all.stream().filter(p -> !p.has(Posting.CACHED))
                    .sorted(Comparator.<Posting>comparingDouble(p -> WordPart.score(p, part)).reversed()
                            .thenComparing(Posting::url))
                    .limit(limit).toList();
            List<ScoreList.Entry> partEntries = ScoreList.read(parted.results().get(0).scores());
            assertEquals(byPart.stream().map(Posting::url).toList(),
                    partEntries.stream().map(ScoreList.Entry::url).toList());
            for (int i = 0; i < limit; i++) {
                double exact = WordPart.score(byPart.get(i), part);
                assertTrue(partEntries.get(i).score() >= exact && partEntries.get(i).score() - exact < 1.0 / ScoreList.UNITS);
                assertTrue(exact < PartialScore.of(byPart.get(i)), "a part of two words is below the one-word score");
            }
            assertEquals(all.size() - 1, parted.results().get(0).matched());
            // a score lookup with a filter (a scored filter): the scores of the postings passing it; a holder with
            // scored-filters off refuses it, as one before them did
            org.peerdex.protocol.filter.BloomFilter filter = org.peerdex.protocol.filter.BloomFilter.of(
                    List.of(some.get(0).value(), some.get(2).value()), 16);
            owner.tell(new ShardOwner.LookupRequest(4, List.of(ShardOwner.Lookup.filteredScores(new RangeKey(word, 0),
                    filter, limit)), probe.getRef(), true));
            ShardOwner.LookupReply filtered = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", filtered.error());
            assertTrue(filtered.results().get(0).postingList().isEmpty());
            List<UrlHash> passed = ScoreList.read(filtered.results().get(0).scores()).stream()
                    .map(ScoreList.Entry::url).toList();
            assertTrue(passed.containsAll(List.of(some.get(0), some.get(2))), passed.toString());
            for (UrlHash u : passed) assertTrue(filter.mightContain(u.value()), u.toString());
            ActorRef<ShardOwner.Command> older = KIT.spawn(ShardOwner.create(PeerId.random(new Random(2)), storage,
                    TestNetwork.PLACEMENT, DhtSettings.from(CONFIG).with(SCORED_FILTERS, false), new DhtStats()));
            older.tell(new ShardOwner.LookupRequest(4, List.of(ShardOwner.Lookup.filteredScores(new RangeKey(word, 0),
                    filter, limit)), probe.getRef(), true));
            assertTrue(probe.receiveMessage(Duration.ofSeconds(10)).error().contains("score lookup"));

            // by URL prefixes: the postings (or scores) of exactly the URLs asked, marked as read by prefixes; a URL
            // the key lacks here is not answered
            UrlHash absent = UrlHash.of("http://elsewhere.test/none");
            List<UrlHash> asked = new ArrayList<>(List.of(all.get(2999).url(), all.get(7).url(), all.get(1500).url(),
                    absent));
            owner.tell(new ShardOwner.LookupRequest(5, List.of(ShardOwner.Lookup.byPrefixes(new RangeKey(word, 0), asked,
                    false), ShardOwner.Lookup.byPrefixes(new RangeKey(word, 0), asked, true)), probe.getRef(), true));
            ShardOwner.LookupReply prefixed = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", prefixed.error());
            java.util.Set<UrlHash> present = java.util.Set.copyOf(asked.subList(0, 3));
            assertTrue(prefixed.results().stream().allMatch(ShardOwner.KeyPostings::prefixed));
            assertEquals(present, java.util.Set.copyOf(prefixed.results().get(0).postingList().stream()
                    .map(Posting::url).toList()));
            assertEquals(present, java.util.Set.copyOf(ScoreList.read(prefixed.results().get(1).scores()).stream()
                    .map(ScoreList.Entry::url).toList()));
            assertEquals(3, prefixed.results().get(0).matched());
            // a plain lookup is not marked; prefixes beside a URL set, or torn, are refused
            assertTrue(!reply.results().get(0).prefixed());
            byte[] packed = ShardOwner.Lookup.byPrefixes(new RangeKey(word, 0), asked, false).prefixes();
            owner.tell(new ShardOwner.LookupRequest(6, List.of(new ShardOwner.Lookup(new RangeKey(word, 0), null, some,
                    limit, null, false, false, packed)), probe.getRef()));
            assertTrue(probe.receiveMessage(Duration.ofSeconds(10)).error().contains("URL prefixes"));
            owner.tell(new ShardOwner.LookupRequest(7, List.of(new ShardOwner.Lookup(new RangeKey(word, 0), null, null,
                    limit, null, false, false, java.util.Arrays.copyOf(packed, packed.length - 1))), probe.getRef()));
            assertTrue(probe.receiveMessage(Duration.ofSeconds(10)).error().contains("malformed URL prefixes"));
        }
    }

    /**
     * A count request with {@code tops} gets, beside the counts, the answer a score lookup of each long key's best
     * would give (URLs by prefix), and none for a key at or under {@link ShardOwner#TOPS_OVER} times the depth; a
     * holder with url-prefixes off answers the counts alone, and tops out of bounds are refused.
     */
    @Test
    void countsCarryTheFirstTopLookupOfLongKeys() {
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, TestNetwork.PLACEMENT.partitions())) {
            WordHash common = WordHash.of("common");
            WordHash rare = WordHash.of("rare");
            Random r = new Random(7);
            List<Posting> all = new ArrayList<>();
            int commonCount = 0;
            int rareCount = 0;
            for (int i = 0; commonCount < 200; i++) {
                UrlHash u = UrlHash.of("http://tops" + (i % 30) + ".test/page-" + i);
                if (storage.rwi().partitions().partitionOf(u) != 0) continue;
                all.add(random(r, common, u, 0));
                commonCount++;
                if (rareCount < 40) {
                    all.add(random(r, rare, u, 0));
                    rareCount++;
                }
            }
            storage.rwi().add(all, true);
            DhtSettings settings = DhtSettings.from(CONFIG);
            ActorRef<ShardOwner.Command> owner = KIT.spawn(ShardOwner.create(PeerId.random(new Random(4)),
                    storage, TestNetwork.PLACEMENT, settings, new DhtStats()));
            RangeKey longKey = new RangeKey(common, 0);
            RangeKey shortKey = new RangeKey(rare, 0);
            int depth = 5; // long: more than 8 x 5 = 40 postings; "rare" has exactly 40
            TestProbe<ShardOwner.CountReply> counts = KIT.createTestProbe();
            owner.tell(new ShardOwner.CountRequest(3, List.of(shortKey, longKey), counts.getRef(), depth));
            ShardOwner.CountReply reply = counts.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", reply.error());
            assertEquals(List.of(40, 200), reply.counts());
            assertEquals(1, reply.tops().size(), "only the long key's list: " + reply.tops());
            ShardOwner.KeyPostings given = reply.tops().get(0);
            assertEquals(longKey, given.key());

            // the same as the first round's own top lookup would answer
            TestProbe<ShardOwner.LookupReply> lookups = KIT.createTestProbe();
            owner.tell(new ShardOwner.LookupRequest(4, List.of(ShardOwner.Lookup.scores(longKey, null, depth)),
                    lookups.getRef(), true, false, null, null, true));
            ShardOwner.KeyPostings asked = lookups.receiveMessage(Duration.ofSeconds(10)).results().get(0);
            assertEquals(depth, given.scoreCount());
            assertTrue(java.util.Arrays.equals(asked.prefixScores(), given.prefixScores()), "the same list");
            assertEquals(asked.matched(), given.matched());
            assertTrue(given.truncated());

            // no tops asked: none sent; tops out of bounds: refused
            owner.tell(new ShardOwner.CountRequest(5, List.of(longKey), counts.getRef()));
            assertEquals(null, counts.receiveMessage(Duration.ofSeconds(10)).tops());
            owner.tell(new ShardOwner.CountRequest(6, List.of(longKey), counts.getRef(), -1));
            assertTrue(counts.receiveMessage(Duration.ofSeconds(10)).error().startsWith("tops must be"));
            KIT.stop(owner);

            // a holder that reads no prefixes answers as one before tops did
            ActorRef<ShardOwner.Command> older = KIT.spawn(ShardOwner.create(PeerId.random(new Random(5)),
                    storage, TestNetwork.PLACEMENT, settings.with(DhtSettings.Exchange.URL_PREFIXES, false),
                    new DhtStats()));
            older.tell(new ShardOwner.CountRequest(7, List.of(longKey), counts.getRef(), depth));
            ShardOwner.CountReply plain = counts.receiveMessage(Duration.ofSeconds(10));
            assertEquals(List.of(200), plain.counts());
            assertEquals(null, plain.tops());
            KIT.stop(older);
        }
    }
}
