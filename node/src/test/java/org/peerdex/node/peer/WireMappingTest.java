package org.peerdex.node.peer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.shard.PostingPack;
import org.peerdex.actors.dht.shard.RangeDigest;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.actors.search.HtmlText;
import org.peerdex.protocol.filter.BloomFilter;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.wire.V1;
import org.peerdex.protocol.wire.WireCodec;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.text.Tokenizer;

/**
 * The transport's conversions between the DHT actors' messages and the wire types, on the postings and metadata
 * of a real page (the PostgreSQL manual's VACUUM page): what the sender's actors hand over arrives at the
 * receiver's actors unchanged, and nothing of the actors' records (reply-to, sender fields) is on the wire.
 */
class WireMappingTest {
    private static final Path PAGE = Path.of("/usr/share/doc/postgresql-doc-15/html/sql-vacuum.html");
    private static final String URL = "https://www.postgresql.org/docs/15/sql-vacuum.html";
    private final WireCodec codec = new WireCodec();

    private static IndexedDocument realPage() throws Exception {
        HtmlText.Page page = HtmlText.parse(Files.readString(PAGE, StandardCharsets.UTF_8), URL);
        var text = page.text();
        UrlMetadata meta = new UrlMetadata(UrlHash.of(URL), URL, text.title(), text.description(), text.author(),
                text.keywords(), page.language(), "h", "text/html", text.body().length(), 1_690_000_000_000L,
                1_700_000_000_000L, page.links().size(), 1, Tokenizer.plainWords(text.body()).size(),
                "AbCdEfGh_-12", Integer.toHexString(text.body().hashCode()), text.headings());
        return PostingFactory.build(meta, text);
    }

    @Test
    void aStoreOfARealPageArrivesAtTheReceiversActorsUnchanged() throws Exception {
        IndexedDocument doc = realPage();
        assertTrue(doc.postings().size() > 100, "a real page has many words: " + doc.postings().size());
        PeerId holder = new PeerId("AbCdEfGh_-12");
        List<Posting> sent = doc.postings().stream().map(p -> p.withHolder(holder)).toList();
        ShardOwner.StorePostings store = new ShardOwner.StorePostings(77, new PeerId("Zzzzzzzzzzzz"),
                PostingPack.of(sent), List.of(doc.metadata()), null);

        byte[] bytes = codec.write(WireMapping.store(store));
        JsonNode tree = new CBORMapper().readTree(bytes);
        assertFalse(tree.has("from") || tree.has("replyTo"), "the sender is the signer, answers go back on the connection");

        PeerId signer = new PeerId("SignerSigner");
        ShardOwner.StorePostings received = WireMapping.store(codec.read(bytes, V1.StoreRequest.class), signer, null);
        assertEquals(signer, received.from());
        assertEquals(77, received.batchId());
        assertEquals(sent, received.postings().postings());
        assertEquals(List.of(doc.metadata()), received.metadata());
    }

    @Test
    void lookupsKeepTheirFilterAndTheDifferenceBetweenNoUrlSetAndAnEmptyOne() {
        UrlHash a = UrlHash.of(URL);
        BloomFilter filter = BloomFilter.of(List.of(a.value()), 10);
        RangeKey key = new RangeKey(org.peerdex.protocol.hash.WordHash.of("vacuum"), 5);
        ShardOwner.LookupRequest l = new ShardOwner.LookupRequest(3, List.of(
                new ShardOwner.Lookup(key, filter, null, 50), new ShardOwner.Lookup(key, null, List.of(), 1),
                new ShardOwner.Lookup(key, null, List.of(a), 1)), null);
        ShardOwner.LookupRequest back = WireMapping.lookup(codec.read(codec.write(WireMapping.lookup(l)),
                V1.LookupRequest.class), null);
        assertEquals(key, back.lookups().get(0).key());
        assertTrue(back.lookups().get(0).filter().mightContain(a.value()));
        assertEquals(filter.hashes(), back.lookups().get(0).filter().hashes());
        assertNull(back.lookups().get(0).urls());
        assertEquals(List.of(), back.lookups().get(1).urls());
        assertEquals(List.of(a), back.lookups().get(2).urls());
        assertEquals(50, back.lookups().get(0).limit());
        assertNull(back.lookups().get(0).join());
    }

