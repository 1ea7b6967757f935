package org.peerdex.actors.dht.shard;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.wire.LeftOut;
import org.peerdex.storage.rwi.HashBytes;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;
import org.peerdex.storage.rwi.Varint;

/**
 * Postings on the wire: the index's own compact codec (packed hashes, varints), about 40 bytes a posting instead
 * of ~250 as CBOR objects with field names. The receiver decodes and validates; garbage is a malformed message.
 * <p>
 * A <b>keyed</b> pack holds postings of one word, the word of the key it answers, and writes neither that word
 * nor a holder equal to the posting before's: {@code (url[9] varint(len) value[len])*}, where a value's holder
 * byte may be {@link PostingCodec#INHERITED_HOLDER}. That is about 18 of some 50 bytes less a posting of a lookup
 * answer, where every posting has the key's word and most share one crawler. Only an asker that says it reads
 * them gets keyed packs ({@link ShardOwner.LookupRequest#keyed}); an older asker never does, and an older holder
 * ignores the flag and answers with plain packs, which every reader reads.
 *
 * @param count number of postings packed
 * @param bytes {@code (word[9] url[9] varint(len) value[len])*}, or keyed as above
 * @param keyed whether the pack is keyed (not written when it is not)
 */
public record PostingPack(int count, byte[] bytes, @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean keyed)
        implements LeftOut {
    public static final PostingPack EMPTY = new PostingPack(0, new byte[0]);

    /**
     * No postings, and none written: where an answer has no postings by its kind (a presence answer, see
     * {@link ShardOwner.KeyPostings#held}), the field is left out of the message and read back as {@link #EMPTY}.
     */
    public static final PostingPack NONE = new PostingPack(0, new byte[0]);

    @Override
    public boolean omitted() {
        return this == NONE;
    }

    public PostingPack {
        if (count < 0 || bytes == null) throw new IllegalArgumentException("bad posting pack");
    }

    public PostingPack(int count, byte[] bytes) {
        this(count, bytes, false);
    }

    public static PostingPack of(List<Posting> postings) {
        return of(postings, false);
    }

    /**
     * The postings packed, keyed or plain; a keyed pack's postings must all be of one word (the key's: the reader
     * takes it from there).
     */
    public static PostingPack of(List<Posting> postings, boolean keyed) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(postings.size() * 40);
        byte[] hash = new byte[HashBytes.PACKED];
        PeerId previous = null;
        WordHash word = null;
        for (Posting p : postings) {
            if (keyed) {
                if (word == null) word = p.word();
                else if (!word.equals(p.word())) throw new IllegalArgumentException("a keyed pack holds one word");
            } else {
                HashBytes.packInto(p.word().value(), hash, 0);
                out.writeBytes(hash);
            }
            HashBytes.packInto(p.url().value(), hash, 0);
            out.writeBytes(hash);
            byte[] v = PostingCodec.encode(p, keyed ? previous : null);
            previous = p.holder();
            Varint.write(out, v.length);
            out.writeBytes(v);
        }
        return new PostingPack(postings.size(), out.toByteArray(), keyed && !postings.isEmpty());
    }

    /** Decodes every posting of a plain pack; throws IllegalArgumentException on any malformed byte or a keyed pack. */
    public List<Posting> postings() {
        return postings(null);
    }

    /**
     * Decodes every posting, those of a keyed pack as postings of {@code keyWord} (a plain pack names its own
     * words); throws IllegalArgumentException on any malformed byte, or a keyed pack without a word.
     */
    public List<Posting> postings(WordHash keyWord) {
        if (keyed && keyWord == null) throw new IllegalArgumentException("a keyed posting pack read without its key");
        int hashes = keyed ? 1 : 2;
        List<Posting> out = new ArrayList<>(Math.min(count, 1 << 16));
        int pos = 0;
        PeerId previous = null;
        for (int i = 0; i < count; i++) {
            if (pos + hashes * HashBytes.PACKED > bytes.length) throw new IllegalArgumentException("truncated posting pack");
            WordHash w = keyed ? keyWord : new WordHash(HashBytes.unpack(bytes, pos));
            UrlHash u = new UrlHash(HashBytes.unpack(bytes, pos + (hashes - 1) * HashBytes.PACKED));
            pos += hashes * HashBytes.PACKED;
            int len = 0;
            int shift = 0;
            while (true) {
                if (pos >= bytes.length || shift > 28) throw new IllegalArgumentException("bad posting length");
                int b = bytes[pos++] & 0xff;
                len |= (b & 0x7f) << shift;
                if ((b & 0x80) == 0) break;
                shift += 7;
            }
            if (len <= 0 || pos + len > bytes.length) throw new IllegalArgumentException("bad posting length");
            byte[] v = Arrays.copyOfRange(bytes, pos, pos + len);
            try {
                Posting p = PostingCodec.decode(w, u, v, keyed ? previous : null);
                previous = p.holder();
                out.add(p);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("malformed posting: " + e.getMessage(), e);
            }
            pos += len;
        }
        if (pos != bytes.length) throw new IllegalArgumentException("trailing bytes in posting pack");
        return out;
    }

    public int byteSize() {
        return bytes.length;
    }
}
