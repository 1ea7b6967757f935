package org.peerdex.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.text.DocumentText;

/**
 * Memory under indexing: N synthetic documents (Zipf-distributed words from a 200,000-word vocabulary) through the
 * real {@link org.peerdex.storage.index.IndexWriter} into LevelDB, printing heap over time. Meant for
 * {@code -Xmx1g}: the heap must stay bounded by configuration (write buffer, block cache), not by index size.
 * Usage: {@code java -Xmx1g -cp benchmarks/target/peerdex-benchmarks.jar
 * org.peerdex.benchmarks.IndexingMemoryBenchmark [DOCS=1000000] [WORDS_PER_DOC=40] [DIR=temp]}.
 */
public final class IndexingMemoryBenchmark {
    private static final int VOCABULARY = 200_000;

    private IndexingMemoryBenchmark() {}

    public static void main(String[] args) throws IOException {
        long docs = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        int wordsPerDoc = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        Path dir = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("peerdex-memory-bench");
        MemoryMXBean mx = ManagementFactory.getMemoryMXBean();
        String[] vocabulary = new String[VOCABULARY];
        for (int i = 0; i < VOCABULARY; i++) vocabulary[i] = word(i);
        double[] zipf = zipfCdf(VOCABULARY, 1.0);
        SplittableRandom r = new SplittableRandom(42);
        long maxHeap = 0;
        long t0 = System.nanoTime();
        System.out.printf("indexing %,d documents of %d words into %s, max heap %d MiB%n", docs, wordsPerDoc, dir,
                Runtime.getRuntime().maxMemory() >> 20);
        System.out.println("docs,seconds,docs_per_s,heap_used_mib,heap_committed_mib,postings,disk_mib");
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            StringBuilder body = new StringBuilder();
            long step = Math.max(1, docs / 20);
            for (long n = 1; n <= docs; n++) {
                body.setLength(0);
                for (int w = 0; w < wordsPerDoc; w++) body.append(vocabulary[sample(zipf, r.nextDouble())]).append(' ');
                body.append("unique").append(n);
                String url = "http://host" + (n % 5000) + ".bench/page/" + n;
                String title = vocabulary[sample(zipf, r.nextDouble())] + " " + vocabulary[sample(zipf, r.nextDouble())];
                UrlMetadata meta = new UrlMetadata(UrlHash.of(url), url, title, "", "", List.of(), "en", "h",
                        "text/html", body.length(), 0, 0, 0, 0, wordsPerDoc + 1, null, "", List.of());
                DocumentText text = new DocumentText(url, title, "", List.of(), "", List.of(), List.of(), List.of(),
                        body.toString());
                storage.writer().add(PostingFactory.build(meta, text));
                long used = mx.getHeapMemoryUsage().getUsed();
                if (used > maxHeap) maxHeap = used;
                if (n % step == 0 || n == docs) {
                    if (n == docs) storage.writer().flush();
                    double s = (System.nanoTime() - t0) / 1e9;
                    System.out.printf("%d,%.1f,%.0f,%d,%d,%d,%d%n", n, s, n / s, used >> 20,
                            mx.getHeapMemoryUsage().getCommitted() >> 20, storage.stats().postings(), size(dir) >> 20);
                }
            }
            System.gc();
            System.out.printf("done: %,d documents, %,d postings in %.1f s; peak heap used %d MiB of %d MiB max; heap "
                            + "after GC %d MiB; %d MiB on disk; no OutOfMemoryError%n", storage.stats().documents(),
                    storage.stats().postings(), (System.nanoTime() - t0) / 1e9, maxHeap >> 20,
                    Runtime.getRuntime().maxMemory() >> 20, mx.getHeapMemoryUsage().getUsed() >> 20, size(dir) >> 20);
        } finally {
            if (args.length <= 2) delete(dir);
        }
    }

    /** Letters only, so the tokenizer keeps each as one word. */
    static String word(int i) {
        StringBuilder b = new StringBuilder("w");
        int n = i;
        do {
            b.append((char) ('a' + n % 26));
            n /= 26;
        } while (n > 0);
        return b.toString();
    }

    static double[] zipfCdf(int n, double s) {
        double[] cdf = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += 1.0 / Math.pow(i + 1, s);
            cdf[i] = sum;
        }
        for (int i = 0; i < n; i++) cdf[i] /= sum;
        return cdf;
    }

    static int sample(double[] cdf, double u) {
        int i = java.util.Arrays.binarySearch(cdf, u);
        return i >= 0 ? i : Math.min(cdf.length - 1, -i - 1);
    }

    static long size(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        } catch (IOException | java.io.UncheckedIOException e) {
            return -1; // a compaction deleted a file while we walked: size unknown this time
        }
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(s.sorted(Comparator.reverseOrder()).toList());
            for (Path p : all) Files.deleteIfExists(p);
        }
    }
}
