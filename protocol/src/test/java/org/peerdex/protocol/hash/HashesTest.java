package org.peerdex.protocol.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.ring.RingPosition;

class HashesTest {

    /*
     * Vectors computed outside this code base with python3:
     *   A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
     *   bits = ''.join(format(b, '08b') for b in hashlib.md5(w.lower().encode('utf-8')).digest())
     *   ''.join(A[int(bits[i:i+6], 2)] for i in range(0, 72, 6))
     */
    @Test
    void wordHashMatchesIndependentlyComputedVectors() {
        assertEquals("pHFHbLPKTd5m", WordHash.of("peerdex").value());
        assertEquals("k_cloHQj_hyI", WordHash.of("java").value());
        assertEquals("3cQNq6LpdtSJ", WordHash.of("straße").value());
        assertEquals("09cVi3LNetWY", WordHash.of("min_wal_size").value());
        assertEquals("ABEK-LQ5PvP3", WordHash.of("日本語").value());
    }

    @Test
    void wordHashIgnoresCase() {
        assertEquals(WordHash.of("java"), WordHash.of("JAVA"));
        assertEquals(WordHash.of("Straße"), WordHash.of("straße"));
    }

    /** Base64Order against an encoder written differently: BigInteger digits of 6 bits. */
    @Test
    void base64OrderEncodesLikeSixBitDigitsOfABigInteger() {
        Random r = new Random(7);
        for (int n = 0; n < 200; n++) {
            byte[] bytes = new byte[3 * (1 + r.nextInt(8))];
            r.nextBytes(bytes);
            BigInteger v = new BigInteger(1, bytes);
            StringBuilder expected = new StringBuilder();
            for (int i = bytes.length * 8 / 6 - 1; i >= 0; i--) {
                expected.append(Base64Order.ALPHABET.charAt(v.shiftRight(6 * i).intValue() & 63));
            }
            assertEquals(expected.toString(), Base64Order.encode(bytes));
        }
    }

    @Test
    void base64OrderAlphabetIsTheSortOrderOfValues() {
        for (int i = 0; i < 64; i++) {
            assertEquals(i, Base64Order.value(Base64Order.character(i)));
        }
        assertEquals(-1, Base64Order.value('+'));
        assertEquals(-1, Base64Order.value('é'));
    }

    @Test
    void positionOfAWordIsItsFirstTenCharactersAsSixtyBits() {
        // python3: v = 0; for c in h[:10]: v = (v << 6) | A.index(c); (v << 3) | 7
        assertEquals(5924665313393452783L, WordHash.of("peerdex").position());
        assertEquals(5331016006948224783L, WordHash.of("java").position());
    }

    @Test
    void hashesRoundTripThroughTheirString() {
        WordHash w = WordHash.of("pg_dump");
        assertEquals(w, WordHash.parse(w.value()));
        UrlHash u = UrlHash.of("https://www.postgresql.org/docs/current/app-pgdump.html");
        assertEquals(u, UrlHash.parse(u.toString()));
        PeerId p = PeerId.random(new Random(1));
        assertEquals(p, PeerId.parse(p.value()));
    }

    @Test
    void malformedHashesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> WordHash.parse("short"));
        assertThrows(IllegalArgumentException.class, () -> WordHash.parse("pHFHbLPKTd5m+"));
        assertThrows(IllegalArgumentException.class, () -> UrlHash.parse("pHFHbLPKTd5+"));
        assertThrows(IllegalArgumentException.class, () -> PeerId.parse(null));
        assertThrows(IllegalArgumentException.class, () -> PeerId.parse("AAAAAAAAAAA="));
    }

    /*
     * python3, the formula of DESIGN.md §2 written out by hand:
     *   md5b64(normal)[:5] + md5b64("www:443:docs")[:1] + md5b64("https:www.postgresql.org:443")[:5]
     *   + A[(0 << 2) | 2]    (generic TLD, domain "www.postgresql" of 14 characters)
     */
    @Test
    void urlHashMatchesIndependentlyComputedVectors() {
        assertEquals("kPDBXx7YxvhC",
                UrlHash.of("https://www.postgresql.org/docs/current/runtime-config-wal.html").value());
        // local host: domain class 7, "localhost" has 9 characters -> length class 1
        assertEquals("mCXCpIssmsTd", UrlHash.of("http://localhost:8080/").value());
    }

    @Test
    void hostHashIsEqualForTheSameProtocolHostAndPort() {
        UrlHash a = UrlHash.of("https://docs.python.org/3/library/os.path.html");
        UrlHash b = UrlHash.of("https://docs.python.org/3/library/json.html");
        UrlHash c = UrlHash.of("https://docs.python.org:443/3/tutorial/");
        assertNotEquals(a, b);
        assertEquals(a.hostHash(), b.hostHash());
        assertEquals(a.hostHash(), c.hostHash());
        assertEquals(6, a.hostHash().length());
    }

    @Test
    void hostHashDiffersForAnotherHostPortOrProtocol() {
        String base = UrlHash.of("https://docs.python.org/3/").hostHash();
        assertNotEquals(base, UrlHash.of("http://docs.python.org/3/").hostHash());
        assertNotEquals(base, UrlHash.of("https://docs.python.org:8443/3/").hostHash());
        assertNotEquals(base, UrlHash.of("https://www.python.org/3/").hostHash());
    }

    @Test
    void urlHashIsTheSameForEquivalentSpellingsOfAUrl() {
        assertEquals(UrlHash.of("http://example.com/a/b"), UrlHash.of("HTTP://Example.COM:80/a/./x/../b#top"));
    }

    @Test
    void urlHashFlagTellsLocalAndPublicHostsApart() {
        assertEquals(7, UrlHash.domainClass("127.0.0.1", "1"));
        assertEquals(7, UrlHash.domainClass("192.168.1.10", "10"));
        assertEquals(6, UrlHash.domainClass("8.8.8.8", "8"));
        assertEquals(0, UrlHash.domainClass("example.org", "org"));
        assertEquals(1, UrlHash.domainClass("example.de", "de"));
        assertEquals(2, UrlHash.domainClass("example.museumx", "museumx"));
    }

    @Test
    void urlsThatDoNotNormalizeAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> UrlHash.of("ftp://example.com/"));
        assertThrows(IllegalArgumentException.class, () -> UrlHash.of("not a url"));
    }

    @Test
    void randomPeerIdsAreValidAndDistinct() {
        Random r = new Random(3);
        PeerId a = PeerId.random(r);
        PeerId b = PeerId.random(r);
        assertNotEquals(a, b);
        assertTrue(Base64Order.isHash(a.value(), PeerId.LENGTH));
    }

    @Test
    void peerIdAtPositionLandsOnThatPosition() {
        Random r = new Random(5);
        for (int i = 0; i < 1000; i++) {
            long pos = r.nextLong() & RingPosition.MAX;
            PeerId p = PeerId.atPosition(pos, r);
            // a hash carries 60 bits; the low 3 bits of a position are always 1
            assertEquals(pos | 7, p.position());
        }
    }
}
