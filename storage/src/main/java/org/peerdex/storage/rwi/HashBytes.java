package org.peerdex.storage.rwi;

import org.peerdex.protocol.hash.Base64Order;

/**
 * Packs a 12-character hash into 9 bytes, big-endian, 6 bits a character. Byte order of the packed form equals
 * the alphabet order of the hash and so the ring order (ASCII order would not: '-' and digits sort before 'A').
 */
public final class HashBytes {
    public static final int PACKED = 9;

    private HashBytes() {}

    public static byte[] pack(String hash) {
        byte[] out = new byte[PACKED];
        packInto(hash, out, 0);
        return out;
    }

    public static void packInto(String hash, byte[] out, int off) {
        if (hash.length() != 12) throw new IllegalArgumentException("hash must have 12 characters: " + hash);
        for (int g = 0; g < 3; g++) {
            int v = 0;
            for (int i = 0; i < 4; i++) {
                int c = Base64Order.value(hash.charAt(g * 4 + i));
                if (c < 0) throw new IllegalArgumentException("not a hash: " + hash);
                v = (v << 6) | c;
            }
            out[off + g * 3] = (byte) (v >>> 16);
            out[off + g * 3 + 1] = (byte) (v >>> 8);
            out[off + g * 3 + 2] = (byte) v;
        }
    }

    public static String unpack(byte[] in, int off) {
        char[] c = new char[12];
        for (int g = 0; g < 3; g++) {
            int v = ((in[off + g * 3] & 0xff) << 16) | ((in[off + g * 3 + 1] & 0xff) << 8) | (in[off + g * 3 + 2] & 0xff);
            for (int i = 3; i >= 0; i--) {
                c[g * 4 + i] = Base64Order.character(v & 63);
                v >>>= 6;
            }
        }
        return new String(c);
    }

    /** The ring position of the packed hash at {@code off} (as {@code RingPosition.of} of its characters). */
    public static long position(byte[] in, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) v = (v << 8) | (in[off + i] & 0xff);
        // the first 10 characters are the top 60 of these 64 bits
        return ((v >>> 4) << 3) | 7;
    }
}
