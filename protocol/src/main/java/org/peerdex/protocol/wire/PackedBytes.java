package org.peerdex.protocol.wire;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import org.peerdex.protocol.hash.Base64Order;

/**
 * The parts the protocol's byte layouts ({@link PackedPostings}, {@link JoinTable}) are made of: a hash packed into
 * 9 bytes, 6 bits a character in YaCy's alphabet, big-endian; unsigned LEB128 varints; and a reader of them for which
 * every read past the end, or a varint out of range, makes the whole layout malformed.
 */
final class PackedBytes {
    static final int HASH_BYTES = 9;

    private PackedBytes() {}

    static void writeHash(ByteArrayOutputStream out, String hash) {
        for (int g = 0; g < 3; g++) {
            int v = 0;
            for (int i = 0; i < 4; i++) v = (v << 6) | Base64Order.value(hash.charAt(g * 4 + i));
            out.write(v >>> 16);
            out.write(v >>> 8);
            out.write(v);
        }
    }

    static void varint(ByteArrayOutputStream out, long v) {
        if (v < 0) throw new IllegalArgumentException("varints are unsigned: " + v);
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    /** Reads one layout; its name tells what a read past the end cut short ("truncated " + name). */
    static final class Reader {
        private final byte[] buf;
        private final String truncated;
        int pos;

        Reader(byte[] buf, String name) {
            this.buf = buf;
            this.truncated = "truncated " + name;
        }

        int octet() {
            if (pos >= buf.length) throw new IllegalArgumentException(truncated);
            return buf[pos++] & 0xff;
        }

        long varint() {
            long result = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                int b = octet();
                result |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    if (result < 0) throw new IllegalArgumentException("varint out of range");
                    return result;
                }
            }
            throw new IllegalArgumentException("varint too long");
        }

        int integer() {
            long v = varint();
            if (v > Integer.MAX_VALUE) throw new IllegalArgumentException("varint out of int range");
            return (int) v;
        }

        /** A count of items of at least {@code least} bytes each: one the bytes left cannot hold is a lie. */
        int count(int least) {
            int n = integer();
            if ((long) n * least > buf.length - pos) throw new IllegalArgumentException("a count beyond the bytes sent");
            return n;
        }

        byte[] bytes(int n) {
            if (n < 0 || n > buf.length - pos) throw new IllegalArgumentException(truncated);
            byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
            pos += n;
            return out;
        }

        String hash() {
            if (pos + HASH_BYTES > buf.length) throw new IllegalArgumentException(truncated);
            char[] c = new char[12];
            for (int g = 0; g < 3; g++) {
                int v = ((buf[pos] & 0xff) << 16) | ((buf[pos + 1] & 0xff) << 8) | (buf[pos + 2] & 0xff);
                pos += 3;
                for (int i = 3; i >= 0; i--) {
                    c[g * 4 + i] = Base64Order.character(v & 63);
                    v >>>= 6;
                }
            }
            return new String(c);
        }
    }
}
