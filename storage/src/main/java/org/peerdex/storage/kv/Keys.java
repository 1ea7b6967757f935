package org.peerdex.storage.kv;

import java.util.Arrays;

/** Helpers for composite byte keys. */
public final class Keys {
    private Keys() {}

    public static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) n += p.length;
        byte[] out = new byte[n];
        int o = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, o, p.length);
            o += p.length;
        }
        return out;
    }

    public static byte[] of(byte keyspace, byte[]... parts) {
        byte[][] all = new byte[parts.length + 1][];
        all[0] = new byte[] {keyspace};
        System.arraycopy(parts, 0, all, 1, parts.length);
        return concat(all);
    }

    /** The smallest key greater than every key with this prefix, or null if there is none. */
    public static byte[] prefixEnd(byte[] prefix) {
        byte[] end = Arrays.copyOf(prefix, prefix.length);
        for (int i = end.length - 1; i >= 0; i--) {
            if ((end[i] & 0xff) != 0xff) {
                end[i]++;
                return Arrays.copyOf(end, i + 1);
            }
        }
        return null;
    }

    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    public static boolean startsWith(byte[] key, byte[] prefix) {
        if (key.length < prefix.length) return false;
        return Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
