package org.peerdex.storage.rwi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.testing.TestPostings;

class PostingCodecTest {
    private static final WordHash WORD = WordHash.of("checkpoint");
    private static final UrlHash URL = UrlHash.of("https://www.postgresql.org/docs/current/wal-configuration.html");

    @Test
    void randomPostingsRoundTrip() {
        Random r = new Random(31);
        for (int i = 0; i < 20_000; i++) {
            Posting p = TestPostings.random(r, WORD, URL);
            assertEquals(p, PostingCodec.decode(WORD, URL, PostingCodec.encode(p)));
        }
    }

    @Test
    void flagsAndHolderAreReadWithoutDecoding() {
        Random r = new Random(32);
        PeerId holder = PeerId.random(r);
        for (int i = 0; i < 2_000; i++) {
            Posting p = TestPostings.random(r, WORD, URL);
            Posting own = p.withHolder(null);
            Posting held = p.withHolder(holder);
            assertEquals(p.flags(), PostingCodec.flags(PostingCodec.encode(p)));
            assertEquals(-1, PostingCodec.holderOffset(PostingCodec.encode(own)));
            byte[] v = PostingCodec.encode(held);
            assertEquals(holder.value(), HashBytes.unpack(v, PostingCodec.holderOffset(v)));
        }
    }

    @Test
    void countersAboveByteAndShortRangeDoNotSaturate() {
        Posting p = new Posting(WORD, URL, PeerId.random(new Random(1)), Posting.IN_TITLE | Posting.IN_URL, 70_000,
                new int[] {0, 255, 256, 65_535, 65_536, 199_999}, 1_000_000, 300, 20_000, "de", 'h', 256, 65_537,
                2048, 300, 4_000_000_000L);
        Posting back = PostingCodec.decode(WORD, URL, PostingCodec.encode(p));
        assertEquals(70_000, back.hitCount());
        assertEquals(1_000_000, back.wordsInText());
        assertEquals(300, back.wordsInTitle());
        assertEquals(256, back.linksLocal());
        assertEquals(65_537, back.linksOther());
        assertEquals(300, back.urlComponents());
        assertEquals(4_000_000_000L, back.expiresAt());
        assertArrayEquals(new int[] {0, 255, 256, 65_535, 65_536, 199_999}, back.positions());
        assertEquals(p.holder(), back.holder());
        assertTrue(back.has(Posting.IN_TITLE) && back.has(Posting.IN_URL) && !back.has(Posting.IN_ANCHOR));
        assertEquals(p, back);
    }

    @Test
    void aTypicalPostingIsCompact() {
        Posting p = new Posting(WORD, URL, null, Posting.IN_TITLE, 3, new int[] {12, 40, 97}, 850, 6, 19_700, "en",
                'h', 40, 12, 62, 4, 0);
        int size = PostingCodec.encode(p).length;
        assertTrue(size <= 25, "posting takes " + size + " bytes");
    }

    @Test
    void tooManyPositionsAreCutToTheMaximum() {
        int[] many = new int[40];
        for (int i = 0; i < many.length; i++) many[i] = i * 3;
        Posting p = new Posting(WORD, URL, null, 0, 40, many, 200, 0, 0, "", 'h', 0, 0, 10, 1, 0);
        assertEquals(Posting.MAX_POSITIONS, PostingCodec.decode(WORD, URL, PostingCodec.encode(p)).positions().length);
    }

    @Test
    void corruptValuesAreRejected() {
        byte[] ok = PostingCodec.encode(TestPostings.random(new Random(2), WORD, URL));
        byte[] badVersion = ok.clone();
        badVersion[0] = 9;
        assertThrows(IllegalArgumentException.class, () -> PostingCodec.decode(WORD, URL, badVersion));
        byte[] truncated = java.util.Arrays.copyOf(ok, 3);
        assertThrows(IllegalArgumentException.class, () -> PostingCodec.decode(WORD, URL, truncated));
    }

    @Test
    void varintsRoundTripAcrossTheirLengths() {
        long[] values = {0, 1, 127, 128, 255, 256, 16_383, 16_384, 65_535, 65_536, Integer.MAX_VALUE, Long.MAX_VALUE};
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (long v : values) Varint.write(out, v);
        Varint.Reader r = new Varint.Reader(out.toByteArray(), 0);
        for (long v : values) assertEquals(v, r.read());
        assertTrue(!r.hasMore());
        assertThrows(IllegalArgumentException.class, () -> Varint.write(new ByteArrayOutputStream(), -1));
        ByteArrayOutputStream one = new ByteArrayOutputStream();
        Varint.write(one, 127);
        assertEquals(1, one.size());
    }
}
