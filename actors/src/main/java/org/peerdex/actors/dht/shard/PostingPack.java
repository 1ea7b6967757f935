package org.peerdex.actors.dht.shard;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 *
 * @param count number of postings packed
 * @param bytes {@code (word[9] url[9] varint(len) value[len])*}
 */
public record PostingPack(int count, byte[] bytes) implements LeftOut {
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

    public static PostingPack of(List<Posting> postings) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(postings.size() * 40);
        byte[] hash = new byte[HashBytes.PACKED];
        for (Posting p : postings) {
            HashBytes.packInto(p.word().value(), hash, 0);
            out.writeBytes(hash);
            HashBytes.packInto(p.url().value(), hash, 0);
            out.writeBytes(hash);
            byte[] v = PostingCodec.encode(p);
            Varint.write(out, v.length);
            out.writeBytes(v);
        }
        return new PostingPack(postings.size(), out.toByteArray());
    }

    /** Decodes every posting; throws IllegalArgumentException on any malformed byte. */
    public List<Posting> postings() {
        List<Posting> out = new ArrayList<>(Math.min(count, 1 << 16));
        int pos = 0;
        for (int i = 0; i < count; i++) {
            if (pos + 2 * HashBytes.PACKED > bytes.length) throw new IllegalArgumentException("truncated posting pack");
            WordHash w = new WordHash(HashBytes.unpack(bytes, pos));
            UrlHash u = new UrlHash(HashBytes.unpack(bytes, pos + HashBytes.PACKED));
            pos += 2 * HashBytes.PACKED;
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
                out.add(PostingCodec.decode(w, u, v));
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