    @Test
    void joinsAndPresenceTablesCrossTheWireAsTheyWereSent() {
        var vacuum = org.peerdex.protocol.hash.WordHash.of("vacuum");
        var analyze = org.peerdex.protocol.hash.WordHash.of("analyze");
        UrlHash a = UrlHash.of(URL);
        UrlHash b = UrlHash.of("https://www.postgresql.org/docs/other.html");
        org.peerdex.protocol.wire.PresenceTable table = org.peerdex.protocol.wire.PresenceTable.of(List.of(
                new org.peerdex.protocol.wire.PresenceTable.Ask(vacuum.value(), 5, List.of(a.value(), b.value())),
                new org.peerdex.protocol.wire.PresenceTable.Ask(analyze.value(), 5, List.of(b.value()))));
        ShardOwner.LookupRequest l = new ShardOwner.LookupRequest(3, List.of(), null, true, true, table.write(),
                new ShardOwner.Joins(List.of(vacuum, analyze), List.of(5, 9), 17));
        V1.LookupRequest wire = codec.read(codec.write(WireMapping.lookup(l)), V1.LookupRequest.class);
        assertEquals(List.of(5, 9), wire.joins().partitions());
        ShardOwner.LookupRequest back = WireMapping.lookup(wire, null);
        assertEquals(l.allLookups(), back.allLookups());
        assertArrayEquals(table.write(), back.presenceTable());
        // the answer's bits travel back as they were
        byte[] held = table.held(List.of(java.util.Set.of(b.value()), java.util.Set.of(b.value())));
        V1.LookupReply reply = codec.read(codec.write(WireMapping.reply(
                new ShardOwner.LookupReply(3, null, List.of(), "").withHeld(held))), V1.LookupReply.class);
        assertArrayEquals(held, reply.heldTable());
        assertEquals(List.of(java.util.Set.of(b.value()), java.util.Set.of(b.value())), table.held(reply.heldTable()));
    }

    @Test
    void aJoinLookupKeepsItsWords() {
        var vacuum = org.peerdex.protocol.hash.WordHash.of("vacuum");
        var analyze = org.peerdex.protocol.hash.WordHash.of("analyze");
        RangeKey key = new RangeKey(vacuum, 5);
        ShardOwner.LookupRequest l = new ShardOwner.LookupRequest(3, List.of(
                new ShardOwner.Lookup(key, null, null, 17, List.of(vacuum, analyze))), null);
        ShardOwner.LookupRequest back = WireMapping.lookup(codec.read(codec.write(WireMapping.lookup(l)),
                V1.LookupRequest.class), null);
        assertEquals(List.of(vacuum, analyze), back.lookups().get(0).join());
        assertEquals(17, back.lookups().get(0).limit());
        assertNull(back.lookups().get(0).urls());
        assertNull(back.lookups().get(0).filter());
    }

