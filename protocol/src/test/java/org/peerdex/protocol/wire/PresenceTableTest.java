package org.peerdex.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;

class PresenceTableTest {
    private static final String A = WordHash.of("postgres").value();
    private static final String B = WordHash.of("vacuum").value();
    private static final String C = WordHash.of("analyze").value();

    private static List<String> urls(String prefix, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(UrlHash.of("https://presence.test/" + prefix + "/" + i).value());
        return out;
    }

    /** Three keys of a confirmation: two words of one partition asked about the same URLs, a third elsewhere. */
    private static List<PresenceTable.Ask> asks() {
        List<String> shared = urls("shared", 6);
        List<String> other = urls("other", 3);
        return List.of(new PresenceTable.Ask(A, 7, shared),
                new PresenceTable.Ask(B, 7, List.of(shared.get(4), shared.get(1), shared.get(5))),
                new PresenceTable.Ask(A, 40, other), new PresenceTable.Ask(C, 7, shared.subList(0, 2)));
    }

    @Test
    void aTableReadsBackAsItsQuestionsAndAnAnswerAsTheUrlsEachKeyHas() {
        PresenceTable written = PresenceTable.of(asks());
        byte[] bytes = written.write();
        PresenceTable read = PresenceTable.read(bytes, 16, 100);
        assertEquals(9, read.urls().size(), "each URL once, however many keys ask about it");
        assertEquals(written.urls(), read.urls());
        assertEquals(written.asks(), read.asks());
        for (int k = 0; k < asks().size(); k++) {
            assertEquals(asks().get(k).word(), read.asks().get(k).word());
            assertEquals(asks().get(k).partition(), read.asks().get(k).partition());
            assertEquals(Set.copyOf(asks().get(k).urls()), Set.copyOf(read.asks().get(k).urls()));
        }
        // 3 words, 9 URLs of 9 bytes, 4 keys of (index, partition, 2 mask bytes)
        assertEquals(1 + 3 * 9 + 1 + 9 * 9 + 1 + 4 * 4, bytes.length);

        // the holder answers on the table it read; the asker reads the answer on the table it wrote
        List<String> shared = asks().get(0).urls();
        List<Set<String>> here = List.of(Set.of(shared.get(0), shared.get(3), "not-asked-at"),
                Set.of(shared.get(5)), Set.of(), Set.of(shared.get(0), shared.get(1)));
        byte[] held = read.held(here);
        assertEquals(4 * 2, held.length, "a mask of the table's URLs per key");
        List<Set<String>> got = written.held(held);
        assertEquals(List.of(Set.of(shared.get(0), shared.get(3)), Set.of(shared.get(5)), Set.of(),
                Set.of(shared.get(0), shared.get(1))), got);
    }

    @Test
    void theTableIsMuchSmallerThanTheSameQuestionsAsPresenceLookups() {
        WireCodec codec = new WireCodec();
        List<V1.Lookup> lookups = new ArrayList<>();
        for (PresenceTable.Ask a : asks()) {
            lookups.add(new V1.Lookup(new V1.Key(a.word(), a.partition()), null, a.urls(), a.urls().size(), null, true));
        }
        byte[] asLookups = codec.write(new V1.LookupRequest(42, lookups, false));
        byte[] asTable = codec.write(new V1.LookupRequest(42, List.of(), false, false, PresenceTable.of(asks()).write()));
        assertTrue(asTable.length * 2 < asLookups.length, asTable.length + " bytes against " + asLookups.length);
        V1.LookupRequest back = codec.read(asTable, V1.LookupRequest.class);
        assertEquals(PresenceTable.of(asks()).asks(), PresenceTable.read(back.presenceTable(), 16, 100).asks());

        List<V1.KeyPostings> answers = new ArrayList<>();
        for (PresenceTable.Ask a : asks()) {
            answers.add(new V1.KeyPostings(new V1.Key(a.word(), a.partition()), V1.Postings.NONE, 0, false, new byte[] {5}));
        }
        byte[] asKeys = codec.write(new V1.LookupReply(42, answers, ""));
        PresenceTable t = PresenceTable.of(asks());
        byte[] asHeld = codec.write(new V1.LookupReply(42, List.of(), "", null,
                t.held(t.asks().stream().map(x -> Set.copyOf(x.urls())).toList())));
        assertTrue(asHeld.length * 3 < asKeys.length, asHeld.length + " bytes against " + asKeys.length);
        // a request or reply without a table is written as before (golden bytes)
        assertArrayEquals(codec.write(new V1.LookupRequest(42, lookups, false)),
                codec.write(new V1.LookupRequest(42, lookups, false, false, null)));
    }

