package org.peerdex.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WireCodecTest {
    private final WireCodec codec = new WireCodec();
    private final ObjectMapper cbor = new CBORMapper();

    @Test
    void everyBodyOfVersionOneSurvivesTheCodecWithItsDocumentedKeys() throws Exception {
        Set<Class<?>> seen = new HashSet<>();
        for (V1.Body body : WireSamples.everyBody()) {
            byte[] bytes = codec.write(body);
            V1.Body back = codec.read(bytes, body.getClass());
            // arrays inside (filters, packs, positions) make record equality useless: compare the encodings and trees
            assertArrayEquals(bytes, codec.write(back), body.getClass().getSimpleName());
            assertEquals(cbor.readTree(bytes), cbor.readTree(codec.write(back)));
            assertEquals(body.getClass().getSimpleName().hashCode(), back.getClass().getSimpleName().hashCode());
            seen.add(body.getClass());
        }
        assertEquals(Set.of(V1.Body.class.getPermittedSubclasses()), seen, "a sample of every wire type");
        // every message's request and reply are among them
        for (V1.Message<?, ?> m : V1.MESSAGES.values()) {
            assertTrue(seen.contains(m.request()) && seen.contains(m.reply()), m.name());
        }
    }

    @Test
    void theKeysOnTheWireAreTheRecordsDocumentedNamesOnly() throws Exception {
        JsonNode store = cbor.readTree(codec.write(WireSamples.store()));
        assertEquals(List.of("batchId", "postings", "metadata"), names(store));
        assertEquals(List.of("count", "bytes"), names(store.get("postings")));
        assertEquals(List.of("urlHash", "url", "title", "description", "author", "keywords", "language", "doctype",
                "mimeType", "size", "lastModified", "fetched", "linksLocal", "linksOther", "wordsInText", "holder",
                "contentHash", "headings"), names(store.get("metadata").get(0)));
        JsonNode lookup = cbor.readTree(codec.write(WireSamples.lookup()));
        assertEquals(List.of("queryId", "lookups"), names(lookup));
        // a plain lookup has no join key at all (its bytes are the first revision's)
        assertEquals(List.of("key", "filter", "urls", "limit"), names(lookup.get("lookups").get(0)));
        V1.Lookup join = new V1.Lookup(new V1.Key(WireSamples.WORD, 3), null, null, 12,
                List.of(WireSamples.WORD, WireSamples.OTHER_WORD));
        JsonNode joinLookup = cbor.readTree(codec.write(new V1.LookupRequest(7, List.of(join))));
        assertEquals(List.of("key", "filter", "urls", "limit", "join"), names(joinLookup.get("lookups").get(0)));
        assertEquals(join, codec.read(codec.write(new V1.LookupRequest(7, List.of(join))), V1.LookupRequest.class)
                .lookups().get(0));
        assertEquals(List.of("word", "partition"), names(lookup.get("lookups").get(0).get("key")));
        assertEquals(List.of("hashes", "bits"), names(lookup.get("lookups").get(0).get("filter")));
        JsonNode hello = cbor.readTree(codec.write(WireSamples.everyBody().get(0)));
        assertEquals(List.of("key", "network", "address", "acceptsIndex", "version", "issuedAt", "expiresAt",
                "startedAt", "leaving", "signature"), names(hello.get("record")));
    }

    @Test
    void aPresenceAnswerCarriesItsKeyAndBitsOnlyAndReadsBackWithItsDefaults() throws Exception {
        V1.KeyPostings presence = new V1.KeyPostings(new V1.Key(WireSamples.WORD, 3), V1.Postings.NONE, 0, false,
                new byte[] {5});
        byte[] bytes = codec.write(new V1.LookupReply(9, List.of(presence), null));
        JsonNode answer = cbor.readTree(bytes).get("results").get(0);
        assertEquals(List.of("key", "held"), names(answer));
        V1.KeyPostings back = codec.read(bytes, V1.LookupReply.class).results().get(0);
        assertEquals(0, back.postings().count());
        assertEquals(0, back.matched());
        assertArrayEquals(new byte[] {5}, back.held());
        // an empty pack that is not a presence answer's is written as before
        V1.KeyPostings none = new V1.KeyPostings(new V1.Key(WireSamples.WORD, 3), V1.Postings.EMPTY, 0, false);
        assertEquals(List.of("key", "postings"), names(cbor.readTree(codec.write(new V1.LookupReply(9, List.of(none),
                null))).get("results").get(0)));
    }

    @Test
    void postingsSurviveTheirPackedLayoutFieldByField() {
        V1.Posting a = WireSamples.posting(WireSamples.WORD, WireSamples.HASH_A, "");
        V1.Posting b = new V1.Posting(WireSamples.OTHER_WORD, WireSamples.HASH_B, WireSamples.HOLDER, Integer.MAX_VALUE,
                0, new int[0], 0, 0, 0, "", 'p', 0, 0, 0, 0, Long.MAX_VALUE);
        V1.Postings pack = PackedPostings.pack(List.of(a, b));
        List<V1.Posting> back = PackedPostings.unpack(codec.read(codec.write(new V1.StoreRequest(1, pack, null)),
                V1.StoreRequest.class).postings());
        assertEquals(2, back.size());
        assertSame(a, back.get(0));
        assertSame(b, back.get(1));
    }

    @Test
    void aKeyedPackLeavesOutTheKeysWordAndARepeatedHolderAndReadsBackWhole() throws Exception {
        V1.Posting own = WireSamples.posting(WireSamples.WORD, WireSamples.HASH_A, "");
        V1.Posting first = WireSamples.posting(WireSamples.WORD, WireSamples.HASH_B, WireSamples.HOLDER);
        V1.Posting second = WireSamples.posting(WireSamples.WORD,
                org.peerdex.protocol.hash.UrlHash.of("https://www.postgresql.org/docs/15/index.html").value(), WireSamples.HOLDER);
        List<V1.Posting> ps = List.of(own, first, second);
        V1.Postings plain = PackedPostings.pack(ps);
        V1.Postings keyed = PackedPostings.pack(ps, true);
        // 9 bytes of word a posting, and 9 of holder for the one whose holder repeats the one before
        assertEquals(plain.bytes().length - 3 * 9 - 9, keyed.bytes().length);
        V1.LookupReply reply = new V1.LookupReply(4, List.of(new V1.KeyPostings(new V1.Key(WireSamples.WORD, 3), keyed,
                3, false)), null);
        byte[] bytes = codec.write(reply);
        JsonNode pack = cbor.readTree(bytes).get("results").get(0).get("postings");
        assertEquals(List.of("count", "bytes", "keyed"), names(pack));
        V1.Postings back = codec.read(bytes, V1.LookupReply.class).results().get(0).postings();
        assertTrue(back.keyed());
        List<V1.Posting> read = PackedPostings.unpack(back, WireSamples.WORD);
        assertEquals(3, read.size());
        for (int i = 0; i < 3; i++) assertSame(ps.get(i), read.get(i));
        // a keyed pack is never read as a plain one, nor its inherited holder where none was handed down
        assertThrows(IllegalArgumentException.class, () -> PackedPostings.unpack(back));
        assertThrows(IllegalArgumentException.class, () -> PackedPostings.unpack(new V1.Postings(3, keyed.bytes())));
        V1.Postings inheritsFirst = PackedPostings.pack(List.of(second), true);
        byte[] lying = inheritsFirst.bytes().clone();
        assertEquals(1, lying[lying.length - 10], "the first posting writes its holder");
        byte[] cut = java.util.Arrays.copyOf(lying, lying.length - 9);
        cut[cut.length - 1] = 2;
        cut[9] = (byte) (cut[9] - 9); // its value's length
        assertThrows(IllegalArgumentException.class,
                () -> PackedPostings.unpack(new V1.Postings(1, cut, true), WireSamples.WORD));
        // a keyed pack holds one word
        assertThrows(IllegalArgumentException.class, () -> PackedPostings.pack(List.of(own,
                WireSamples.posting(WireSamples.OTHER_WORD, WireSamples.HASH_B, "")), true));
        // the asker's flag is written only when set: a plain request keeps its bytes
        assertEquals(List.of("queryId", "lookups"), names(cbor.readTree(codec.write(WireSamples.lookup()))));
        V1.LookupRequest asks = new V1.LookupRequest(42, WireSamples.lookup().lookups(), true);
        assertEquals(List.of("queryId", "lookups", "keyed"), names(cbor.readTree(codec.write(asks))));
        assertTrue(codec.read(codec.write(asks), V1.LookupRequest.class).keyed());
    }

    @Test
    void unknownKeysAreIgnoredAndAbsentKeysTakeDefaults() throws Exception {
        ObjectNode count = (ObjectNode) cbor.readTree(codec.write(new V1.CountRequest(5,
                List.of(new V1.Key(WireSamples.WORD, 2)))));
        count.put("from", "AAAAAAAAAAAA"); // a field of the old actor record, or of a later revision
        count.putObject("replyTo").put("path", "pekko://peerdex/user/victim");
        V1.CountRequest read = codec.read(cbor.writeValueAsBytes(count), V1.CountRequest.class);
        assertEquals(5, read.queryId());
        assertEquals(List.of(new V1.Key(WireSamples.WORD, 2)), read.keys());

        V1.CountReply empty = codec.read(cbor.writeValueAsBytes(cbor.createObjectNode()), V1.CountReply.class);
        assertEquals(0, empty.queryId());
        assertEquals(List.of(), empty.counts());
        assertEquals("", empty.error(), "no error is the empty string, never null");
    }

    @Test
    void malformedBodiesAreRefusedWithTheirReason() throws Exception {
        // a key given twice could be read two ways: refused
        byte[] twice = hex("a2" + "67" + hexOf("queryId") + "01" + "67" + hexOf("queryId") + "02");
        assertThrows(IllegalArgumentException.class, () -> codec.read(twice, V1.CountRequest.class));

        ObjectNode badHash = (ObjectNode) cbor.readTree(codec.write(new V1.MetadataRequest(1, List.of(WireSamples.HASH_A))));
        badHash.putArray("urls").add("not a hash!!");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> codec.read(cbor.writeValueAsBytes(badHash), V1.MetadataRequest.class));
        assertTrue(e.getMessage().contains("not a URL hash"), e.getMessage());

        ObjectNode badPartition = cbor.createObjectNode();
        badPartition.putArray("keys").addObject().put("word", WireSamples.WORD).put("partition", 256);
        assertThrows(IllegalArgumentException.class, () -> codec.read(cbor.writeValueAsBytes(badPartition), V1.CountRequest.class));

        ObjectNode nullElement = cbor.createObjectNode();
        nullElement.putArray("keys").addNull();
        assertThrows(IllegalArgumentException.class, () -> codec.read(cbor.writeValueAsBytes(nullElement), V1.CountRequest.class));

        ObjectNode badOutcome = cbor.createObjectNode().put("batchId", 1).put("outcome", "EATEN");
        assertThrows(IllegalArgumentException.class, () -> codec.read(cbor.writeValueAsBytes(badOutcome), V1.StoreReply.class));

        ObjectNode hugeFilter = cbor.createObjectNode().put("hashes", 3);
        hugeFilter.putArray("bits");
        ObjectNode lookup = cbor.createObjectNode();
        lookup.putArray("lookups").addObject().<ObjectNode>set("key",
                cbor.createObjectNode().put("word", WireSamples.WORD).put("partition", 0)).set("filter", hugeFilter);
        assertThrows(IllegalArgumentException.class, () -> codec.read(cbor.writeValueAsBytes(lookup), V1.LookupRequest.class));

        assertThrows(IllegalArgumentException.class, () -> codec.read(new byte[] {(byte) 0xbf, 0x61}, V1.Hello.class));
        assertThrows(IllegalArgumentException.class, () -> codec.read(new byte[0], V1.Hello.class));
        assertThrows(IllegalArgumentException.class, () -> codec.read(cbor.writeValueAsBytes(cbor.createObjectNode()), V1.Hello.class));
    }

    @Test
    void malformedPostingPacksAreRefused() {
        V1.Postings good = PackedPostings.pack(List.of(WireSamples.posting(WireSamples.WORD, WireSamples.HASH_A, "")));
        byte[] b = good.bytes();
        assertThrows(IllegalArgumentException.class, () -> PackedPostings.unpack(new V1.Postings(2, b)));
        assertThrows(IllegalArgumentException.class, () -> PackedPostings.unpack(new V1.Postings(1_000_000, b)));
        assertThrows(IllegalArgumentException.class,
                () -> PackedPostings.unpack(new V1.Postings(1, java.util.Arrays.copyOf(b, b.length - 1))));
        assertThrows(IllegalArgumentException.class,
                () -> PackedPostings.unpack(new V1.Postings(1, java.util.Arrays.copyOf(b, b.length + 1))));
        byte[] layout = b.clone();
        layout[19] = 9; // the value's layout byte
        assertThrows(IllegalArgumentException.class, () -> PackedPostings.unpack(new V1.Postings(1, layout)));
        assertEquals(0, PackedPostings.unpack(V1.Postings.EMPTY).size());
    }

    private static void assertSame(V1.Posting a, V1.Posting b) {
        assertEquals(a.word(), b.word());
        assertEquals(a.url(), b.url());
        assertEquals(a.holder(), b.holder());
        assertEquals(a.flags(), b.flags());
        assertEquals(a.hitCount(), b.hitCount());
        assertArrayEquals(a.positions(), b.positions());
        assertEquals(a.wordsInText(), b.wordsInText());
        assertEquals(a.wordsInTitle(), b.wordsInTitle());
        assertEquals(a.lastModified(), b.lastModified());
        assertEquals(a.language(), b.language());
        assertEquals(a.doctype(), b.doctype());
        assertEquals(a.linksLocal(), b.linksLocal());
        assertEquals(a.linksOther(), b.linksOther());
        assertEquals(a.urlLength(), b.urlLength());
        assertEquals(a.urlComponents(), b.urlComponents());
        assertEquals(a.expiresAt(), b.expiresAt());
    }

    private static List<String> names(JsonNode n) {
        List<String> out = new java.util.ArrayList<>();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) out.add(it.next());
        return out;
    }

    private static String hexOf(String ascii) {
        return java.util.HexFormat.of().formatHex(ascii.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    private static byte[] hex(String h) {
        return java.util.HexFormat.of().parseHex(h);
    }
}
