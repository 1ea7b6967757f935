package org.peerdex.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.peerdex.actors.parse.HtmlDocumentParser;
import org.peerdex.actors.parse.ParsedDocument;

/**
 * The crawl's parse stage alone, on one thread: every HTML file under a directory (a real corpus, for example the
 * OpenJDK API docs) read into memory, then parsed by the crawler's {@link HtmlDocumentParser} (charset detection,
 * jsoup, text, links, headings, language) {@code ROUNDS} times after one warm-up round; prints pages and MB per
 * second, and a digest of what was parsed (text, links, headings, language, title), so two builds can be checked to
 * parse alike. The crawl benchmark measures fetch, parse and index together and sums each stage's time over the fetch
 * workers, which under two cores counts the waiting for a core too; this says what parsing costs a core.
 * Usage: {@code java -cp benchmarks/target/peerdex-benchmarks.jar org.peerdex.benchmarks.ParseBenchmark DIR [ROUNDS=3]}.
 */
public final class ParseBenchmark {
    private ParseBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.toString().endsWith(".html")).sorted().toList();
        }
        List<byte[]> bodies = new ArrayList<>();
        List<String> urls = new ArrayList<>();
        long bytes = 0;
        for (Path f : files) {
            byte[] b = Files.readAllBytes(f);
            bodies.add(b);
            urls.add("http://corpus.test/" + root.relativize(f).toString().replace('\\', '/'));
            bytes += b.length;
        }
        HtmlDocumentParser parser = new HtmlDocumentParser();
        System.out.printf(Locale.ROOT, "%d HTML files, %.1f MB, from %s%n", files.size(), bytes / 1e6, root);
        for (int r = 0; r <= rounds; r++) {
            long links = 0;
            long chars = 0;
            long digest = 0;
            long t0 = System.nanoTime();
            for (int i = 0; i < bodies.size(); i++) {
                ParsedDocument d = parser.parse(urls.get(i), bodies.get(i), "text/html");
                links += d.links().size();
                chars += d.body().length();
                digest = 31 * digest + d.body().hashCode() + 7L * d.links().hashCode() + 11L * d.headings().hashCode()
                        + 13L * d.language().hashCode() + 17L * d.title().hashCode();
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "%s: %.1f s, %.0f pages/s, %.1f MB/s, %.2f ms a page (%d links, %.1f M chars"
                    + " of text; output digest %016x)%n", r == 0 ? "warm-up" : "round " + r, secs, bodies.size() / secs,
                    bytes / secs / 1e6, secs * 1e3 / bodies.size(), links, chars / 1e6, digest);
        }
    }
}