    @Test
    void aPresenceLookupAndItsBitsCrossTheWire() throws Exception {
        var vacuum = org.peerdex.protocol.hash.WordHash.of("vacuum");
        RangeKey key = new RangeKey(vacuum, 5);
        List<UrlHash> urls = List.of(UrlHash.of("http://a.test/1"), UrlHash.of("http://a.test/2"), UrlHash.of("http://a.test/3"));
        ShardOwner.LookupRequest l = new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.presence(key, urls)), null);
        ShardOwner.LookupRequest back = WireMapping.lookup(codec.read(codec.write(WireMapping.lookup(l)),
                V1.LookupRequest.class), null);
        assertTrue(back.lookups().get(0).presence());
        assertEquals(urls, back.lookups().get(0).urls());
        // a plain lookup writes no presence key: its bytes are those of the revision before
        ShardOwner.LookupRequest plain = new ShardOwner.LookupRequest(3, List.of(new ShardOwner.Lookup(key, null, urls, 3)), null);
        assertFalse(new String(codec.write(WireMapping.lookup(plain)), java.nio.charset.StandardCharsets.ISO_8859_1).contains("presence"));
        ShardOwner.LookupReply lr = new ShardOwner.LookupReply(9, new PeerId("Responder123"), List.of(
                new ShardOwner.KeyPostings(key, PostingPack.of(List.of()), 2, false, new byte[] {5})), "");
        ShardOwner.KeyPostings kp = WireMapping.keyPostings(codec.read(codec.write(WireMapping.reply(lr)),
                V1.LookupReply.class).results().get(0));
        assertEquals(java.util.Set.of(urls.get(0), urls.get(2)), ShardOwner.KeyPostings.held(kp.held(), urls));
    }

    @Test
    void aScoreLookupAndItsScoresCrossTheWireAndAPlainLookupWritesNoScoreKey() throws Exception {
        var vacuum = org.peerdex.protocol.hash.WordHash.of("vacuum");
        RangeKey key = new RangeKey(vacuum, 5);
        List<UrlHash> urls = List.of(UrlHash.of("http://a.test/1"), UrlHash.of("http://a.test/2"));
        ShardOwner.LookupRequest l = new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.scores(key, null, 28),
                ShardOwner.Lookup.scores(key, urls, 2)), null, true);
        ShardOwner.LookupRequest back = WireMapping.lookup(codec.read(codec.write(WireMapping.lookup(l)),
                V1.LookupRequest.class), null);
        assertTrue(back.lookups().get(0).scores() && back.lookups().get(1).scores());
        assertEquals(28, back.lookups().get(0).limit());
        assertEquals(urls, back.lookups().get(1).urls());
        ShardOwner.LookupRequest plain = new ShardOwner.LookupRequest(3, List.of(new ShardOwner.Lookup(key, null, urls, 3)), null);
        assertFalse(new String(codec.write(WireMapping.lookup(plain)), java.nio.charset.StandardCharsets.ISO_8859_1).contains("scores"));
        List<Posting> ps = realPage().postings().subList(0, 3);
        byte[] scores = org.peerdex.actors.dht.shard.ScoreList.of(ps);
        ShardOwner.LookupReply lr = new ShardOwner.LookupReply(9, new PeerId("Responder123"), List.of(
                new ShardOwner.KeyPostings(key, PostingPack.NONE, 40, true, null, scores)), "");
        ShardOwner.KeyPostings kp = WireMapping.keyPostings(codec.read(codec.write(WireMapping.reply(lr)),
                V1.LookupReply.class).results().get(0));
        var read = org.peerdex.actors.dht.shard.ScoreList.read(kp.scores());
        assertEquals(3, read.size());
        for (int i = 0; i < 3; i++) {
            assertEquals(ps.get(i).url(), read.get(i).url());
            double exact = org.peerdex.actors.dht.shard.PartialScore.of(ps.get(i));
            assertTrue(read.get(i).score() >= exact && read.get(i).score() < exact + 1.0 / 1024 + 1e-9,
                    read.get(i).score() + " for " + exact);
        }
        assertTrue(kp.postingList().isEmpty() && kp.truncated() && kp.matched() == 40);
        // an answer with a torn entry is refused when read
        byte[] torn = java.util.Arrays.copyOf(scores, scores.length - 1);
        assertThrows(Exception.class, () -> codec.read(codec.write(new V1.LookupReply(9, List.of(new V1.KeyPostings(
                new V1.Key(vacuum.value(), 5), V1.Postings.NONE, 0, false, null, torn)), "", null, null)),
                V1.LookupReply.class));
    }

    @Test
    void scoresByPrefixCrossTheWireAndARequestWithoutThemWritesNoKey() throws Exception {
        var vacuum = org.peerdex.protocol.hash.WordHash.of("vacuum");
        RangeKey key = new RangeKey(vacuum, 5);
        ShardOwner.LookupRequest l = new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.scores(key, null, 28)),
                null, true, false, null, null, true);
        assertTrue(WireMapping.lookup(codec.read(codec.write(WireMapping.lookup(l)), V1.LookupRequest.class), null)
                .prefixScores());
        // a completion's filter over prefixes keeps its flag; other lookups write no such key
        var filter = org.peerdex.protocol.filter.BloomFilter.of(List.of("AbCdEf", "GhIjKl"), 12);
        ShardOwner.LookupRequest completion = new ShardOwner.LookupRequest(3, List.of(
                ShardOwner.Lookup.prefixFilteredScores(key, filter, 10)), null, true, false, null, null, true);
        ShardOwner.Lookup completionBack = WireMapping.lookup(codec.read(codec.write(WireMapping.lookup(completion)),
                V1.LookupRequest.class), null).lookups().get(0);
        assertTrue(completionBack.prefixFilter() && completionBack.scores() && completionBack.filter().mightContain("AbCdEf"));
        // a deeper round's skip crosses too
        ShardOwner.LookupRequest deeper = new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.deeper(key, 112, 28)),
                null, true, false, null, null, true);
        ShardOwner.Lookup deeperBack = WireMapping.lookup(codec.read(codec.write(WireMapping.lookup(deeper)),
                V1.LookupRequest.class), null).lookups().get(0);
        assertEquals(28, deeperBack.skip());
        assertEquals(112, deeperBack.limit());
        ShardOwner.LookupRequest plain = new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.scores(key, null, 28)),
                null, true);
        String plainBytes = new String(codec.write(WireMapping.lookup(plain)), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertFalse(plainBytes.contains("prefixScores") || plainBytes.contains("prefixFilter")
                || plainBytes.contains("skip"), plainBytes);
        List<Posting> ps = realPage().postings().subList(0, 3).stream()
                .sorted(java.util.Comparator.comparingDouble(org.peerdex.actors.dht.shard.PartialScore::of).reversed())
                .toList();
        byte[] byPrefix = org.peerdex.actors.dht.shard.ScoreList.ofPrefixes(ps, 0);
        byte[] whole = org.peerdex.actors.dht.shard.ScoreList.of(ps);
        ShardOwner.LookupReply lr = new ShardOwner.LookupReply(9, new PeerId("Responder123"), List.of(
                new ShardOwner.KeyPostings(key, PostingPack.NONE, 40, true, null, null, false, byPrefix)), "");
        ShardOwner.KeyPostings kp = WireMapping.keyPostings(codec.read(codec.write(WireMapping.reply(lr)),
                V1.LookupReply.class).results().get(0));
        assertTrue(kp.scores() == null && kp.truncated() && kp.matched() == 40 && kp.scoreCount() == 3);
        var read = org.peerdex.actors.dht.shard.ScoreList.readPrefixed(kp.prefixScores());
        var exact = org.peerdex.actors.dht.shard.ScoreList.read(whole);
        for (int i = 0; i < 3; i++) {
            // the URL's stand-in (its prefix), and the very score a whole list carries
            assertEquals(org.peerdex.actors.dht.shard.ScoreList.byPrefix(ps.get(i).url()), read.get(i).url());
            assertEquals(exact.get(i).score(), read.get(i).score());
        }
        // 5 bytes a prefix, a drop of a byte or two (the first, from the largest score, up to three)
        assertTrue(byPrefix.length <= 3 * 5 + 3 + 2 + 2, byPrefix.length + " bytes against " + whole.length);
        // a torn list is refused when read
        byte[] torn = java.util.Arrays.copyOf(byPrefix, byPrefix.length - 1);
        assertThrows(Exception.class, () -> codec.read(codec.write(new V1.LookupReply(9, List.of(new V1.KeyPostings(
                new V1.Key(vacuum.value(), 5), V1.Postings.NONE, 0, false, null, null, false, torn)), "", null, null)),
                V1.LookupReply.class));
    }

    @Test
    void countsWithTopsCrossTheWireAndCountsWithoutWriteNoTopsKey() throws Exception {
        var vacuum = org.peerdex.protocol.hash.WordHash.of("vacuum");
        RangeKey key = new RangeKey(vacuum, 5);
        ShardOwner.CountRequest asked = new ShardOwner.CountRequest(4, List.of(key), null, 28);
        ShardOwner.CountRequest back = WireMapping.count(codec.read(codec.write(WireMapping.count(asked)),
                V1.CountRequest.class), null);
        assertEquals(28, back.tops());
        assertEquals(List.of(key), back.keys());
        String plain = new String(codec.write(WireMapping.count(new ShardOwner.CountRequest(4, List.of(key), null))),
                java.nio.charset.StandardCharsets.ISO_8859_1);
        assertFalse(plain.contains("tops"), plain);
        String counts = new String(codec.write(WireMapping.reply(new ShardOwner.CountReply(4, new PeerId("Responder123"),
                List.of(300), ""))), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertFalse(counts.contains("tops"), counts);

        List<Posting> ps = realPage().postings().subList(0, 3).stream()
                .sorted(java.util.Comparator.comparingDouble(org.peerdex.actors.dht.shard.PartialScore::of).reversed())
                .toList();
        byte[] byPrefix = org.peerdex.actors.dht.shard.ScoreList.ofPrefixes(ps, 0);
        ShardOwner.CountReply reply = new ShardOwner.CountReply(4, new PeerId("Responder123"), List.of(300), "",
                List.of(new ShardOwner.KeyPostings(key, PostingPack.NONE, 300, true, null, null, false, byPrefix)));
        V1.CountReply wire = codec.read(codec.write(WireMapping.reply(reply)), V1.CountReply.class);
        assertEquals(List.of(300), wire.counts());
        ShardOwner.KeyPostings kp = WireMapping.keyPostings(wire.tops().get(0));
        assertEquals(key, kp.key());
        assertTrue(kp.truncated() && kp.matched() == 300 && kp.scoreCount() == 3);
        assertTrue(java.util.Arrays.equals(byPrefix, kp.prefixScores()));
    }

    @Test
    void aScoreLookupKeepsItsQuerysShapeAndOneWithoutWritesNoPartKey() throws Exception {
        var vacuum = org.peerdex.protocol.hash.WordHash.of("vacuum");
        RangeKey key = new RangeKey(vacuum, 5);
        int part = org.peerdex.actors.dht.shard.WordPart.of(3, 0.25);
        ShardOwner.LookupRequest l = new ShardOwner.LookupRequest(3, List.of(
                ShardOwner.Lookup.scores(key, null, 28).withPart(part)), null, true);
        ShardOwner.Lookup back = WireMapping.lookup(codec.read(codec.write(WireMapping.lookup(l)),
                V1.LookupRequest.class), null).lookups().get(0);
        assertEquals(part, back.part());
        assertEquals(3, org.peerdex.actors.dht.shard.WordPart.terms(back.part()));
        assertTrue(org.peerdex.actors.dht.shard.WordPart.share(back.part()) >= 0.25);
        ShardOwner.LookupRequest none = new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.scores(key, null, 28)),
                null, true);
        // without a shape the key is not written (the first revision's bytes: GoldenBytesTest); with one it costs
        // its name and an int
        int without = codec.write(WireMapping.lookup(none)).length;
        int with = codec.write(WireMapping.lookup(l)).length;
        assertTrue(with - without >= 5 && with - without <= 12, with + " against " + without + " bytes");
        // only a score lookup carries a shape: a lookup of postings ranks by the one-word score
        assertEquals(0, new ShardOwner.Lookup(key, null, null, 5).withPart(part).part());
    }

    @Test
    void aLookupByUrlPrefixesCrossesTheWireIn45BytesAUrlAndItsAnswerSaysItReadThem() throws Exception {
        var vacuum = org.peerdex.protocol.hash.WordHash.of("vacuum");
        RangeKey key = new RangeKey(vacuum, 5);
        List<UrlHash> urls = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) urls.add(UrlHash.of("http://prefix.test/" + i));
        ShardOwner.LookupRequest byUrls = new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.scores(key, urls,
                40)), null, true);
        ShardOwner.LookupRequest byPrefixes = new ShardOwner.LookupRequest(3, List.of(ShardOwner.Lookup.byPrefixes(key,
                urls, true)), null, true);
        byte[] wire = codec.write(WireMapping.lookup(byPrefixes));
        ShardOwner.Lookup back = WireMapping.lookup(codec.read(wire, V1.LookupRequest.class), null).lookups().get(0);
        assertTrue(back.scores() && back.urls() == null);
        java.util.Set<String> expected = new java.util.HashSet<>();
        for (UrlHash u : urls) expected.add(org.peerdex.protocol.wire.UrlPrefixes.of(u.value()));
        assertEquals(expected, org.peerdex.protocol.wire.UrlPrefixes.read(back.prefixes(), 40));
        int saved = codec.write(WireMapping.lookup(byUrls)).length - wire.length;
        assertTrue(saved >= 40 * 8, "40 URLs by prefixes save " + saved + " bytes");
        ShardOwner.LookupReply lr = new ShardOwner.LookupReply(9, new PeerId("Responder123"), List.of(
                new ShardOwner.KeyPostings(key, PostingPack.NONE, 0, false, null, null, true)), "");
        assertTrue(WireMapping.keyPostings(codec.read(codec.write(WireMapping.reply(lr)), V1.LookupReply.class)
                .results().get(0)).prefixed());
        assertFalse(new String(codec.write(WireMapping.lookup(byUrls)), java.nio.charset.StandardCharsets.ISO_8859_1)
                .contains("prefixes"));
    }

    @Test
    void aKeyedLookupAndItsKeyedAnswerCrossTheWireAsTheSamePostings() throws Exception {
        var vacuum = org.peerdex.protocol.hash.WordHash.of("vacuum");
        RangeKey key = new RangeKey(vacuum, 5);
        ShardOwner.LookupRequest l = new ShardOwner.LookupRequest(3, List.of(new ShardOwner.Lookup(key, null, null, 10)),
                null, true);
        assertTrue(WireMapping.lookup(codec.read(codec.write(WireMapping.lookup(l)), V1.LookupRequest.class), null).keyed());
        assertFalse(WireMapping.lookup(codec.read(codec.write(WireMapping.lookup(new ShardOwner.LookupRequest(3, l.lookups(),
                null))), V1.LookupRequest.class), null).keyed());
        PeerId crawler = new PeerId("Crawler-0001");
        List<org.peerdex.storage.rwi.Posting> ps = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ps.add(new org.peerdex.storage.rwi.Posting(vacuum, UrlHash.of("http://a.test/" + i), i == 3 ? null : crawler,
                    0, 2 + i, new int[] {i, 30}, 400, 6, 20_100, "en", 'h', 5, 1, 22, 2, 0));
        }
        ShardOwner.LookupReply lr = new ShardOwner.LookupReply(9, new PeerId("Responder123"), List.of(
                new ShardOwner.KeyPostings(key, PostingPack.of(ps, true), 4, false)), "");
        V1.LookupReply wire = codec.read(codec.write(WireMapping.reply(lr)), V1.LookupReply.class);
        assertTrue(wire.results().get(0).postings().keyed());
        ShardOwner.KeyPostings kp = WireMapping.keyPostings(wire.results().get(0));
        assertTrue(kp.postings().keyed());
        assertEquals(ps, kp.postingList());
        // the plain answer to the same lookup, in the protocol's layout, is a word a posting and two holders heavier
        V1.LookupReply plain = WireMapping.reply(new ShardOwner.LookupReply(9, null, List.of(
                new ShardOwner.KeyPostings(key, PostingPack.of(ps), 4, false)), ""));
        assertEquals(plain.results().get(0).postings().bytes().length - 4 * 9 - 2 * 9,
                wire.results().get(0).postings().bytes().length);
    }

    @Test
    void aJoinTableCrossesTheWireAsTheSameAnswersOfTheProtocolsOwnPacks() throws Exception {
        var vacuum = org.peerdex.protocol.hash.WordHash.of("vacuum");
        var analyze = org.peerdex.protocol.hash.WordHash.of("analyze");
        ShardOwner.LookupRequest l = new ShardOwner.LookupRequest(3, List.of(new ShardOwner.Lookup(
                new RangeKey(vacuum, 5), null, null, 10, List.of(vacuum, analyze))), null, true, true);
        V1.LookupRequest asked = codec.read(codec.write(WireMapping.lookup(l)), V1.LookupRequest.class);
        assertTrue(asked.joinTable() && WireMapping.lookup(asked, null).joinTable());
        PeerId crawler = new PeerId("Crawler-0001");
        List<ShardOwner.KeyPostings> answers = new java.util.ArrayList<>();
        for (var w : List.of(vacuum, analyze)) {
            List<Posting> ps = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ps.add(new Posting(w, UrlHash.of("http://a.test/" + i), i == 2 ? null : crawler, 0, 2 + i,
                        new int[] {i, 30}, 400, 6, 20_100, "en", 'h', 5, 1, 22, 2, 0));
            }
            answers.add(new ShardOwner.KeyPostings(new RangeKey(w, 5), PostingPack.of(ps, true), 7, true));
        }
        ShardOwner.KeyPostings plainAnswer = new ShardOwner.KeyPostings(new RangeKey(analyze, 6),
                PostingPack.of(List.of(), true), 0, false);
        // a holder's table, built as the shard owner builds it
        List<org.peerdex.protocol.wire.JoinTable.Entry> entries = new java.util.ArrayList<>();
        for (ShardOwner.KeyPostings kp : answers) {
            entries.add(new org.peerdex.protocol.wire.JoinTable.Entry(kp.key().word().value(), 5, kp.postings().count(),
                    kp.postings().bytes(), kp.matched(), kp.truncated()));
        }
        ShardOwner.LookupReply sent = new ShardOwner.LookupReply(9, null, List.of(plainAnswer), "",
                org.peerdex.protocol.wire.JoinTable.write(entries));
        V1.LookupReply wire = codec.read(codec.write(WireMapping.reply(sent)), V1.LookupReply.class);
        assertEquals(1, wire.results().size(), "the plain answer stays a key's");
        List<V1.KeyPostings> tabled = WireMapping.joinTable(wire.joinTable(), 2);
        assertEquals(2, tabled.size());
        for (int i = 0; i < 2; i++) {
            ShardOwner.KeyPostings back = WireMapping.keyPostings(tabled.get(i));
            assertEquals(answers.get(i).key(), back.key());
            assertEquals(7, back.matched());
            assertTrue(back.truncated());
            assertEquals(answers.get(i).postingList(), back.postingList());
        }
        assertThrows(IllegalArgumentException.class, () -> WireMapping.joinTable(wire.joinTable(), 1));
    }

    @Test
    void repliesComeBackToTheActorsWithTheSignerAsResponder() throws Exception {
        IndexedDocument doc = realPage();
        PeerId responder = new PeerId("Responder123");
        RangeKey key = new RangeKey(doc.postings().get(0).word(), 0);
        ShardOwner.LookupReply lr = new ShardOwner.LookupReply(9, new PeerId("Liar-Liar-12"), List.of(
                new ShardOwner.KeyPostings(key, PostingPack.of(doc.postings().subList(0, 5)), 40, true)), "");
        V1.LookupReply wireLookup = codec.read(codec.write(WireMapping.reply(lr)), V1.LookupReply.class);
        ShardOwner.KeyPostings kp = WireMapping.keyPostings(wireLookup.results().get(0));
        assertEquals(doc.postings().subList(0, 5), kp.postings().postings());
        assertEquals(40, kp.matched());
        assertTrue(kp.truncated());

        ShardOwner.StoreReply sr = WireMapping.reply(codec.read(codec.write(WireMapping.reply(new ShardOwner.StoreReply(
                4, new PeerId("Liar-Liar-12"), ShardOwner.Outcome.REFUSED, 0, "not my range", 0))), V1.StoreReply.class), responder);
        assertEquals(responder, sr.by());
        assertEquals(ShardOwner.Outcome.REFUSED, sr.outcome());
        assertEquals("not my range", sr.reason());

        PeerId origin = new PeerId("Origin-Peer1");
        ShardOwner.DigestRequest d = WireMapping.digest(codec.read(codec.write(WireMapping.digest(new ShardOwner.DigestRequest(
                5, null, List.of(new RangeDigest('p', origin, 17, 30, -5L)), null))), V1.DigestRequest.class), responder, null);
        assertEquals(List.of(new RangeDigest('p', origin, 17, 30, -5L)), d.digests());
        assertFalse(d.allOrigins(), "digests per origin unless the request says otherwise");
        ShardOwner.DigestRequest folded = WireMapping.digest(codec.read(codec.write(WireMapping.digest(new ShardOwner.DigestRequest(
                5, null, List.of(new RangeDigest('p', origin, 17, 30, -5L)), true, null))), V1.DigestRequest.class), responder, null);
        assertTrue(folded.allOrigins(), "a request of all origins says so");
        // a differing range travels with the hashes its responder holds (sorted on arrival: a peer's order is not
        // trusted), or without, when the responder did not list them
        List<RangeDigest.Differing> differing = WireMapping.ranges(codec.read(codec.write(WireMapping.reply(
                new ShardOwner.DigestReply(5, responder, List.of(new RangeDigest.Differing(new RangeDigest.Range('m', origin, 3)),
                        new RangeDigest.Differing(new RangeDigest.Range('p', origin, 4), new long[] {9, Long.MIN_VALUE, -1, 7})),
                        null))), V1.DigestReply.class).differing());
        assertEquals(2, differing.size());
        assertEquals(new RangeDigest.Range('m', origin, 3), differing.get(0).range());
        assertNull(differing.get(0).held(), "no list: the range is sent whole");
        assertEquals(new RangeDigest.Range('p', origin, 4), differing.get(1).range());
        assertArrayEquals(new long[] {Long.MIN_VALUE, -1, 7, 9}, differing.get(1).held());
        assertThrows(IllegalArgumentException.class, () -> new V1.DigestRange("p", origin.value(), 4, new byte[12]),
                "a held list of broken hashes is refused");
        assertThrows(IllegalArgumentException.class, () -> new V1.DigestReply(5, List.of(
                new V1.DigestRange("p", origin.value(), 4, new byte[8 * V1.MAX_HELD_HASHES]),
                new V1.DigestRange("p", origin.value(), 5, new byte[8])), null), "a reply holds at most the bound");

        V1.MetadataReply mr = codec.read(codec.write(WireMapping.reply(new ShardOwner.MetadataReply(6, responder,
                List.of(doc.metadata()), null))), V1.MetadataReply.class);
        assertEquals(doc.metadata(), WireMapping.metadata(mr.metadata().get(0)));
        // the same record as a row, asked for and answered: the real page's record arrives unchanged
        assertTrue(WireMapping.metadata(codec.read(codec.write(WireMapping.metadata(new ShardOwner.FetchMetadata(6,
                List.of(doc.metadata().urlHash()), null, true))), V1.MetadataRequest.class), null).rows());
        V1.MetadataReply rows = codec.read(codec.write(WireMapping.reply(new ShardOwner.MetadataReply(6, responder,
                List.of(), null, List.of(org.peerdex.actors.dht.shard.MetadataRow.of(doc.metadata()))))),
                V1.MetadataReply.class);
        assertTrue(rows.metadata().isEmpty());
        assertEquals(doc.metadata(), WireMapping.metadata(rows.rows().get(0).record()));
    }

    @Test
    void whatTheActorsTypesRefuseIsAMalformedRequest() {
        // a digest bucket beyond the ring's buckets passes the wire's shape check but not the actors' type
        V1.DigestRequest tooFar = new V1.DigestRequest(1, List.of(new V1.Digest("p", "Origin-Peer1", Integer.MAX_VALUE, 1, 1)));
        assertThrows(IllegalArgumentException.class, () -> WireMapping.digest(tooFar, new PeerId("SignerSigner"), null));
        // a pack whose count lies
        V1.StoreRequest lying = new V1.StoreRequest(1, new V1.Postings(3, new byte[40]), List.of());
        assertThrows(IllegalArgumentException.class, () -> WireMapping.store(lying, new PeerId("SignerSigner"), null));
    }
}
