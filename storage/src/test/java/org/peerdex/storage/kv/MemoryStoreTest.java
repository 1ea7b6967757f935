package org.peerdex.storage.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The in-memory engine against the store contract, with its packed run merged at the usual size and at every write. */
class MemoryStoreTest extends KeyValueStoreContract {
    @Override
    protected KeyValueStore open() {
        return new MemoryStore();
    }

    /** The same contract with the recent writes merged into the run after every write. */
    @Nested
    class MergingAtEveryWrite extends KeyValueStoreContract {
        @Override
        protected KeyValueStore open() {
            return new MemoryStore(1);
        }
    }

    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void aCursorReadsTheEntriesItWasOpenedOnWhileLaterWritesMergeTheRun() {
        MemoryStore s = new MemoryStore(2);
        for (int i = 0; i < 100; i += 2) s.put(key(i), new byte[] {(byte) i});
        List<Integer> seen = new ArrayList<>();
        try (KeyValueStore.Cursor c = s.scan(key(0), key(100))) {
            for (int step = 0; c.next(); step++) {
                seen.add((int) c.value()[0]);
                // deletes, overwrites and inserts ahead of the cursor, each merging the run
                s.delete(key(2 * step + 10));
                s.put(key(2 * step + 1), new byte[] {(byte) 200});
                s.put(key(2 * step + 12), new byte[] {(byte) 201});
            }
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 100; i += 2) expected.add(i);
        assertEquals(expected, seen, "the run the cursor opened on, unchanged by merges after it");
        assertTrue(s.get(key(98)).isEmpty(), "deleted after the last put");
        assertArrayEquals(new byte[] {(byte) 200}, s.get(key(1)).orElseThrow());
        assertArrayEquals(new byte[] {(byte) 201}, s.get(key(110)).orElseThrow());
    }

    @Test
    void deletesShadowTheRunUntilTheMergeDropsThemAndTheSizeStaysExact() {
        Random r = new Random(7);
        MemoryStore s = new MemoryStore();
        TreeMap<Integer, Integer> model = new TreeMap<>();
        for (int i = 0; i < 20_000; i++) {
            int k = r.nextInt(3_000);
            if (r.nextInt(3) == 0) {
                s.delete(key(k));
                model.remove(k);
            } else {
                int len = r.nextInt(20);
                s.put(key(k), new byte[len]);
                model.put(k, len);
            }
        }
        long size = 0;
        for (int len : model.values()) size += key(0).length + len;
        assertEquals(size, s.approximateSize());
        for (int k = 0; k < 3_000; k++) assertEquals(model.containsKey(k), s.get(key(k)).isPresent(), "key " + k);
        try (KeyValueStore.Cursor c = s.scan(key(1_000), key(2_000))) {
            c.seek(key(1_500));
            for (int k : model.subMap(1_500, 2_000).keySet()) {
                assertTrue(c.next());
                assertArrayEquals(key(k), c.key());
                assertEquals(model.get(k), c.value().length);
            }
            assertFalse(c.next());
        }
    }
    /**
     * Keys of 0 to 20 bytes, many zero bytes, many sharing their first 16 bytes and many the prefix of another, most
     * of them merged into the run: every get and every cursor's first entry agree with a sorted map.
     */
    @Test
    void getsAndSeeksInALargeRunAgreeWithASortedMapWhateverTheKeysShareAndHowLongTheyAre() {
        Random r = new Random(20261205);
        MemoryStore s = new MemoryStore();
        TreeMap<byte[], byte[]> reference = new TreeMap<>(java.util.Arrays::compareUnsigned);
        byte[] shared = new byte[16];
        r.nextBytes(shared);
        List<byte[]> probes = new ArrayList<>();
        for (int i = 0; i < 6_000; i++) {
            byte[] k = new byte[r.nextInt(21)];
            for (int j = 0; j < k.length; j++) {
                int kind = r.nextInt(4);
                k[j] = kind == 0 ? 0 : kind == 1 && j < 16 ? shared[j] : (byte) r.nextInt(4);
            }
            byte[] v = {(byte) i};
            s.put(k, v);
            reference.put(k, v);
            probes.add(k);
            byte[] near = java.util.Arrays.copyOf(k, k.length + 1); // a key just above k, absent or not
            probes.add(near);
        }
        for (byte[] k : probes) {
            byte[] expected = reference.get(k);
            assertEquals(expected == null, s.get(k).isEmpty());
            if (expected != null) assertArrayEquals(expected, s.get(k).orElseThrow());
            // the first entry at or after k, by a cursor from k
            var next = reference.ceilingEntry(k);
            try (KeyValueStore.Cursor c = s.scan(k, null)) {
                assertEquals(next != null, c.next());
                if (next != null) assertArrayEquals(next.getKey(), c.key());
            }
        }
    }

