package org.peerdex.storage.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyFilterTest {
    /** Keys as a store's postings have them: a shared word prefix, then a URL part. */
    private static byte[] key(Random r, int words) {
        byte[] k = new byte[1 + 9 + 9];
        k[0] = 'r';
        byte[] w = new byte[9];
        new Random(r.nextInt(words)).nextBytes(w);
        System.arraycopy(w, 0, k, 1, 9);
        for (int i = 10; i < k.length; i++) k[i] = (byte) r.nextInt();
        return k;
    }

    @Test
    void everyKeyOfTheRunIsFoundAndFewAbsentKeysTakeTheSearch() {
        Random r = new Random(7);
        int n = 100_000;
        Set<String> present = new HashSet<>();
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        int[] at = new int[2 * n + 1];
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            byte[] k = key(r, 2_000);
            keys[i] = k;
            present.add(new String(k, java.nio.charset.StandardCharsets.ISO_8859_1));
            at[2 * i] = data.size();
            data.writeBytes(k);
            at[2 * i + 1] = data.size();
            data.writeBytes(new byte[] {1, 2, 3});
        }
        at[2 * n] = data.size();
        KeyFilter f = KeyFilter.of(data.toByteArray(), at, n);
        for (byte[] k : keys) assertTrue(f.mayContain(k), "a key of the run must never be answered absent");
        int falsePositives = 0;
        int absent = 0;
        for (int i = 0; i < 200_000; i++) {
            byte[] k = key(r, 2_000);
            if (present.contains(new String(k, java.nio.charset.StandardCharsets.ISO_8859_1))) continue;
            absent++;
            if (f.mayContain(k)) falsePositives++;
        }
        double rate = (double) falsePositives / absent;
        System.out.printf("key filter: %d of %d absent keys pass (%.2f%%), %d bits a key%n", falsePositives, absent,
                100 * rate, KeyFilter.BITS_PER_KEY);
        assertTrue(rate < 0.06, "false positive rate " + rate);
        assertTrue(rate > 0, "a filter of 12 bits a key that never errs is no filter of this size");
    }

    @Test
    void aSmallRunHasNoFilterAndAnswersEverythingMaybe() {
        KeyFilter f = KeyFilter.of(new byte[0], new int[] {0}, 0);
        assertTrue(f.mayContain(new byte[] {1, 2, 3}));
        assertEquals(KeyFilter.hash(new byte[] {1, 2, 3}, 0, 3), KeyFilter.hash(new byte[] {9, 1, 2, 3}, 1, 4));
    }

    @Test
    void theRecentWritesFilterNeverLosesAKeyAddedAndAnswersMostAbsentOnesAtOnce() {
        Random r = new Random(11);
        int n = 20_000;
        RecentKeyFilter f = new RecentKeyFilter(n);
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            keys[i] = key(r, 500);
            f.add(keys[i]);
        }
        for (byte[] k : keys) assertTrue(f.mayContain(k));
        int maybe = 0;
        for (int i = 0; i < 100_000; i++) if (f.mayContain(key(r, 500))) maybe++;
        assertTrue(maybe < 3_000, maybe + " of 100,000 absent keys answered maybe");
        // past its capacity it answers maybe more often, never wrongly absent
        RecentKeyFilter small = new RecentKeyFilter(10);
        for (byte[] k : keys) small.add(k);
        for (byte[] k : keys) assertTrue(small.mayContain(k));
    }

    @Test
    void aStoreFindsEveryRecentWriteAndDeleteBehindItsFilter() {
        MemoryStore store = new MemoryStore(4_096);
        Random r = new Random(5);
        java.util.TreeMap<String, byte[]> expected = new java.util.TreeMap<>();
        for (int i = 0; i < 30_000; i++) {
            byte[] k = key(r, 300);
            String s = new String(k, java.nio.charset.StandardCharsets.ISO_8859_1);
            if (i % 7 == 3 && !expected.isEmpty()) {
                String gone = expected.ceilingKey(s) == null ? expected.firstKey() : expected.ceilingKey(s);
                store.delete(gone.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                expected.remove(gone);
            } else {
                byte[] v = {(byte) i, (byte) (i >> 8)};
                store.put(k, v);
                expected.put(s, v);
            }
            if (i % 997 == 0) {
                for (var e : expected.entrySet()) {
                    byte[] got = store.get(e.getKey().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1)).orElse(null);
                    assertTrue(got != null && java.util.Arrays.equals(e.getValue(), got), "lost " + e.getKey());
                }
            }
        }
        int absent = 0;
        for (int i = 0; i < 5_000; i++) {
            byte[] k = key(r, 300);
            if (!expected.containsKey(new String(k, java.nio.charset.StandardCharsets.ISO_8859_1)) && store.get(k).isEmpty()) absent++;
        }
        assertEquals(5_000, absent);
    }
}
