package org.peerdex.storage.kv;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The behaviour every KeyValueStore engine must share; run against LevelDB and the in-memory engine. */
abstract class KeyValueStoreContract {
    protected KeyValueStore store;

    protected abstract KeyValueStore open();

    @BeforeEach
    void openStore() {
        store = open();
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    static byte[] bytes(int... v) {
        byte[] out = new byte[v.length];
        for (int i = 0; i < v.length; i++) out[i] = (byte) v[i];
        return out;
    }

    static List<String> keys(KeyValueStore.Cursor c) {
        List<String> out = new ArrayList<>();
        try (c) {
            while (c.next()) out.add(new String(c.key(), UTF_8));
        }
        return out;
    }

    static List<byte[]> rawKeys(KeyValueStore.Cursor c) {
        List<byte[]> out = new ArrayList<>();
        try (c) {
            while (c.next()) out.add(c.key());
        }
        return out;
    }

    @Test
    void getReturnsWhatWasPutAndEmptyForAMissingKey() {
        store.put(b("k1"), b("v1"));
        assertArrayEquals(b("v1"), store.get(b("k1")).orElseThrow());
        assertEquals(Optional.empty(), store.get(b("k2")));
    }

    @Test
    void putReplacesAndDeleteRemoves() {
        store.put(b("k"), b("old"));
        store.put(b("k"), b("new"));
        assertArrayEquals(b("new"), store.get(b("k")).orElseThrow());
        store.delete(b("k"));
        assertEquals(Optional.empty(), store.get(b("k")));
        store.delete(b("never-there"));
    }

    @Test
    void emptyValuesAreKept() {
        store.put(b("k"), new byte[0]);
        assertEquals(0, store.get(b("k")).orElseThrow().length);
    }

    @Test
    void aStoredValueIsACopy() {
        byte[] key = b("k");
        byte[] value = b("value");
        store.put(key, value);
        value[0] = 'X';
        key[0] = 'X';
        assertArrayEquals(b("value"), store.get(b("k")).orElseThrow());
        KeyValueStore.Batch batch = store.newBatch();
        byte[] v2 = b("batched");
        batch.put(b("b"), v2);
        v2[0] = 'X';
        store.write(batch, false);
        assertArrayEquals(b("batched"), store.get(b("b")).orElseThrow());
    }

    @Test
    void batchAppliesPutsAndDeletesInOrder() {
        store.put(b("gone"), b("1"));
        KeyValueStore.Batch batch = store.newBatch();
        batch.put(b("a"), b("1")).put(b("b"), b("2")).delete(b("gone")).put(b("a"), b("3")).put(b("c"), b("4"))
                .delete(b("c"));
        assertEquals(6, batch.size());
        store.write(batch, true);
        assertArrayEquals(b("3"), store.get(b("a")).orElseThrow());
        assertArrayEquals(b("2"), store.get(b("b")).orElseThrow());
        assertEquals(Optional.empty(), store.get(b("gone")));
        assertEquals(Optional.empty(), store.get(b("c")));
    }

    @Test
    void scanIsInUnsignedByteOrderWithExclusiveEnd() {
        for (String k : List.of("b", "a", "ab", "c", "ba", "d")) store.put(b(k), b(k));
        assertEquals(List.of("a", "ab", "b", "ba", "c", "d"), keys(store.scan(new byte[0], null)));
        assertEquals(List.of("ab", "b", "ba"), keys(store.scan(b("ab"), b("c"))));
        assertEquals(List.of("c", "d"), keys(store.scan(b("bb"), null)));
        assertEquals(List.of(), keys(store.scan(b("e"), null)));
    }

    @Test
    void scanWithAnEmptyOrInvertedRangeIsEmpty() {
        store.put(b("a"), b("1"));
        store.put(b("b"), b("2"));
        assertEquals(List.of(), keys(store.scan(b("a"), b("a"))));
        assertEquals(List.of(), keys(store.scan(b("b"), b("a"))));
    }

    @Test
    void highBytesSortAfterLowBytes() {
        // signed byte order would put 0x80..0xff before 0x00..0x7f
        store.put(bytes(0x01), b("low"));
        store.put(bytes(0x7f), b("mid"));
        store.put(bytes(0x80), b("high"));
        store.put(bytes(0xff), b("top"));
        store.put(bytes(0xff, 0x00), b("top+"));
        List<byte[]> got = rawKeys(store.scan(new byte[0], null));
        assertEquals(5, got.size());
        assertArrayEquals(bytes(0x01), got.get(0));
        assertArrayEquals(bytes(0x7f), got.get(1));
        assertArrayEquals(bytes(0x80), got.get(2));
        assertArrayEquals(bytes(0xff), got.get(3));
        assertArrayEquals(bytes(0xff, 0x00), got.get(4));
    }

    @Test
    void prefixScanReturnsExactlyTheKeysWithThePrefixIncludingFfBytes() {
        byte[][] keys = {bytes(0x10, 0xfe, 0x01), bytes(0x10, 0xff), bytes(0x10, 0xff, 0x00), bytes(0x10, 0xff, 0xff),
            bytes(0x11), bytes(0x10), bytes(0xff, 0xff), bytes(0xff, 0xff, 0x05), bytes(0xff, 0xfe)};
        for (byte[] k : keys) store.put(k, k);
        List<byte[]> under10ff = rawKeys(store.scanPrefix(bytes(0x10, 0xff)));
        assertEquals(3, under10ff.size());
        assertArrayEquals(bytes(0x10, 0xff), under10ff.get(0));
        assertArrayEquals(bytes(0x10, 0xff, 0xff), under10ff.get(2));
        // a prefix of only 0xff bytes has no end key: the scan runs to the end of the store
        List<byte[]> underFfFf = rawKeys(store.scanPrefix(bytes(0xff, 0xff)));
        assertEquals(2, underFfFf.size());
        assertArrayEquals(bytes(0xff, 0xff, 0x05), underFfFf.get(1));
        assertEquals(5, rawKeys(store.scanPrefix(bytes(0x10))).size());
    }

    @Test
    void randomOperationsAgreeWithASortedMap() {
        Random r = new Random(99);
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        for (int i = 0; i < 5_000; i++) {
            byte[] k = new byte[1 + r.nextInt(3)];
            r.nextBytes(k);
            if (r.nextInt(4) == 0) {
                store.delete(k);
                model.remove(k);
            } else {
                byte[] v = new byte[r.nextInt(8)];
                r.nextBytes(v);
                KeyValueStore.Batch batch = store.newBatch();
                batch.put(k, v);
                store.write(batch, false);
                model.put(k.clone(), v.clone());
            }
        }
        byte[] from = bytes(0x40);
        byte[] to = bytes(0xc0, 0x10);
        List<byte[]> expected = new ArrayList<>(model.subMap(from, true, to, false).keySet());
        List<byte[]> got = rawKeys(store.scan(from, to));
        assertEquals(expected.size(), got.size());
        for (int i = 0; i < got.size(); i++) assertArrayEquals(expected.get(i), got.get(i));
        try (KeyValueStore.Cursor c = store.scan(new byte[0], null)) {
            for (var e : model.entrySet()) {
                assertTrue(c.next());
                assertArrayEquals(e.getKey(), c.key());
                assertArrayEquals(e.getValue(), c.value());
            }
            assertFalse(c.next());
        }
    }

    @Test
    void approximateSizeGrowsWithData() {
        long before = store.approximateSize();
        KeyValueStore.Batch batch = store.newBatch();
        // 5 MB: more than LevelDB preallocates for its log, so the growth shows on disk too
        for (int i = 0; i < 5000; i++) batch.put(b("key" + i), new byte[1000]);
        store.write(batch, true);
        assertTrue(store.approximateSize() >= before + 2_500_000, "size " + store.approximateSize());
    }

    @Test
    void indexObserversSeeEveryPostingAndMetadataWriteInOrderAndNothingElse() {
        List<String> seen = new ArrayList<>();
        KeyValueStore.IndexObserver o = new KeyValueStore.IndexObserver() {
            @Override
            public void put(byte[] key, byte[] value) {
                seen.add("put " + new String(key, UTF_8) + "=" + new String(value, UTF_8));
            }

            @Override
            public void deleted(byte[] key) {
                seen.add("delete " + new String(key, UTF_8));
            }
        };
        assertTrue(store.addIndexObserver(o));
        store.put(b("r1"), b("a"));
        store.put(b("s-setting"), b("x"));
        KeyValueStore.Batch batch = store.newBatch();
        batch.put(b("m1"), b("meta")).put(b("x1"), b("")).delete(b("r1")).put(b("r2"), b("b")).put(b("o1"), b("out"));
        store.write(batch, false);
        store.delete(b("r2"));
        store.removeIndexObserver(o);
        store.put(b("r3"), b("c"));
        assertEquals(List.of("put r1=a", "put m1=meta", "delete r1", "put r2=b", "delete r2"), seen);
    }
}
