package org.peerdex.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;

class JoinTableTest {
    private static final String THIRD_WORD = WordHash.of("analyze").value();
    private final WireCodec codec = new WireCodec();

    /** A join answer's entry: {@code word}'s keyed postings of {@code urls}, in that order. */
    private static JoinTable.Entry entry(String word, int partition, List<String> urls, int matched, boolean truncated) {
        List<V1.Posting> ps = new ArrayList<>();
        for (int i = 0; i < urls.size(); i++) {
            // two crawlers, so a pack has both a written and an inherited holder
            ps.add(WireSamples.posting(word, urls.get(i), i % 3 == 2 ? "ZyXwVuTs_-98" : WireSamples.HOLDER));
        }
        V1.Postings pack = PackedPostings.pack(ps, true);
        return new JoinTable.Entry(word, partition, pack.count(), pack.bytes(), matched, truncated);
    }

    private static List<String> urls(String prefix, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(UrlHash.of("https://join.test/" + prefix + "/" + i).value());
        return out;
    }

    private static void assertSame(List<JoinTable.Entry> expected, List<JoinTable.Entry> actual) {
        assertEquals(expected.size(), actual.size());
        for (JoinTable.Entry e : expected) {
            JoinTable.Entry a = actual.stream()
                    .filter(x -> x.word().equals(e.word()) && x.partition() == e.partition()).findFirst().orElseThrow();
            assertEquals(e.count(), a.count());
            assertArrayEquals(e.pack(), a.pack(), "the keyed pack, byte for byte");
            assertEquals(e.matched(), a.matched());
            assertEquals(e.truncated(), a.truncated());
            // and the pack reads as the postings it was made of
            assertEquals(PackedPostings.unpack(new V1.Postings(e.count(), e.pack(), e.count() > 0), e.word()).size(),
                    PackedPostings.unpack(new V1.Postings(a.count(), a.pack(), a.count() > 0), a.word()).size());
        }
    }

    @Test
    void aTableGivesBackEveryKeyedPackByteForByteWithItsCounts() {
        List<String> p3 = urls("p3", 7);
        List<String> p5 = urls("p5", 4);
        List<String> reordered = new ArrayList<>(p5);
        reordered.add(reordered.remove(0));
        List<JoinTable.Entry> entries = List.of(
                entry(WireSamples.WORD, 3, p3, 1_234_567, true),
                entry(WireSamples.OTHER_WORD, 3, p3, 80, false),
                entry(THIRD_WORD, 3, p3, 0, true),
                // another partition, one of whose words lists the URLs in another order: a group of its own
                entry(WireSamples.WORD, 5, p5, 12, false),
                entry(WireSamples.OTHER_WORD, 5, reordered, 13, false),
                // a partition where nothing joined: empty packs, counts kept
                entry(WireSamples.WORD, 9, List.of(), 40, false),
                entry(WireSamples.OTHER_WORD, 9, List.of(), 0, false));
        byte[] table = JoinTable.write(entries);
        assertSame(entries, JoinTable.read(table, entries.size()));

        int packs = entries.stream().mapToInt(e -> e.pack().length).sum();
        // each URL of a group once: partition 3's for two words of three, partition 5's for none
        assertTrue(table.length <= packs - 9 * 7 * 2 + 3 * 9 + 40, table.length + " against packs of " + packs);
    }

    @Test
    void aReplyWithATableIsSmallerThanTheSameAnswersAsKeyPostingsAndLeavesTheKeyOutWhenAbsent() throws Exception {
        List<String> us = urls("reply", 6);
        List<JoinTable.Entry> entries = new ArrayList<>();
        List<V1.KeyPostings> asKeys = new ArrayList<>();
        for (int p = 0; p < 6; p++) {
            for (String w : List.of(WireSamples.WORD, WireSamples.OTHER_WORD)) {
                JoinTable.Entry e = entry(w, p, us.subList(p, p + 1), 40 + p, p % 2 == 0);
                entries.add(e);
                asKeys.add(new V1.KeyPostings(new V1.Key(w, p), new V1.Postings(e.count(), e.pack(), true), e.matched(),
                        e.truncated()));
            }
        }
        byte[] withTable = codec.write(new V1.LookupReply(42, List.of(), "", JoinTable.write(entries)));
        byte[] withKeys = codec.write(new V1.LookupReply(42, asKeys, ""));
        assertTrue(withTable.length < withKeys.length * 0.7, withTable.length + " against " + withKeys.length);
        V1.LookupReply back = codec.read(withTable, V1.LookupReply.class);
        assertSame(entries, JoinTable.read(back.joinTable(), entries.size()));

        JsonNode plain = new CBORMapper().readTree(codec.write(new V1.LookupReply(42, asKeys, "")));
        assertFalse(plain.has("joinTable"), "a reply without a table has no such key");
        JsonNode plainRequest = new CBORMapper().readTree(codec.write(new V1.LookupRequest(7, List.of(), true)));
        assertFalse(plainRequest.has("joinTable"));
        assertTrue(codec.read(codec.write(new V1.LookupRequest(7, List.of(), true, true)), V1.LookupRequest.class)
                .joinTable());
    }

