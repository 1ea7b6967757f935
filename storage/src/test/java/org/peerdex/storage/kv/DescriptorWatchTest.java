package org.peerdex.storage.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DescriptorWatchTest {
    /** 40 MB through 1 MB write buffers: about 40 tables. */
    private static final int ENTRIES = 40_000;

    @TempDir
    Path dir;

    @Test
    void collectsPastTheThresholdAndAgainOnlyWhenTheCountGrewAStepAboveItsLowest() {
        AtomicLong open = new AtomicLong(10);
        AtomicInteger collected = new AtomicInteger();
        DescriptorWatch w = new DescriptorWatch(open::get, 1000, 100, 20, collected::incrementAndGet, () -> 0L);
        assertFalse(w.check());
        open.set(100);
        assertTrue(w.check());
        // a store that really holds 100 files: no collection until the count grows by a step
        assertFalse(w.check());
        open.set(119);
        assertFalse(w.check());
        open.set(120);
        assertTrue(w.check());
        // the collection closed files: the count fell to 90, so the next comes at 110
        open.set(90);
        assertFalse(w.check());
        open.set(105);
        assertFalse(w.check(), "past the threshold, but less than a step above the lowest");
        open.set(110);
        assertTrue(w.check());
        assertEquals(3, collected.get());
        assertEquals(3, w.collections());
    }

    @Test
    void aScanReadsTheCountAgainAfterAQuarterOfWhatIsLeftCouldBeSmallTables() {
        AtomicLong open = new AtomicLong(2_000);
        DescriptorWatch w = new DescriptorWatch(open::get, 20_000, 10_000, 1_250, () -> {}, () -> 0L);
        w.check();
        assertEquals((10_000 - 2_000) / 4 * DescriptorWatch.SMALL_TABLE_BYTES, w.scanBytes());
        open.set(9_990);
        w.check();
        assertEquals(DescriptorWatch.MIN_SCAN_BYTES, w.scanBytes());
        open.set(10_000); // collects; the next is due 1,250 further on
        assertTrue(w.check());
        assertEquals(1_250 / 4 * DescriptorWatch.SMALL_TABLE_BYTES, w.scanBytes());
    }

    /**
     * A real iq80 store of a few dozen tables behind a cache of two: a full scan leaves the evicted tables' files
     * open (iq80 closes them only once the tables are collected), and a check past the threshold gets them closed.
     */
    @Test
    void aCheckPastTheThresholdClosesTheFilesOfTablesTheCacheEvicted() throws Exception {
        assumeTrue(Files.isDirectory(Paths.get("/proc/self/fd")), "Linux only");
        int cached = 2; // iq80 keeps maxOpenFiles - 10 tables open
        try (LevelDbStore store = LevelDbStore.open(dir, 1 << 20,
                o -> o.maxOpenFiles(10 + cached).writeBufferSize(1 << 20))) {
            byte[] value = new byte[1024];
            // rising keys: each memtable flush is a table of its own that no compaction merges with the others
            for (int i = 0; i < ENTRIES; i++) {
                value[0] = (byte) i;
                store.put(String.format("k%08d", i).getBytes(), value);
            }
            Path tables = dir.resolve("leveldb");
            awaitTrue(() -> tableFiles(tables) >= 20, "tables written");
            int files = tableFiles(tables);

            // Evicted tables stay open until they are collected, and any garbage collection during the scan
            // (the scan allocates 40 MB) closes some of them: the test asks only for a good number beyond the
            // cache's own, and sets the watch's threshold just above the cache.
            long wanted = Math.min(files / 4, cached + 8);
            long open = 0;
            for (int attempt = 0; attempt < 10 && open < wanted; attempt++) {
                int read = 0;
                try (KeyValueStore.Cursor c = store.scan(new byte[0], null)) {
                    while (c.next()) read++;
                }
                assertEquals(ENTRIES, read);
                open = openTableDescriptors(tables);
            }
            assertTrue(open >= wanted, "a scan over " + files + " tables left " + open + " open");
            long threshold = cached + 2;

            DescriptorWatch w = new DescriptorWatch(() -> openTableDescriptors(tables), 1000, threshold, 1, System::gc,
                    System::currentTimeMillis);
            assertTrue(w.check());
            awaitTrue(() -> openTableDescriptors(tables) <= cached + 1, "evicted tables closed");
        }
    }

    private static void awaitTrue(BooleanSupplier cond, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for: " + what);
            Thread.sleep(20);
        }
    }

    private static int tableFiles(Path tables) {
        try (Stream<Path> s = Files.list(tables)) {
            return (int) s.filter(DescriptorWatchTest::isTable).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This process's descriptors open on table files of the store (Linux: the links in /proc/self/fd). */
    private static long openTableDescriptors(Path tables) {
        Path abs = tables.toAbsolutePath();
        long n = 0;
        try (Stream<Path> fds = Files.list(Paths.get("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (target.startsWith(abs) && isTable(target)) n++;
                } catch (IOException e) {
                    // closed while listing
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return n;
    }

    private static boolean isTable(Path p) {
        String name = p.getFileName().toString();
        return name.endsWith(".sst") || name.endsWith(".ldb");
    }
}
