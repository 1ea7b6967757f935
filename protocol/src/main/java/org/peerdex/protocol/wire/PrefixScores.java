package org.peerdex.protocol.wire;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.peerdex.protocol.hash.Base64Order;

/**
 * A score list whose URLs are named by their prefixes ({@link UrlPrefixes#CHARS} characters of the hash), for an
 * asker that names URLs by prefix anyway: a top lookup's answer is read only to choose what to ask next, and what is
 * asked next (completions, the candidates' postings) goes by prefix. About 6 bytes a URL instead of 11.
 * <p>
 * Layout: {@code entry*}, best first, where {@code entry = prefix[5] varint(drop)}: the prefix's 36 bits (6 bits a
 * character in YaCy's alphabet, big-endian, the last 4 bits of the 5 bytes zero) and how many units the entry's
 * score lies below the one before it (the first: below {@value #MAX_UNITS}). Scores never rise along a list, so the
 * drops are small: a byte each for nearly every entry of a top lookup. Reading refuses a cut entry, spare bits set,
 * scores below 0 or more entries than the bound.
 */
public final class PrefixScores {
    /** The largest score, in units, as a list carries it. */
    public static final int MAX_UNITS = 0xffff;
    /** Bytes of an entry's prefix. */
    public static final int PREFIX_BYTES = 5;
    /** The fewest bytes an entry takes (a prefix and a one-byte drop). */
    public static final int MIN_ENTRY_BYTES = PREFIX_BYTES + 1;
    /**
     * What an entry costs, about, for an asker weighing a list's bytes: a prefix and a drop of one byte or, now and
     * then, two (a list's first entry and the steps in a long list's tail).
     */
    public static final double TYPICAL_ENTRY_BYTES = PREFIX_BYTES + 1.5;

    private PrefixScores() {}

    /** One URL prefix and its score in units (0..{@value #MAX_UNITS}). */
    public record Entry(String prefix, int units) {
        public Entry {
            if (prefix == null || !Base64Order.isHash(prefix, UrlPrefixes.CHARS)) {
                throw new IllegalArgumentException("not a URL prefix: " + prefix);
            }
            if (units < 0 || units > MAX_UNITS) throw new IllegalArgumentException("score out of range: " + units);
        }
    }

    /** The entries, best first; IllegalArgumentException when a score rises along the list. */
    public static byte[] write(List<Entry> entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(entries.size() * (MIN_ENTRY_BYTES + 1));
        int last = MAX_UNITS;
        for (Entry e : entries) {
            if (e.units() > last) throw new IllegalArgumentException("scores must not rise along a list");
            long v = 0;
            for (int i = 0; i < UrlPrefixes.CHARS; i++) v = (v << 6) | Base64Order.value(e.prefix().charAt(i));
            v <<= 4;
            for (int shift = 32; shift >= 0; shift -= 8) out.write((int) (v >>> shift));
            PackedBytes.varint(out, last - e.units());
            last = e.units();
        }
        return out.toByteArray();
    }

    /**
     * How many entries a list holds, counted without reading them (each is a prefix and a varint whose last byte has
     * the high bit clear); a cut last entry is not counted. For a list already checked by {@link #read}.
     */
    public static int count(byte[] bytes) {
        int n = 0;
        int pos = 0;
        while (pos + PREFIX_BYTES < bytes.length) {
            pos += PREFIX_BYTES;
            while (pos < bytes.length && (bytes[pos] & 0x80) != 0) pos++;
            if (pos >= bytes.length) break;
            pos++;
            n++;
        }
        return n;
    }

    /** Every entry; IllegalArgumentException when the list is malformed or holds more than {@code max}. */
    public static List<Entry> read(byte[] bytes, int max) {
        PackedBytes.Reader r = new PackedBytes.Reader(bytes, "prefix scores");
        List<Entry> out = new ArrayList<>(Math.min(max, bytes.length / MIN_ENTRY_BYTES));
        long last = MAX_UNITS;
        char[] c = new char[UrlPrefixes.CHARS];
        while (r.pos < bytes.length) {
            if (out.size() >= max) throw new IllegalArgumentException("more than " + max + " scores");
            long v = 0;
            for (int i = 0; i < PREFIX_BYTES; i++) v = (v << 8) | r.octet();
            if ((v & 0xf) != 0) throw new IllegalArgumentException("spare bits set in a prefix score");
            v >>>= 4;
            for (int i = UrlPrefixes.CHARS - 1; i >= 0; i--) {
                c[i] = Base64Order.character((int) (v & 0x3f));
                v >>>= 6;
            }
            long units = last - r.varint();
            if (units < 0) throw new IllegalArgumentException("a prefix score below 0");
            out.add(new Entry(new String(c), (int) units));
            last = units;
        }
        return out;
    }
}
