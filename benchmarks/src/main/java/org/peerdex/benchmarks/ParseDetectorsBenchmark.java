package org.peerdex.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.peerdex.actors.parse.CharsetDetector;
import org.peerdex.actors.parse.LanguageDetector;
import org.peerdex.node.http.ManualPages;

/**
 * What the parse path's detectors cost a peer: the language detector's model load (time and the heap it keeps, once
 * per JVM), its detections per second, and the charset detector's statistical step on an unlabelled legacy page.
 * The text is the bundled manual (real English prose). Usage: {@code java -cp
 * benchmarks/target/peerdex-benchmarks.jar org.peerdex.benchmarks.ParseDetectorsBenchmark [ROUNDS=20]}.
 */
public final class ParseDetectorsBenchmark {
    private ParseDetectorsBenchmark() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        List<String> pages = ManualPages.all().stream().map(ManualPages.Page::markdown).toList();
        if (pages.isEmpty()) throw new IllegalStateException("no manual on the classpath");

        long heapBefore = heapAfterGc();
        long t0 = System.nanoTime();
        String first = LanguageDetector.detect(pages.get(0));
        double loadMs = (System.nanoTime() - t0) / 1e6;
        long heapAfter = heapAfterGc();
        System.out.printf(Locale.ROOT, "language detector: %d languages, first detection (models loaded) %.0f ms,"
                + " heap kept %d MiB (%d -> %d MiB after GC); first page '%s'%n", LanguageDetector.LANGUAGES.size(),
                loadMs, (heapAfter - heapBefore) >> 20, heapBefore >> 20, heapAfter >> 20, first);

        Map<String, Integer> answers = new TreeMap<>();
        long chars = 0;
        long n = 0;
        long t1 = System.nanoTime();
        for (int r = 0; r < rounds; r++) {
            for (String p : pages) {
                for (int i = 0; i + 2_000 <= p.length(); i += 2_000) { // pieces of the size the detector reads
                    String lang = LanguageDetector.detect(p.substring(i, i + 2_000));
                    if (r == 0) answers.merge(lang.isEmpty() ? "unknown" : lang, 1, Integer::sum);
                    chars += 2_000;
                    n++;
                }
            }
        }
        double secs = (System.nanoTime() - t1) / 1e9;
        System.out.printf(Locale.ROOT, "language detection: %d texts of 2,000 chars in %.2f s: %.0f texts/s,"
                + " %.1f MB/s; answers on the manual %s%n", n, secs, n / secs, chars / secs / 1e6, answers);

        Charset latin = Charset.forName("windows-1252");
        byte[][] legacy = pages.stream().map(p -> p.getBytes(latin)).toArray(byte[][]::new);
        long bytes = 0;
        Map<String, Integer> found = new TreeMap<>();
        long t2 = System.nanoTime();
        for (int r = 0; r < rounds; r++) {
            for (byte[] b : legacy) {
                CharsetDetector.Detected d = CharsetDetector.detect(b, null);
                if (r == 0) found.merge(d.charset().name() + " (" + d.source() + ")", 1, Integer::sum);
                bytes += b.length;
            }
        }
        double csSecs = (System.nanoTime() - t2) / 1e9;
        System.out.printf(Locale.ROOT, "charset detection of %d unlabelled pages x %d rounds: %.1f MB/s; %s%n",
                legacy.length, rounds, bytes / csSecs / 1e6, found);
        System.out.println("load average " + Files.readString(Path.of("/proc/loadavg")).strip());
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
