package org.peerdex.actors.dht.shard;

import java.util.ArrayList;
import java.util.List;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.wire.PrefixScores;
import org.peerdex.protocol.wire.UrlPrefixes;
import org.peerdex.protocol.wire.V1;
import org.peerdex.storage.rwi.HashBytes;
import org.peerdex.storage.rwi.Posting;

/**
 * A key's best URLs with their partial scores and nothing else: what a top lookup needs to rank and bound a list
 * ({@link ShardOwner.Lookup#scores}), at 11 bytes a URL instead of a posting's 40 to 50. Each entry is
 * {@code url[9] score[2]}, the score in units of 1/{@value #UNITS} rounded up and capped at the largest, so a
 * score below another never reads above it (a frontier stays a bound) and equal scores read equal. Nothing read
 * here is trusted beyond ordering what to ask next: a URL's postings are asked exactly before it is ranked.
 */
public final class ScoreList {
    /** Units of a point: partial scores run from 0 to about 35 under the default profile. */
    public static final int UNITS = 1024;
    /** Bytes of an entry, {@code url[9] score[2]}, as the protocol's {@link V1.KeyPostings#scores} reads it. */
    public static final int ENTRY_BYTES = V1.KeyPostings.SCORE_ENTRY;
    private static final int MAX = 0xffff;

    private ScoreList() {}

    /** One URL and its partial score, as read from a list. */
    public record Entry(UrlHash url, double score) {}

    /** A partial score as the list carries it: rounded up to a unit, at most the largest. */
    public static int units(double score) {
        if (!(score > 0)) return 0;
        double u = Math.ceil(score * UNITS);
        return u >= MAX ? MAX : (int) u;
    }

    /** The score a list's entry of {@link #units} reads back as. */
    public static double score(int units) {
        return (double) units / UNITS;
    }

    /** The postings' URLs and partial scores, in the order given. */
    public static byte[] of(List<Posting> postings) {
        return of(postings, WordPart.NONE);
    }

    /** The postings' URLs and scores under a query's shape ({@link WordPart}; NONE: partial scores), in order. */
    public static byte[] of(List<Posting> postings, int part) {
        byte[] out = new byte[postings.size() * ENTRY_BYTES];
        int pos = 0;
        for (Posting p : postings) {
            HashBytes.packInto(p.url().value(), out, pos);
            int u = units(WordPart.score(p, part));
            out[pos + HashBytes.PACKED] = (byte) (u >>> 8);
            out[pos + HashBytes.PACKED + 1] = (byte) u;
            pos += ENTRY_BYTES;
        }
        return out;
    }

    /**
     * The postings' URLs by prefix and their scores under a query's shape ({@link PrefixScores}, about 6 bytes a URL),
     * best first (as a holder ranks them).
     */
    public static byte[] ofPrefixes(List<Posting> postings, int part) {
        List<PrefixScores.Entry> entries = new ArrayList<>(postings.size());
        for (Posting p : postings) {
            entries.add(new PrefixScores.Entry(UrlPrefixes.of(p.url().value()), units(WordPart.score(p, part))));
        }
        return PrefixScores.write(entries);
    }

    /**
     * The entries of a list by prefix, each URL as its {@link #byPrefix} stand-in; throws IllegalArgumentException
     * when the list is malformed.
     */
    public static List<Entry> readPrefixed(byte[] bytes) {
        List<PrefixScores.Entry> es = PrefixScores.read(bytes, V1.KeyPostings.MAX_SCORES);
        List<Entry> out = new ArrayList<>(es.size());
        for (PrefixScores.Entry e : es) out.add(new Entry(new UrlHash(e.prefix() + PAD), score(e.units())));
        return out;
    }

    /** What a stand-in's hash has after the prefix. */
    private static final String PAD = "A".repeat(UrlHash.LENGTH - UrlPrefixes.CHARS);

    /**
     * The stand-in of a URL known by its prefix alone: its prefix and a fixed tail. A searcher that reads lists by
     * prefix keys every URL so until the URL's postings come (two URLs of a key that share a prefix are one until
     * then); the stand-in lies in the URL's partition, as the partition is the hash's first bits.
     */
    public static UrlHash byPrefix(UrlHash url) {
        String v = url.value();
        return v.endsWith(PAD) ? url : new UrlHash(UrlPrefixes.of(v) + PAD);
    }

    /** Every entry; throws IllegalArgumentException when the bytes are no whole number of entries or a hash is bad. */
    public static List<Entry> read(byte[] bytes) {
        if (bytes.length % ENTRY_BYTES != 0) {
            throw new IllegalArgumentException("a score list of " + bytes.length + " bytes");
        }
        List<Entry> out = new ArrayList<>(bytes.length / ENTRY_BYTES);
        for (int pos = 0; pos < bytes.length; pos += ENTRY_BYTES) {
            UrlHash url;
            try {
                url = new UrlHash(HashBytes.unpack(bytes, pos));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("malformed URL hash in a score list", e);
            }
            int u = (bytes[pos + HashBytes.PACKED] & 0xff) << 8 | bytes[pos + HashBytes.PACKED + 1] & 0xff;
            out.add(new Entry(url, score(u)));
        }
        return out;
    }

    /** How many entries {@code bytes} hold. */
    public static int count(byte[] bytes) {
        return bytes.length / ENTRY_BYTES;
    }
}
