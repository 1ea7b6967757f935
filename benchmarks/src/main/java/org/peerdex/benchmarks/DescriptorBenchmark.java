package org.peerdex.benchmarks;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.LevelDbStore;

/**
 * Full scans of a LevelDB store with more tables than iq80's table cache holds, under the process's descriptor
 * limit: iq80 closes an evicted table's file only when the table is garbage-collected, so without a collection the
 * scans pile up open files until "Too many open files". Writes MB megabytes in rising keys through 2 MB write
 * buffers (about one 2 MB table per buffer, none merged by compaction), then scans the store SCANS times and prints
 * the most descriptors open at once and whether the scans finished. Usage: {@code DescriptorBenchmark DIR
 * [MB=3000] [SCANS=3]}; run it under a low limit ({@code ulimit -n 1024}) with and without
 * {@code -Dpeerdex.storage.descriptor-share=0} (the watch off). DIR is deleted at the end.
 */
public final class DescriptorBenchmark {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long mb = args.length > 1 ? Long.parseLong(args[1]) : 3_000;
        int scans = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        UnixOperatingSystemMXBean os = (UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        System.out.printf("descriptor limit %d, watch share %s%n", os.getMaxFileDescriptorCount(),
                System.getProperty("peerdex.storage.descriptor-share", "0.5 (default)"));
        AtomicLong most = new AtomicLong();
        AtomicBoolean sampling = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                most.accumulateAndGet(os.getOpenFileDescriptorCount(), Math::max);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "descriptor-sampler");
        sampler.setDaemon(true);
        sampler.start();
        long t0 = System.nanoTime();
        try (LevelDbStore store = LevelDbStore.open(dir, 8 << 20, o -> o.writeBufferSize(2 << 20))) {
            byte[] value = new byte[4096];
            long entries = mb * 1024 * 1024 / value.length;
            for (long i = 0; i < entries; i++) {
                value[0] = (byte) i;
                store.put(String.format("k%012d", i).getBytes(), value);
            }
            long tables;
            try (Stream<Path> s = Files.list(dir.resolve("leveldb"))) {
                tables = s.filter(p -> p.toString().endsWith(".sst") || p.toString().endsWith(".ldb")).count();
            }
            System.out.printf("wrote %d MB in %.1f s: %d tables, %d descriptors open at most so far%n", mb,
                    (System.nanoTime() - t0) / 1e9, tables, most.get());
            for (int s = 1; s <= scans; s++) {
                long t1 = System.nanoTime();
                long read = 0;
                try (KeyValueStore.Cursor c = store.scan(new byte[0], null)) {
                    while (c.next()) read++;
                } catch (RuntimeException e) {
                    System.out.printf("scan %d FAILED after %d entries: %s; descriptors open at most %d%n", s, read,
                            e, most.get());
                    return;
                }
                System.out.printf("scan %d: %d entries in %.1f s; descriptors open at most %d, now %d%n", s, read,
                        (System.nanoTime() - t1) / 1e9, most.get(), os.getOpenFileDescriptorCount());
            }
        } finally {
            sampling.set(false);
            BenchPeers.deleteTree(dir);
        }
    }
}