    @Test
    void aLargeBatchMergedAtOnceLeavesWhatItsWritesOneByOneLeave() {
        MemoryStore merged = new MemoryStore();
        MemoryStore single = new MemoryStore();
        List<String> seenMerged = new ArrayList<>();
        List<String> seenSingle = new ArrayList<>();
        merged.addIndexObserver(observer(seenMerged));
        single.addIndexObserver(observer(seenSingle));
        Random r = new Random(3);
        for (int round = 0; round < 40; round++) {
            // batches from 1 to 3,000 writes: small ones go through the skip list, large ones into the run at once
            int n = round % 4 == 0 ? 1 + r.nextInt(20) : 64 + r.nextInt(3_000);
            KeyValueStore.Batch batch = merged.newBatch();
            for (int i = 0; i < n; i++) {
                byte[] k = indexKey(r.nextInt(20_000));
                if (r.nextInt(5) == 0) {
                    batch.delete(k);
                    single.delete(k);
                } else {
                    byte[] v = new byte[1 + r.nextInt(30)];
                    r.nextBytes(v);
                    batch.put(k, v);
                    single.put(k, v);
                }
            }
            long generation = merged.indexGeneration();
            merged.write(batch, false);
            assertTrue(merged.indexGeneration() > generation || n == 0);
            assertEquals(single.approximateSize(), merged.approximateSize(), "round " + round);
        }
        assertEquals(seenSingle, seenMerged, "the same observer calls in the same order");
        try (KeyValueStore.Cursor a = merged.scan(new byte[0], null); KeyValueStore.Cursor b = single.scan(new byte[0], null)) {
            int entries = 0;
            while (true) {
                boolean more = a.next();
                assertEquals(more, b.next());
                if (!more) break;
                assertArrayEquals(b.key(), a.key());
                assertArrayEquals(b.value(), a.value());
                assertArrayEquals(b.value(), merged.get(b.key()).orElseThrow());
                entries++;
            }
            assertTrue(entries > 10_000, entries + " entries");
        }
    }

