package org.peerdex.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.CompressionType;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.LevelDbStore;
import org.peerdex.storage.kv.MemoryStore;
import org.peerdex.storage.rwi.HashBytes;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * The RWI's write and scan rates, one thread, on LevelDB (a temp dir) and on the in-memory engine side by side:
 * postings added in sorted batches through {@link ReverseWordIndex#add}, then read back by a full scan and by
 * per-word prefix scans; plus unbatched single puts on LevelDB as the naive baseline (LevelDB publishes ~400k
 * random writes/s). Usage: {@code StorageBenchmark [POSTINGS=10000000] [BATCH=10000] [ENGINES=leveldb,memory,naive,jni]}; the summary
 * ratios need the first three.
 */
public final class StorageBenchmark {
    private static final int WORDS = 50_000;
    private static final int URLS = 1_000_000;
    private static final int WORD_SCANS = 2_000;

    private final long postings;
    private final int batchSize;
    private final WordHash[] words = new WordHash[WORDS];
    private final UrlHash[] urls = new UrlHash[URLS];

    private StorageBenchmark(long postings, int batchSize) {
        this.postings = postings;
        this.batchSize = batchSize;
        for (int i = 0; i < WORDS; i++) words[i] = WordHash.of("word" + i);
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < URLS; i++) urls[i] = new UrlHash(randomHash(r));
    }

    private static String randomHash(SplittableRandom r) {
        char[] c = new char[12];
        for (int i = 0; i < c.length; i++) c[i] = Base64Order.character(r.nextInt(64));
        return new String(c);
    }

    /** One result row. */
    record Row(String engine, long postings, double writeSeconds, double scanSeconds, long scanned,
               double wordScanSeconds, long wordScanned, long bytes, Folded folded) {}

    /** The same reads after every posting was folded into blocks, the fold's time and the compacted size. */
    record Folded(double foldSeconds, double scanSeconds, double wordScanSeconds, long wordScanned, long bytes) {}

    private static final Comparator<Posting> KEY_ORDER = (a, b) -> {
        int c = Arrays.compareUnsigned(HashBytes.pack(a.word().value()), HashBytes.pack(b.word().value()));
        return c != 0 ? c : Arrays.compareUnsigned(HashBytes.pack(a.url().value()), HashBytes.pack(b.url().value()));
    };

    /** Postings of the next batch: random words and URLs with typical features, sorted by key. */
    private List<Posting> batch(SplittableRandom r, int n) {
        List<Posting> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int hits = 1 + (r.nextInt(8) == 0 ? r.nextInt(50) : r.nextInt(3));
            int[] positions = new int[Math.min(hits, Posting.MAX_POSITIONS)];
            int p = r.nextInt(50);
            for (int k = 0; k < positions.length; k++) {
                positions[k] = p;
                p += 1 + r.nextInt(200);
            }
            out.add(new Posting(words[r.nextInt(WORDS)], urls[r.nextInt(URLS)], null, r.nextInt(4) == 0 ? 1 : 0,
                    hits, positions, 200 + r.nextInt(3000), 3 + r.nextInt(10), 19_000 + r.nextInt(1500), "en", 'h',
                    r.nextInt(100), r.nextInt(40), 30 + r.nextInt(60), 2 + r.nextInt(5), 0));
        }
        out.sort(KEY_ORDER);
        return out;
    }

    private Row run(String engine, KeyValueStore store, Path dir) {
        ReverseWordIndex rwi = new ReverseWordIndex(store, new Partitions(4));
        SplittableRandom r = new SplittableRandom(42);
        long written = 0;
        long writeNanos = 0;
        long reportEvery = Math.max(batchSize, postings / 10);
        while (written < postings) {
            int n = (int) Math.min(batchSize, postings - written);
            List<Posting> b = batch(r, n);
            long t0 = System.nanoTime();
            rwi.add(b, false);
            writeNanos += System.nanoTime() - t0;
            written += n;
            if (written % reportEvery == 0) {
                System.err.printf("  %s: %,d postings written, %.0f/s%n", engine, written, written / (writeNanos / 1e9));
            }
        }
        long t0 = System.nanoTime();
        long[] scanned = {0};
        rwi.scanAll(p -> scanned[0] += p.hitCount() > 0 ? 1 : 0);
        long scanNanos = System.nanoTime() - t0;

        long[] wordScanned = {0};
        long wordNanos = wordScans(rwi, wordScanned);
        long bytes = dir == null ? store.approximateSize() : compactedSize(store, dir);
        // the same reads on blocks: everything folded, as the background folder leaves a quiet index
        t0 = System.nanoTime();
        long folded = rwi.foldAll();
        long foldNanos = System.nanoTime() - t0;
        System.err.printf("  %s: folded %,d postings in %.1f s%n", engine, folded, foldNanos / 1e9);
        t0 = System.nanoTime();
        long[] scannedFolded = {0};
        rwi.scanAll(p -> scannedFolded[0] += p.hitCount() > 0 ? 1 : 0);
        long scanFoldedNanos = System.nanoTime() - t0;
        if (scannedFolded[0] != scanned[0]) throw new IllegalStateException("folding changed the postings");
        long[] wordScannedFolded = {0};
        long wordFoldedNanos = wordScans(rwi, wordScannedFolded);
        if (wordScannedFolded[0] != wordScanned[0]) throw new IllegalStateException("folding changed a word's postings");
        long bytesFolded = dir == null ? store.approximateSize() : compactedSize(store, dir);
        store.close();
        return new Row(engine, written, writeNanos / 1e9, scanNanos / 1e9, scanned[0], wordNanos / 1e9,
                wordScanned[0], bytes, new Folded(foldNanos / 1e9, scanFoldedNanos / 1e9, wordFoldedNanos / 1e9,
                wordScannedFolded[0], bytesFolded));
    }

    private long wordScans(ReverseWordIndex rwi, long[] count) {
        SplittableRandom q = new SplittableRandom(3);
        long t0 = System.nanoTime();
        for (int i = 0; i < WORD_SCANS; i++) rwi.scan(words[q.nextInt(WORDS)], p -> count[0]++);
        return System.nanoTime() - t0;
    }

    /**
     * The size the store settles at once compaction has dropped what deletes and overwrites left: its live entries
     * copied into a new store of the same engine (iq80 cannot compact on demand).
     */
    static long compactedSize(KeyValueStore store, Path dir) {
        if (!(store instanceof LevelDbStore level)) return directorySize(dir);
        Path copy = dir.resolveSibling(dir.getFileName() + "-live");
        try {
            level.copyTo(copy);
            return directorySize(copy);
        } finally {
            deleteTree(copy);
        }
    }

    /** The naive baseline: every posting its own put (two keys, as the RWI writes), no batch. */
    private Row unbatched(Path dir, long n) {
        KeyValueStore store = LevelDbStore.open(dir, 32L << 20);
        ReverseWordIndex rwi = new ReverseWordIndex(store, new Partitions(4));
        SplittableRandom r = new SplittableRandom(42);
        long writeNanos = 0;
        long written = 0;
        while (written < n) {
            int k = (int) Math.min(batchSize, n - written);
            List<Posting> b = batch(r, k);
            Collections.shuffle(b, new Random(written));
            long t0 = System.nanoTime();
            for (Posting p : b) {
                KeyValueStore.Batch one = store.newBatch();
                rwi.addTo(one, p);
                store.write(one, false);
            }
            writeNanos += System.nanoTime() - t0;
            written += k;
        }
        store.close();
        return new Row("LevelDB, one posting per write", written, writeNanos / 1e9, 0, 0, 0, 0, directorySize(dir), null);
    }

    private static long directorySize(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Row find(List<Row> rows, String prefix) {
        return rows.stream().filter(r -> r.engine().startsWith(prefix)).findFirst().orElse(null);
    }

    public static void main(String[] args) throws IOException {
        long n = args.length > 0 ? Long.parseLong(args[0].replace("_", "")) : 10_000_000L;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        List<String> engines = List.of((args.length > 2 ? args[2] : "leveldb,memory,naive,jni").split(","));
        StorageBenchmark bench = new StorageBenchmark(n, batch);
        System.out.printf("RWI benchmark: %,d postings (2 keys each: rwi + url->word), batches of %,d sorted postings,"
                + " one thread, Java %s, max heap %,d MB%n", n, batch, System.getProperty("java.version"),
                Runtime.getRuntime().maxMemory() >> 20);
        Path tmp = Files.createTempDirectory("peerdex-bench");
        List<Row> rows = new ArrayList<>();
        try {
            if (engines.contains("leveldb")) {
                rows.add(bench.run("LevelDB (iq80), batched", LevelDbStore.open(tmp.resolve("leveldb"), 32L << 20),
                        tmp.resolve("leveldb")));
                System.gc();
            }
            if (engines.contains("jni")) {
                rows.add(bench.run("LevelDB (leveldbjni, Snappy)", LevelDbStore.open(tmp.resolve("jni"), 32L << 20,
                        JniDBFactory.factory, CompressionType.SNAPPY),
                        tmp.resolve("jni")));
                System.gc();
            }
            if (engines.contains("memory")) {
                rows.add(bench.run("MemoryStore, batched", new MemoryStore(), null));
                System.gc();
            }
            if (engines.contains("naive")) rows.add(bench.unbatched(tmp.resolve("naive"), Math.min(n, 1_000_000)));
        } finally {
            deleteTree(tmp);
        }
        System.out.println();
        System.out.printf("%-32s %12s %14s %14s %16s %12s %10s%n", "engine", "postings", "written/s", "scanned/s",
                "word-scan/s", "bytes", "B/posting");
        for (Row row : rows) {
            System.out.printf("%-32s %,12d %,14.0f %14s %16s %,12d %10.1f%n", row.engine(), row.postings(),
                    row.postings() / row.writeSeconds(),
                    row.scanned() == 0 ? "-" : String.format("%,.0f", row.scanned() / row.scanSeconds()),
                    row.wordScanned() == 0 ? "-" : String.format("%,.0f", row.wordScanned() / row.wordScanSeconds()),
                    row.bytes(), (double) row.bytes() / row.postings());
        }
        System.out.println();
        System.out.println("the same postings folded into blocks (layout 2's folded tier; the rows above read them as"
                + " fresh single entries, as layout 1 stored them):");
        System.out.printf("%-32s %12s %14s %16s %12s %10s %14s%n", "engine", "folded/s", "scanned/s", "word-scan/s",
                "bytes", "B/posting", "vs fresh bytes");
        for (Row row : rows) {
            Folded f = row.folded();
            if (f == null) continue;
            System.out.printf("%-32s %,12.0f %,14.0f %,16.0f %,12d %10.1f %13.2fx%n", row.engine(),
                    row.postings() / f.foldSeconds(), row.scanned() / f.scanSeconds(),
                    f.wordScanned() / f.wordScanSeconds(), f.bytes(), (double) f.bytes() / row.postings(),
                    (double) f.bytes() / row.bytes());
        }
        Row level = find(rows, "LevelDB (iq80)");
        Row mem = find(rows, "MemoryStore");
        Row naive = find(rows, "LevelDB, one");
        if (level == null || mem == null || naive == null) return;
        System.out.println();
        System.out.printf("write: MemoryStore/LevelDB %.2fx; LevelDB batched/unbatched %.2fx; LevelDB batched is"
                + " %.2fx LevelDB's published ~400k random writes/s (%,.0f key writes/s)%n",
                (mem.postings() / mem.writeSeconds()) / (level.postings() / level.writeSeconds()),
                (level.postings() / level.writeSeconds()) / (naive.postings() / naive.writeSeconds()),
                (level.postings() / level.writeSeconds()) / 400_000.0,
                2 * level.postings() / level.writeSeconds());
        System.out.printf("full scan: MemoryStore/LevelDB %.2fx; word scans: MemoryStore/LevelDB %.2fx"
                + " (%,d words scanned, %,d postings)%n",
                (mem.scanned() / mem.scanSeconds()) / (level.scanned() / level.scanSeconds()),
                (mem.wordScanned() / mem.wordScanSeconds()) / (level.wordScanned() / level.wordScanSeconds()),
                WORD_SCANS, level.wordScanned());
        Row jni = find(rows, "LevelDB (leveldbjni");
        if (jni != null) {
            System.out.printf("leveldbjni/iq80: write %.2fx, full scan %.2fx, word scans %.2fx, disk %.2fx%n",
                    (jni.postings() / jni.writeSeconds()) / (level.postings() / level.writeSeconds()),
                    (jni.scanned() / jni.scanSeconds()) / (level.scanned() / level.scanSeconds()),
                    (jni.wordScanned() / jni.wordScanSeconds()) / (level.wordScanned() / level.wordScanSeconds()),
                    (double) jni.bytes() / level.bytes());
        }
        System.out.printf("times: LevelDB write %.1f s, scan %.1f s; MemoryStore write %.1f s, scan %.1f s%n",
                level.writeSeconds(), level.scanSeconds(), mem.writeSeconds(), mem.scanSeconds());
    }
}