    @Test
    void everyMalformedTableIsRefusedWhole() {
        List<String> us = urls("bad", 3);
        List<JoinTable.Entry> entries = List.of(entry(WireSamples.WORD, 2, us, 9, false),
                entry(WireSamples.OTHER_WORD, 2, us, 8, true));
        byte[] table = JoinTable.write(entries);
        // every cut short
        for (int n = 0; n < table.length; n++) {
            byte[] cut = Arrays.copyOf(table, n);
            assertThrows(IllegalArgumentException.class, () -> JoinTable.read(cut, 10), "cut at " + n);
        }
        // a byte past the end
        byte[] longer = Arrays.copyOf(table, table.length + 1);
        assertThrows(IllegalArgumentException.class, () -> JoinTable.read(longer, 10));
        // more keys than the asker asked
        assertThrows(IllegalArgumentException.class, () -> JoinTable.read(table, 1));
        // a word index past the words: the table starts varint(2) word[9] word[9] varint(1) partition k index
        byte[] badIndex = table.clone();
        assertEquals(2, badIndex[0]);
        assertEquals(2, badIndex[1 + 18 + 2]);
        badIndex[1 + 18 + 3] = 2;
        assertThrows(IllegalArgumentException.class, () -> JoinTable.read(badIndex, 10));
        // the same key twice
        byte[] twice = table.clone();
        twice[1 + 18 + 3] = 0;
        int second = 1 + 18 + 3 + 1 + 1; // index, counts of the first word (9 * 2 < 128: one byte)
        twice[second] = 0;
        assertThrows(IllegalArgumentException.class, () -> JoinTable.read(twice, 10));
        // a row count the bytes cannot hold, without allocating for it
        byte[] lie = JoinTable.write(List.of(entry(WireSamples.WORD, 2, List.of(), 0, false)));
        byte[] liar = Arrays.copyOf(lie, lie.length + 5);
        int rowsAt = lie.length - 1;
        liar[rowsAt] = (byte) 0xff;
        liar[rowsAt + 1] = (byte) 0xff;
        liar[rowsAt + 2] = (byte) 0xff;
        liar[rowsAt + 3] = (byte) 0x7f;
        assertThrows(IllegalArgumentException.class, () -> JoinTable.read(liar, 10));
        // a pack that is not what it claims is not written into a table
        JoinTable.Entry broken = new JoinTable.Entry(WireSamples.WORD, 2, 3, Arrays.copyOf(entries.get(0).pack(), 20), 0,
                false);
        assertThrows(IllegalArgumentException.class, () -> JoinTable.write(List.of(broken)));
    }
    @Test
    void aRequestsJoinsNameTheWordsOnceAndStandForOneJoinLookupAPartition() {
        List<String> words = List.of(WireSamples.WORD, THIRD_WORD);
        List<Integer> partitions = List.of(3, 17, 40, 41, 90);
        V1.Joins joins = new V1.Joins(words, partitions, 12);
        List<V1.Lookup> lookups = joins.lookups();
        assertEquals(5, lookups.size());
        for (int i = 0; i < 5; i++) {
            V1.Lookup l = lookups.get(i);
            assertEquals(new V1.Key(WireSamples.WORD, partitions.get(i)), l.key());
            assertEquals(words, l.join());
            assertEquals(12, l.limit());
        }
        byte[] compact = codec.write(new V1.LookupRequest(7, List.of(), true, true, null, joins));
        byte[] spelled = codec.write(new V1.LookupRequest(7, lookups, true, true));
        assertTrue(compact.length * 3 < spelled.length, compact.length + " bytes against " + spelled.length);
        V1.LookupRequest back = codec.read(compact, V1.LookupRequest.class);
        assertEquals(lookups, back.joins().lookups());
        assertTrue(back.lookups().isEmpty());
        // absent, it is not written: the golden bytes of a request without it stand
        assertArrayEquals(spelled, codec.write(new V1.LookupRequest(7, lookups, true, true, null, null)));
        // malformed: a partition twice, no partition, too many words, a word that is no hash
        assertThrows(IllegalArgumentException.class, () -> new V1.Joins(words, List.of(3, 3), 12));
        assertThrows(IllegalArgumentException.class, () -> new V1.Joins(words, List.of(), 12));
        assertThrows(IllegalArgumentException.class, () -> new V1.Joins(urls("w", 17), List.of(1), 12));
        assertThrows(IllegalArgumentException.class, () -> new V1.Joins(List.of("not a hash"), List.of(1), 12));
        assertThrows(IllegalArgumentException.class, () -> new V1.Joins(words, List.of(256), 12));
    }
}
