package org.peerdex.protocol.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The byte layout of {@link V1.Postings}, owned by the protocol (the index's storage codec may change without
 * changing it): about 40 bytes a posting, where CBOR maps with field names would take ~250. Per posting:
 * <pre>
 * word[9] url[9] varint(len) value[len]
 * value = 0x01 varint(flags) varint(hitCount) varint(n) varint(position delta)*n varint(wordsInText)
 *         varint(wordsInTitle) varint(lastModified) byte(langLen) lang[langLen] byte(doctype) varint(linksLocal)
 *         varint(linksOther) varint(urlLength) varint(urlComponents) varint(expiresAt) (0x00 | 0x01 holder[9])
 * </pre>
 * A hash packs its 12 characters into 9 bytes, 6 bits each (YaCy's alphabet, big-endian); varints are unsigned
 * LEB128; positions are delta-coded. Any malformed byte, a trailing byte or a count that does not match makes
 * the whole pack malformed.
 * <p>
 * The <b>keyed</b> layout ({@link V1.Postings#keyed}) answers one key, so every posting has the key's word: it is
 * not written, and a holder the same as the posting before's is written as one byte:
 * <pre>
 * url[9] varint(len) value[len]      value as above, but its last part (0x00 | 0x01 holder[9] | 0x02)
 * </pre>
 * where 0x02 means the holder of the posting before it in the pack (never the first's). About 18 bytes less a
 * posting of a lookup answer.
 */
public final class PackedPostings {
    /** at most this many word positions per posting */
    public static final int MAX_POSITIONS = 16;
    /** at most this many characters of language code */
    public static final int MAX_LANGUAGE = 8;
    private static final int HASH_BYTES = PackedBytes.HASH_BYTES;
    private static final int VALUE_VERSION = 1;
    /** a keyed pack's holder byte: the holder of the posting before */
    private static final int INHERITED_HOLDER = 2;
    private static final int MIN_POSTING_BYTES = 2 * HASH_BYTES + 1 + 15;

    private PackedPostings() {}

    public static V1.Postings pack(List<V1.Posting> postings) {
        return pack(postings, false);
    }

    /** The postings in the keyed layout (all of one word, which is not written) or the plain one. */
    public static V1.Postings pack(List<V1.Posting> postings, boolean keyed) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(postings.size() * 40);
        ByteArrayOutputStream value = new ByteArrayOutputStream(32);
        String word = null;
        String previousHolder = null;
        for (V1.Posting p : postings) {
            if (keyed) {
                if (word == null) word = p.word();
                else if (!word.equals(p.word())) throw new IllegalArgumentException("a keyed pack holds one word");
            } else {
                PackedBytes.writeHash(out, p.word());
            }
            PackedBytes.writeHash(out, p.url());
            value.reset();
            value.write(VALUE_VERSION);
            PackedBytes.varint(value, p.flags());
            PackedBytes.varint(value, p.hitCount());
            PackedBytes.varint(value, p.positions().length);
            int prev = 0;
            for (int pos : p.positions()) {
                PackedBytes.varint(value, Math.max(0, pos - prev));
                prev = pos;
            }
            PackedBytes.varint(value, p.wordsInText());
            PackedBytes.varint(value, p.wordsInTitle());
            PackedBytes.varint(value, p.lastModified());
            byte[] lang = p.language().getBytes(StandardCharsets.US_ASCII);
            value.write(lang.length);
            value.writeBytes(lang);
            value.write(p.doctype() & 0x7f);
            PackedBytes.varint(value, p.linksLocal());
            PackedBytes.varint(value, p.linksOther());
            PackedBytes.varint(value, p.urlLength());
            PackedBytes.varint(value, p.urlComponents());
            PackedBytes.varint(value, p.expiresAt());
            if (p.holder().isEmpty()) {
                value.write(0);
            } else if (keyed && p.holder().equals(previousHolder)) {
                value.write(INHERITED_HOLDER);
            } else {
                value.write(1);
                PackedBytes.writeHash(value, p.holder());
            }
            previousHolder = p.holder();
            PackedBytes.varint(out, value.size());
            out.write(value.toByteArray(), 0, value.size());
        }
        return new V1.Postings(postings.size(), out.toByteArray(), keyed && !postings.isEmpty());
    }

    /** Every posting of a plain pack; throws IllegalArgumentException on any malformed byte, or a keyed pack. */
    public static List<V1.Posting> unpack(V1.Postings pack) {
        return unpack(pack, null);
    }

    /**
     * Every posting of the pack, those of a keyed pack as postings of {@code keyWord} (the word of the key it
     * answers); throws IllegalArgumentException on any malformed byte, or a keyed pack without a word.
     */
    public static List<V1.Posting> unpack(V1.Postings pack, String keyWord) {
        if (pack.keyed() && keyWord == null) throw new IllegalArgumentException("a keyed posting pack read without its key");
        PackedBytes.Reader r = new PackedBytes.Reader(pack.bytes(), "posting pack");
        // each posting takes at least its hashes, a length byte and a value of 15 bytes: a count beyond that is a lie
        int least = pack.keyed() ? MIN_POSTING_BYTES - HASH_BYTES : MIN_POSTING_BYTES;
        if (pack.count() > pack.bytes().length / least) {
            throw new IllegalArgumentException("posting count beyond the bytes sent");
        }
        List<V1.Posting> out = new ArrayList<>(pack.count());
        String previousHolder = null;
        for (int i = 0; i < pack.count(); i++) {
            String word = pack.keyed() ? keyWord : r.hash();
            String url = r.hash();
            int len = r.integer();
            int end = r.pos + len;
            if (len <= 0 || end > pack.bytes().length) throw new IllegalArgumentException("bad posting length");
            if (r.octet() != VALUE_VERSION) throw new IllegalArgumentException("unknown posting layout");
            int flags = r.integer();
            int hits = r.integer();
            int n = r.integer();
            if (n > MAX_POSITIONS) throw new IllegalArgumentException("too many positions");
            int[] positions = new int[n];
            int prev = 0;
            for (int k = 0; k < n; k++) {
                prev += r.integer();
                if (prev < 0) throw new IllegalArgumentException("position out of range");
                positions[k] = prev;
            }
            int wordsInText = r.integer();
            int wordsInTitle = r.integer();
            int lastModified = r.integer();
            int langLen = r.octet();
            if (langLen > MAX_LANGUAGE) throw new IllegalArgumentException("language code too long");
            StringBuilder lang = new StringBuilder(langLen);
            for (int k = 0; k < langLen; k++) lang.append((char) r.octet());
            char doctype = (char) r.octet();
            int linksLocal = r.integer();
            int linksOther = r.integer();
            int urlLength = r.integer();
            int urlComponents = r.integer();
            long expiresAt = r.varint();
            int hasHolder = r.octet();
            String holder;
            if (hasHolder == 0) holder = "";
            else if (hasHolder == 1) holder = r.hash();
            else if (hasHolder == INHERITED_HOLDER && pack.keyed() && previousHolder != null && !previousHolder.isEmpty()) {
                holder = previousHolder;
            } else throw new IllegalArgumentException("bad holder flag");
            previousHolder = holder;
            if (r.pos != end) throw new IllegalArgumentException("posting length does not match its value");
            out.add(new V1.Posting(word, url, holder, flags, hits, positions, wordsInText, wordsInTitle, lastModified,
                    lang.toString(), doctype, linksLocal, linksOther, urlLength, urlComponents, expiresAt));
        }
        if (r.pos != pack.bytes().length) throw new IllegalArgumentException("trailing bytes in posting pack");
        return out;
    }
}
