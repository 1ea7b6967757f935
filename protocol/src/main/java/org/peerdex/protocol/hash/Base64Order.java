package org.peerdex.protocol.hash;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * YaCy's "enhanced Base64": the alphabet {@code A-Z a-z 0-9 - _}, which is also the sort order of hashes.
 * Three bytes become four characters, big-endian, with no padding.
 */
public final class Base64Order {
    public static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    private static final char[] CHARS = ALPHABET.toCharArray();
    private static final byte[] VALUES = new byte[128];

    static {
        Arrays.fill(VALUES, (byte) -1);
        for (int i = 0; i < CHARS.length; i++) VALUES[CHARS[i]] = (byte) i;
    }

    private Base64Order() {}

    /** Encodes bytes; the last group may give 2 or 3 characters (no padding). */
    public static String encode(byte[] in) {
        StringBuilder out = new StringBuilder((in.length * 4 + 2) / 3);
        int i = 0;
        for (; i + 2 < in.length; i += 3) {
            int v = ((in[i] & 0xff) << 16) | ((in[i + 1] & 0xff) << 8) | (in[i + 2] & 0xff);
            out.append(CHARS[(v >>> 18) & 63]).append(CHARS[(v >>> 12) & 63])
               .append(CHARS[(v >>> 6) & 63]).append(CHARS[v & 63]);
        }
        int rest = in.length - i;
        if (rest == 1) {
            int v = (in[i] & 0xff) << 16;
            out.append(CHARS[(v >>> 18) & 63]).append(CHARS[(v >>> 12) & 63]);
        } else if (rest == 2) {
            int v = ((in[i] & 0xff) << 16) | ((in[i + 1] & 0xff) << 8);
            out.append(CHARS[(v >>> 18) & 63]).append(CHARS[(v >>> 12) & 63]).append(CHARS[(v >>> 6) & 63]);
        }
        return out.toString();
    }

    /** The 6-bit value of one alphabet character, or -1 if it is not in the alphabet. */
    public static int value(char c) {
        return c < 128 ? VALUES[c] : -1;
    }

    public static char character(int sixBits) {
        return CHARS[sixBits & 63];
    }

    /** True if every character of {@code s} is in the alphabet and it has the given length. */
    /**
     * Compares two hash strings in the order of the alphabet (A..Z a..z 0..9 - _), which is the order of their ring
     * positions and of the RWI's keys; plain String order differs ('-', digits and upper case sort differently) and
     * would break merge joins over stored posting lists.
     */
    public static int compare(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i), y = b.charAt(i);
            if (x != y) return Integer.compare(value(x), value(y));
        }
        return Integer.compare(a.length(), b.length());
    }

    public static boolean isHash(String s, int length) {
        if (s == null || s.length() != length) return false;
        for (int i = 0; i < s.length(); i++) if (value(s.charAt(i)) < 0) return false;
        return true;
    }

    /** The MD5 digest of the UTF-8 bytes of {@code s}. */
    public static byte[] md5(String s) {
        try {
            return MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required by every JVM", e);
        }
    }

    public static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JVM", e);
        }
    }

    /** The first {@code n} characters of the enhanced-Base64 MD5 of {@code s}. */
    public static String md5Prefix(String s, int n) {
        return encode(md5(s)).substring(0, n);
    }
}
