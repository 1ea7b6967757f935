package org.peerdex.protocol.ring;

import org.peerdex.protocol.hash.Base64Order;

/**
 * Positions on the ring: the first 10 hash characters as 60 bits, shifted left by 3 with the low bits set, which
 * gives a positive 63-bit long (YaCy's cardinal). Distances are measured clockwise, modulo 2^63.
 */
public final class RingPosition {
    /** The ring's size is 2^63; positions lie in [0, Long.MAX_VALUE]. */
    public static final long MAX = Long.MAX_VALUE;

    private RingPosition() {}

    public static long of(String hash) {
        long c = 0;
        int n = Math.min(10, hash.length());
        for (int i = 0; i < n; i++) {
            int v = Base64Order.value(hash.charAt(i));
            if (v < 0) throw new IllegalArgumentException("not a hash: " + hash);
            c = (c << 6) | v;
        }
        for (int i = n; i < 10; i++) c <<= 6;
        return (c << 3) | 7;
    }

    /** The position of a digest's first 60 bits, as {@link #of} reads 10 hash characters of them. */
    public static long ofDigest(byte[] digest) {
        if (digest.length < 8) throw new IllegalArgumentException("digest too short: " + digest.length);
        long c = 0;
        for (int i = 0; i < 8; i++) c = (c << 8) | (digest[i] & 0xff);
        return ((c >>> 4) << 3) | 7;
    }

    /** The 10 hash characters whose position is the greatest one not above {@code position}. */
    public static String toHashPrefix(long position) {
        long bits = position >>> 3;
        char[] c = new char[10];
        for (int i = 9; i >= 0; i--) {
            c[i] = Base64Order.character((int) (bits & 63));
            bits >>>= 6;
        }
        return new String(c);
    }

    /** Clockwise distance from {@code from} to {@code to}, in [0, 2^63). */
    public static long distance(long from, long to) {
        return (to - from) & MAX;
    }
}