    @Test
    void aMalformedTableOrAnswerIsRefusedWhole() {
        byte[] table = PresenceTable.of(asks()).write();
        for (int cut = 0; cut < table.length; cut++) {
            byte[] part = Arrays.copyOf(table, cut);
            assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(part, 16, 100), "cut at " + cut);
        }
        byte[] trailing = Arrays.copyOf(table, table.length + 1);
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(trailing, 16, 100));
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(table, 3, 100), "more keys than allowed");
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(table, 16, 8), "more URLs than allowed");

        List<String> u = urls("bad", 3);
        // a word index past the words
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(raw(List.of(A), u,
                new int[][] {{1, 3, 0b111}}), 16, 100));
        // a key twice
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(raw(List.of(A), u,
                new int[][] {{0, 3, 0b011}, {0, 3, 0b100}}), 16, 100));
        // a URL no key asks about, a key that asks about none, a bit past the URLs
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(raw(List.of(A), u,
                new int[][] {{0, 3, 0b011}}), 16, 100));
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(raw(List.of(A, B), u,
                new int[][] {{0, 3, 0b111}, {1, 3, 0}}), 16, 100));
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(raw(List.of(A), u,
                new int[][] {{0, 3, 0b1111}}), 16, 100));
        // a URL twice, no keys, a count the bytes cannot hold
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(raw(List.of(A), List.of(u.get(0), u.get(0)),
                new int[][] {{0, 3, 0b11}}), 16, 100));
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(raw(List.of(A), u, new int[0][]), 16, 100));
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.read(new byte[] {(byte) 0xff, 0x7f}, 16, 100));
        // the well-formed one of these reads
        assertEquals(1, PresenceTable.read(raw(List.of(A), u, new int[][] {{0, 3, 0b111}}), 16, 100).asks().size());

        // an answer of the wrong length, or claiming a URL not asked of its key, is refused whole
        PresenceTable t = PresenceTable.of(asks());
        assertThrows(IllegalArgumentException.class, () -> t.held(new byte[7]));
        assertThrows(IllegalArgumentException.class, () -> t.held(new byte[9]));
        assertThrows(IllegalArgumentException.class, () -> t.held((byte[]) null));
        byte[] claims = new byte[8];
        claims[2] = 1; // key 1 (B, asked 3 of the 6 shared URLs) claims the table's first URL
        assertThrows(IllegalArgumentException.class, () -> t.held(claims));
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.of(List.of()));
        assertThrows(IllegalArgumentException.class, () -> PresenceTable.of(List.of(new PresenceTable.Ask(A, 1, u),
                new PresenceTable.Ask(A, 1, u))));
    }

    /** A table written by hand: per key {word index, partition, mask}, the mask one byte. */
    private static byte[] raw(List<String> words, List<String> urls, int[][] keys) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PackedBytes.varint(out, words.size());
        for (String w : words) PackedBytes.writeHash(out, w);
        PackedBytes.varint(out, urls.size());
        for (String u : urls) PackedBytes.writeHash(out, u);
        PackedBytes.varint(out, keys.length);
        for (int[] k : keys) {
            PackedBytes.varint(out, k[0]);
            PackedBytes.varint(out, k[1]);
            out.write(k[2]);
        }
        return out.toByteArray();
    }
}
