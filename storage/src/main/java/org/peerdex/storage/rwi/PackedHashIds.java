package org.peerdex.storage.rwi;

/**
 * Int ids by packed 9-byte hash ({@link HashBytes}), open addressing on the first 8 bytes with the ninth kept
 * beside them: a lookup from a stored key or value makes no objects (decoding the hash to a string and a checked
 * record was a quarter of a 500-peer churn run's replica counts, and a share of every rebalance plan). Not
 * thread-safe for writes; reads of a table no longer written are.
 */
public final class PackedHashIds {
    private long[] heads = new long[64];
    private byte[] tails = new byte[64];
    /** id + 1; 0 is an empty slot */
    private int[] ids = new int[64];
    private int size;

    /** Maps the packed hash at {@code off} of {@code b} to {@code id} (≥ 0), replacing an id it had. */
    public void put(byte[] b, int off, int id) {
        if (2 * (size + 1) > ids.length) grow();
        if (insert(head(b, off), b[off + 8], id)) size++;
    }

    public void put(byte[] packed, int id) {
        put(packed, 0, id);
    }

    /** The id of the packed hash at {@code off} of {@code key}, or -1. */
    public int get(byte[] key, int off) {
        long head = head(key, off);
        byte tail = key[off + 8];
        int mask = ids.length - 1;
        for (int i = slot(head, mask); ids[i] != 0; i = (i + 1) & mask) {
            if (heads[i] == head && tails[i] == tail) return ids[i] - 1;
        }
        return -1;
    }

    private boolean insert(long head, byte tail, int id) {
        int mask = ids.length - 1;
        int i = slot(head, mask);
        for (; ids[i] != 0; i = (i + 1) & mask) {
            if (heads[i] == head && tails[i] == tail) {
                ids[i] = id + 1;
                return false;
            }
        }
        heads[i] = head;
        tails[i] = tail;
        ids[i] = id + 1;
        return true;
    }

    private void grow() {
        long[] h = heads;
        byte[] t = tails;
        int[] d = ids;
        heads = new long[h.length * 2];
        tails = new byte[h.length * 2];
        ids = new int[h.length * 2];
        for (int i = 0; i < d.length; i++) if (d[i] != 0) insert(h[i], t[i], d[i] - 1);
    }

    /** The first 8 bytes of a packed hash at {@code off}, big-endian. */
    public static long head(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) v = (v << 8) | (b[off + i] & 0xff);
        return v;
    }

    private static int slot(long head, int mask) {
        return (int) ((head * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    }
}