    @Test
    void batchesThroughTheMiddleRunLeaveWhatASortedMapLeavesAndCursorsKeepTheLayersTheyOpenedOn() {
        MemoryStore s = new MemoryStore();
        TreeMap<String, byte[]> model = new TreeMap<>();
        Random r = new Random(11);
        // a run of 40,000 entries first, so that batches of a few hundred go to the middle run, not the run
        KeyValueStore.Batch first = s.newBatch();
        for (int i = 0; i < 40_000; i++) {
            byte[] v = {(byte) i, (byte) (i >> 8)};
            first.put(key(2 * i), v);
            model.put(new String(key(2 * i), java.nio.charset.StandardCharsets.ISO_8859_1), v);
        }
        s.write(first, false);
        int sawMiddle = 0;
        int runMerges = 0;
        int lastRun = s.layerSizes()[0];
        KeyValueStore.Cursor open = null;
        List<String> openSaw = null;
        java.util.Set<String> touched = new java.util.HashSet<>();
        for (int round = 0; round < 300; round++) {
            int n = round % 5 == 0 ? 1 + r.nextInt(10) : 64 + r.nextInt(400);
            KeyValueStore.Batch batch = s.newBatch();
            for (int j = 0; j < n; j++) {
                // keys of the run, of earlier batches and new ones; a fifth deletes (some of keys nobody has)
                byte[] k = key(r.nextInt(90_000));
                String ks = new String(k, java.nio.charset.StandardCharsets.ISO_8859_1);
                if (open != null) touched.add(ks);
                if (r.nextInt(5) == 0) {
                    batch.delete(k);
                    model.remove(ks);
                } else {
                    byte[] v = new byte[1 + r.nextInt(12)];
                    r.nextBytes(v);
                    batch.put(k, v);
                    model.put(ks, v);
                }
            }
            s.write(batch, false);
            if (round == 100) {
                // a cursor opened now reads these layers to its end, whatever later batches merge (a later write
                // may show while it stays in the skip list the cursor opened on: those keys are not compared)
                open = s.scan(key(0), key(90_000));
                openSaw = new ArrayList<>(model.keySet());
            }
            int[] layers = s.layerSizes();
            if (layers[1] > 0) sawMiddle++;
            if (layers[0] != lastRun) runMerges++;
            lastRun = layers[0];
            if (round % 50 == 49) assertSame(model, s);
        }
        assertTrue(sawMiddle > 100, "batches went to the middle run: " + sawMiddle);
        assertTrue(runMerges > 0 && runMerges < 100, "the middle run was merged into the run now and then: " + runMerges);
        List<String> read = new ArrayList<>();
        while (open.next()) {
            String k = new String(open.key(), java.nio.charset.StandardCharsets.ISO_8859_1);
            if (!touched.contains(k)) read.add(k);
        }
        open.close();
        openSaw.removeAll(touched);
        assertTrue(openSaw.size() > 20_000, openSaw.size() + " keys not written after the cursor opened");
        assertEquals(openSaw, read, "the cursor's keys are those when it was opened");
        assertSame(model, s);
        long bytes = 0;
        for (var e : model.entrySet()) bytes += e.getKey().length() + e.getValue().length;
        assertEquals(bytes, s.approximateSize());
    }

    private static void assertSame(TreeMap<String, byte[]> model, MemoryStore s) {
        try (KeyValueStore.Cursor c = s.scan(new byte[0], null)) {
            var it = model.entrySet().iterator();
            while (c.next()) {
                var e = it.next();
                assertEquals(e.getKey(), new String(c.key(), java.nio.charset.StandardCharsets.ISO_8859_1));
                assertArrayEquals(e.getValue(), c.value());
            }
            assertFalse(it.hasNext(), "the store ends early");
        }
        Random r = new Random(model.size());
        for (int i = 0; i < 2_000; i++) {
            byte[] k = key(r.nextInt(90_000));
            byte[] expected = model.get(new String(k, java.nio.charset.StandardCharsets.ISO_8859_1));
            if (expected == null) assertTrue(s.get(k).isEmpty());
            else assertArrayEquals(expected, s.get(k).orElseThrow());
        }
        // a seek into the middle of the range lands where the model's ceiling is
        byte[] target = key(45_001);
        try (KeyValueStore.Cursor c = s.scan(key(0), key(90_000))) {
            c.seek(target);
            String ceiling = model.ceilingKey(new String(target, java.nio.charset.StandardCharsets.ISO_8859_1));
            assertEquals(ceiling != null, c.next());
            if (ceiling != null) assertEquals(ceiling, new String(c.key(), java.nio.charset.StandardCharsets.ISO_8859_1));
        }
    }

    /** A key the store counts as an index write (its observers see it). */
    private static byte[] indexKey(int i) {
        byte[] k = String.format("_k%05d", i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        k[0] = Keyspace.RWI;
        return k;
    }


    private static KeyValueStore.IndexObserver observer(List<String> seen) {
        return new KeyValueStore.IndexObserver() {
            @Override
            public void put(byte[] key, byte[] value) {
                seen.add("+" + new String(key, java.nio.charset.StandardCharsets.ISO_8859_1) + java.util.Arrays.toString(value));
            }

            @Override
            public void deleted(byte[] key) {
                seen.add("-" + new String(key, java.nio.charset.StandardCharsets.ISO_8859_1));
            }
        };
    }
}
