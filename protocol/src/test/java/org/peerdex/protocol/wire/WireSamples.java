package org.peerdex.protocol.wire;

import java.util.List;
import org.peerdex.protocol.filter.BloomFilter;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.identity.SignedPeerRecord;

/** Fixed bodies of every message (no clock, no randomness but a key), for round trips and golden bytes. */
final class WireSamples {
    static final String WORD = WordHash.of("postgres").value();
    static final String OTHER_WORD = WordHash.of("vacuum").value();
    static final String URL_A = "https://www.postgresql.org/docs/15/sql-vacuum.html";
    static final String URL_B = "https://www.postgresql.org/docs/15/routine-vacuuming.html";
    static final String HASH_A = UrlHash.of(URL_A).value();
    static final String HASH_B = UrlHash.of(URL_B).value();
    static final String HOLDER = new PeerId("AbCdEfGh_-12").value();

    private WireSamples() {}

    static V1.Posting posting(String word, String url, String holder) {
        return new V1.Posting(word, url, holder, 0b10_0000_0011, 4, new int[] {3, 17, 90, 1400}, 2210, 5, 19_700,
                "en", 'h', 12, 3, URL_A.length(), 4, 0);
    }

    static V1.UrlRecord record() {
        return new V1.UrlRecord(HASH_A, URL_A, "VACUUM", "garbage-collect and optionally analyze a database",
                "The PostgreSQL Global Development Group", List.of("vacuum", "maintenance"), "en", "h",
                "text/html", 24_117, 1_700_000_000_000L, 1_700_000_500_000L, 40, 2, 2210, HOLDER,
                "Zm9vYmFyYmF6", List.of("VACUUM", "Synopsis", "Description"));
    }

    static V1.Bloom bloom() {
        BloomFilter f = BloomFilter.of(List.of(HASH_A, HASH_B), 10);
        return new V1.Bloom(f.hashes(), f.bits());
    }

    static V1.StoreRequest store() {
        V1.Postings pack = PackedPostings.pack(List.of(posting(WORD, HASH_A, ""), posting(OTHER_WORD, HASH_B, HOLDER)));
        return new V1.StoreRequest(7, pack, List.of(record()));
    }

    static V1.LookupRequest lookup() {
        return new V1.LookupRequest(42, List.of(
                new V1.Lookup(new V1.Key(WORD, 3), bloom(), null, 100),
                new V1.Lookup(new V1.Key(OTHER_WORD, 3), null, List.of(HASH_A, HASH_B), 10)));
    }

    static V1.LookupReply lookupReply() {
        return new V1.LookupReply(42, List.of(new V1.KeyPostings(new V1.Key(WORD, 3),
                PackedPostings.pack(List.of(posting(WORD, HASH_A, HOLDER))), 31, true)), null);
    }

    /** One body of every type of V1; the records are signed with a fresh key, so only their shape is fixed. */
    static List<V1.Body> everyBody() {
        PeerKeys keys = PeerKeys.generate(0);
        SignedPeerRecord self = SignedPeerRecord.sign(keys, "peerdex", "192.0.2.7:8070", true, 1_700_000_000_000L,
                java.time.Duration.ofMinutes(30), false);
        SignedPeerRecord other = SignedPeerRecord.sign(PeerKeys.generate(0), "peerdex", "198.51.100.3:8070", false,
                1_700_000_000_000L, java.time.Duration.ofMinutes(30), true);
        return List.of(
                new V1.Hello(self),
                new V1.HelloReply(self, List.of(other), true),
                new V1.Leave(other),
                new V1.CountRequest(1, List.of(new V1.Key(WORD, 0), new V1.Key(OTHER_WORD, 255))),
                new V1.CountReply(1, List.of(12, 0), null),
                new V1.FilterRequest(2, List.of(new V1.Key(WORD, 1)), 10),
                new V1.FilterReply(2, List.of(bloom()), List.of(2), null),
                lookup(),
                lookupReply(),
                new V1.MetadataRequest(3, List.of(HASH_A, HASH_B)),
                new V1.MetadataReply(3, List.of(record()), "partly: store busy"),
                store(),
                new V1.StoreReply(7, V1.Outcome.BUSY, 0, "busy", 1500),
                new V1.DigestRequest(9, List.of(new V1.Digest("p", HOLDER, 511, 1200, -4_611_686_018_427_387_904L),
                        new V1.Digest("m", HOLDER, 0, 3, 77))),
                new V1.DigestReply(9, List.of(new V1.DigestRange("p", HOLDER, 511)), null));
    }
}
