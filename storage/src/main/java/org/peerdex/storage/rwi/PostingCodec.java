package org.peerdex.storage.rwi;

import java.nio.charset.StandardCharsets;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;

/**
 * The compact value of a posting: a version byte, then varints; positions are delta-coded. Word and URL hash
 * live in the key. A typical posting takes 15 to 25 bytes.
 */
public final class PostingCodec {
    private static final int VERSION = 1;
    /** the holder byte of a value whose holder is the one its container hands down (see {@link #encode(Posting, PeerId)}) */
    public static final int INHERITED_HOLDER = 2;

    private PostingCodec() {}

    public static byte[] encode(Posting p) {
        return encode(p, null);
    }

    /**
     * The value with its holder written as {@link #INHERITED_HOLDER} (one byte instead of ten) when it is
     * {@code inherited}: what a container that knows the holder of the posting before this one writes (a keyed
     * posting pack). Stored values never inherit.
     */
    public static byte[] encode(Posting p, PeerId inherited) {
        Varint.Sink out = SCRATCH.get();
        out.reset();
        out.write(VERSION);
        Varint.write(out, p.flags());
        Varint.write(out, p.hitCount());
        Varint.write(out, p.positions().length);
        int prev = 0;
        for (int pos : p.positions()) {
            Varint.write(out, Math.max(0, pos - prev));
            prev = pos;
        }
        Varint.write(out, p.wordsInText());
        Varint.write(out, p.wordsInTitle());
        Varint.write(out, p.lastModified());
        String lang = p.language();
        if (isAscii(lang)) {
            out.write(lang.length());
            for (int i = 0; i < lang.length(); i++) out.write(lang.charAt(i));
        } else {
            byte[] b = lang.getBytes(StandardCharsets.US_ASCII);
            out.write(b.length);
            out.writeBytes(b);
        }
        out.write(p.doctype() & 0x7f);
        Varint.write(out, p.linksLocal());
        Varint.write(out, p.linksOther());
        Varint.write(out, p.urlLength());
        Varint.write(out, p.urlComponents());
        Varint.write(out, p.expiresAt());
        if (p.holder() != null && p.holder().equals(inherited)) {
            out.write(INHERITED_HOLDER);
        } else if (p.holder() != null) {
            out.write(1);
            out.writeHash(p.holder().value());
        } else {
            out.write(0);
        }
        return out.toByteArray();
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) >= 0x80) return false;
        return true;
    }

    /** Each thread's encoding buffer: a posting is encoded into it and copied out at its size (one allocation). */
    private static final ThreadLocal<Varint.Sink> SCRATCH = ThreadLocal.withInitial(() -> new Varint.Sink(256));

    /** A reader past the version byte of an encoded posting, which must be this codec's. */
    private static Varint.Reader reader(byte[] value) {
        Varint.Reader r = new Varint.Reader(value, 0);
        int version = r.readByte();
        if (version != VERSION) throw new IllegalArgumentException("unknown posting version " + version);
        return r;
    }

    public static Posting decode(WordHash word, UrlHash url, byte[] value) {
        return decode(word, url, value, null);
    }

    /** Decodes a value whose holder may be {@code inherited} (null: it may not; such a value is malformed). */
    public static Posting decode(WordHash word, UrlHash url, byte[] value, PeerId inherited) {
        Varint.Reader r = reader(value);
        int flags = r.readInt();
        int hits = r.readInt();
        int n = r.readInt();
        if (n > Posting.MAX_POSITIONS) throw new IllegalArgumentException("too many positions");
        int[] positions = new int[n];
        int prev = 0;
        for (int i = 0; i < n; i++) {
            prev += r.readInt();
            positions[i] = prev;
        }
        int wordsInText = r.readInt();
        int wordsInTitle = r.readInt();
        int lastModified = r.readInt();
        int langLen = r.readByte();
        String lang = language(value, r.position(), langLen);
        r.skip(langLen);
        char doctype = (char) r.readByte();
        int linksLocal = r.readInt();
        int linksOther = r.readInt();
        int urlLength = r.readInt();
        int urlComponents = r.readInt();
        long expiresAt = r.read();
        PeerId holder = null;
        int holderByte = r.readByte();
        if (holderByte == 1) {
            int at = r.position();
            r.skip(HashBytes.PACKED);
            holder = new PeerId(HashBytes.unpack(value, at));
        } else if (holderByte == INHERITED_HOLDER) {
            if (inherited == null) throw new IllegalArgumentException("a holder to inherit where none is handed down");
            holder = inherited;
        } else if (holderByte != 0) {
            throw new IllegalArgumentException("bad holder byte " + holderByte);
        }
        return new Posting(word, url, holder, flags, hits, positions, wordsInText, wordsInTitle, lastModified,
                lang, doctype, linksLocal, linksOther, urlLength, urlComponents, expiresAt);
    }

    /** Two-letter codes already read, by letters ((first - 'a') * 26 + second - 'a'): a few dozen strings for all postings. */
    private static final String[] TWO_LETTER = new String[26 * 26];

    /** The language code of {@code length} bytes at {@code at} (as the bytes read as characters one by one). */
    private static String language(byte[] value, int at, int length) {
        if (length == 0) return "";
        if (at + length > value.length) throw new IllegalArgumentException("truncated");
        if (length == 2) {
            int a = value[at] - 'a';
            int b = value[at + 1] - 'a';
            if (a >= 0 && a < 26 && b >= 0 && b < 26) {
                String s = TWO_LETTER[a * 26 + b];
                // a race at most makes two equal strings
                if (s == null) TWO_LETTER[a * 26 + b] = s = new String(value, at, 2, StandardCharsets.ISO_8859_1);
                return s;
            }
        }
        return new String(value, at, length, StandardCharsets.ISO_8859_1);
    }

    /** The fields of an encoded posting a block's ceiling keeps, without decoding the rest. */
    public record Summary(int flags, int hitCount, int wordsInText, int firstPosition, int lastModified) {}

    public static Summary summary(byte[] value) {
        Varint.Reader r = reader(value);
        int flags = r.readInt();
        int hits = r.readInt();
        int n = r.readInt();
        int first = -1;
        for (int i = 0; i < n; i++) {
            int d = r.readInt();
            if (i == 0) first = d;
        }
        int wordsInText = r.readInt();
        r.read(); // words in title
        int lastModified = r.readInt();
        return new Summary(flags, hits, wordsInText, first < 0 ? wordsInText : first, lastModified);
    }

    /** The flags of an encoded posting, without decoding the rest. */
    public static int flags(byte[] value) {
        Varint.Reader r = reader(value);
        return r.readInt();
    }

    /**
     * Where the packed holder id of an encoded posting starts ({@link HashBytes#PACKED} bytes), or -1 if it has
     * none (this peer's own crawl); without decoding the posting.
     */
    public static int holderOffset(byte[] value) {
        Varint.Reader r = reader(value);
        r.read(); // flags
        r.read(); // hit count
        int n = r.readInt();
        for (int i = 0; i < n; i++) r.read();
        r.read(); // words in text
        r.read(); // words in title
        r.read(); // last modified
        r.skip(r.readByte()); // language
        r.readByte(); // doctype
        for (int i = 0; i < 5; i++) r.read(); // links local, links other, URL length, URL components, expiry
        if (r.readByte() != 1) return -1;
        int at = r.position();
        if (at + HashBytes.PACKED > value.length) throw new IllegalArgumentException("truncated holder");
        return at;
    }
}
