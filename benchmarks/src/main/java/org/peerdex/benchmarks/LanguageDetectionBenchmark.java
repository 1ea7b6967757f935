package org.peerdex.benchmarks;

import com.github.pemistahl.lingua.api.IsoCode639_1;
import com.github.pemistahl.lingua.api.Language;
import com.github.pemistahl.lingua.api.LanguageDetectorBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.peerdex.actors.parse.HtmlMainContent;
import org.peerdex.actors.parse.LanguageDetector;

/**
 * What language detection costs a peer on real text, and whether {@link LanguageDetector} still answers as the
 * full-length Lingua call it replaced. The texts are what the parser hands the detector (title and main-content
 * text): the HTML documentation on this machine (PostgreSQL, Python, OpenJDK API; English), the translated man pages
 * under /usr/share/man/LL (troff markup stripped; about twenty languages) and the UDHR paragraphs of the detector's
 * tests. For each source: microseconds a call and calls a second on 1 and 2 threads, for the reference (Lingua
 * low-accuracy on the first 1,000 characters, as the detector was) and the detector; then the share of identical
 * answers and the disagreements. Run from the repository root (for the UDHR texts): {@code java -cp
 * benchmarks/target/peerdex-benchmarks.jar org.peerdex.benchmarks.LanguageDetectionBenchmark [PER_SOURCE=400]
 * [ROUNDS=2]}; ROUNDS 0 checks agreement only. Lingua's full jar first on the class path ({@code -cp
 * lingua-1.2.2.jar:benchmarks/target/peerdex-benchmarks.jar}) brings back the bigram and unigram models that the
 * shaded jar leaves out, which Lingua backs off to for a trigram a language lacks.
 */
public final class LanguageDetectionBenchmark {
    private LanguageDetectionBenchmark() {}

    /** The detector before sampling: Lingua on the first 1,000 characters, one call, same settings and codes. */
    static final class Reference {
        private static final Pattern ADDRESSES = Pattern.compile("\\S*(?://|@|www\\.)\\S*");
        private static final com.github.pemistahl.lingua.api.LanguageDetector LINGUA = LanguageDetectorBuilder
                .fromIsoCodes639_1(LanguageDetector.LANGUAGES.stream()
                        .map(c -> IsoCode639_1.valueOf(c.toUpperCase(Locale.ROOT))).toArray(IsoCode639_1[]::new))
                .withLowAccuracyMode()
                .withMinimumRelativeDistance(0.1)
                .withPreloadedLanguageModels()
                .build();

        static String detect(String text) {
            if (text == null) return "";
            String t = text.length() > 1_000 ? text.substring(0, 1_000) : text;
            t = ADDRESSES.matcher(t).replaceAll(" ");
            if (letters(t) < 24) return "";
            Language l = LINGUA.detectLanguageOf(t);
            return l == Language.UNKNOWN ? "" : l.getIsoCode639_1().name().toLowerCase(Locale.ROOT);
        }

        private static int letters(String s) {
            int n = 0;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (Character.isIdeographic(c)
                        || Character.UnicodeBlock.of(c) == Character.UnicodeBlock.HANGUL_SYLLABLES) {
                    n += 3;
                } else if (Character.isLetter(c)) {
                    n++;
                }
            }
            return n;
        }
    }

    public static void main(String[] args) throws Exception {
        int perSource = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        Map<String, List<String>> sources = new LinkedHashMap<>();
        sources.put("postgres-html", html(Path.of("/usr/share/doc/postgresql-doc-15/html"), perSource));
        sources.put("python-html", html(Path.of("/usr/share/doc/python3.11/html"), perSource));
        sources.put("openjdk-html", html(Path.of("/usr/share/doc/openjdk-17-jre-headless/api"), perSource));
        sources.put("man-translated", manPages(Path.of("/usr/share/man"), Math.max(1, perSource / 20)));
        sources.put("udhr-paragraphs", udhr(Path.of("actors/src/test/resources/udhr")));
        sources.values().removeIf(List::isEmpty);
        System.out.println("load average " + loadAverage());
        Reference.detect("warm the models up before any timing: this sentence is long enough to be read");
        LanguageDetector.detect("warm the models up before any timing: this sentence is long enough to be read");

        long same = 0;
        long all = 0;
        for (Map.Entry<String, List<String>> e : sources.entrySet()) {
            List<String> texts = e.getValue();
            List<String> before = texts.stream().map(Reference::detect).toList();
            List<String> after = texts.stream().map(LanguageDetector::detect).toList();
            int agree = 0;
            Map<String, Integer> differ = new TreeMap<>();
            Map<String, Integer> answers = new TreeMap<>();
            for (int i = 0; i < texts.size(); i++) {
                answers.merge(label(before.get(i)), 1, Integer::sum);
                if (before.get(i).equals(after.get(i))) agree++;
                else differ.merge(label(before.get(i)) + "->" + label(after.get(i)), 1, Integer::sum);
            }
            same += agree;
            all += texts.size();
            double avgChars = texts.stream().mapToInt(String::length).average().orElse(0);
            System.out.printf(Locale.ROOT, "%n== %s: %d texts, %.0f chars on average; reference answers %s%n",
                    e.getKey(), texts.size(), avgChars, answers);
            System.out.printf(Locale.ROOT, "agreement %d/%d = %.2f%%; differences (reference->new) %s%n", agree,
                    texts.size(), 100.0 * agree / texts.size(), differ);
            for (int threads : rounds > 0 ? new int[] {1, 2} : new int[0]) {
                double ref = time(texts, Reference::detect, threads, rounds);
                double now = time(texts, LanguageDetector::detect, threads, rounds);
                System.out.printf(Locale.ROOT, "%d thread(s): reference %.0f us/call (%.0f calls/s), detector %.0f"
                        + " us/call (%.0f calls/s), %.1fx%n", threads, 1e6 * threads / ref, ref,
                        1e6 * threads / now, now, now / ref);
            }
        }
        System.out.printf(Locale.ROOT, "%nall sources: agreement %d/%d = %.2f%%%n", same, all, 100.0 * same / all);
        System.out.println("load average " + loadAverage());
        System.exit(0);
    }

    /** Calls a second: each of {@code threads} threads detects every text {@code rounds} times. */
    private static double time(List<String> texts, Function<String, String> detect, int threads, int rounds)
            throws InterruptedException {
        for (String t : texts) detect.apply(t); // warm-up round, not timed
        AtomicLong calls = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int w = 0; w < threads; w++) {
            Thread th = new Thread(() -> {
                for (int r = 0; r < rounds; r++) {
                    for (String t : texts) detect.apply(t);
                    calls.addAndGet(texts.size());
                }
            });
            th.start();
            workers.add(th);
        }
        for (Thread th : workers) th.join();
        return calls.get() / ((System.nanoTime() - t0) / 1e9);
    }

    private static String label(String code) {
        return code.isEmpty() ? "unknown" : code;
    }

    /** Title and main-content text of up to {@code max} pages, spread evenly over the sorted file list. */
    static List<String> html(Path root, int max) throws IOException {
        if (!Files.isDirectory(root)) return List.of();
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.toString().endsWith(".html")).sorted().toList();
        }
        List<String> texts = new ArrayList<>();
        double step = Math.max(1.0, files.size() / (double) max);
        for (double i = 0; i < files.size() && texts.size() < max; i += step) {
            Document doc = Jsoup.parse(files.get((int) i).toFile(), "UTF-8");
            String body = HtmlMainContent.extract(doc).text();
            if (body.length() > 100_000) body = body.substring(0, 100_000);
            texts.add(doc.title() + " " + body);
        }
        return texts;
    }

    private static final Pattern TROFF_ESCAPE = Pattern.compile("\\\\(?:f(?:\\[[^]]*]|\\(..|.)|\\(..|\\*(?:\\(..|.)"
            + "|s[-+]?\\d+|[&|^%])");

    /**
     * The text of up to {@code perLanguage} translated man pages in each language directory (two letters, or
     * pt_BR and the like), as one line each: macros dropped except the text they set, escapes removed.
     */
    static List<String> manPages(Path root, int perLanguage) throws IOException {
        if (!Files.isDirectory(root)) return List.of();
        List<String> texts = new ArrayList<>();
        List<Path> langs;
        try (Stream<Path> s = Files.list(root)) {
            langs = s.filter(p -> p.getFileName().toString().matches("[a-z]{2}(_[A-Z]{2})?")).sorted().toList();
        }
        for (Path lang : langs) {
            List<Path> pages;
            try (Stream<Path> s = Files.walk(lang)) {
                pages = s.filter(p -> p.toString().endsWith(".gz") && Files.isRegularFile(p)).sorted().toList();
            }
            double step = Math.max(1.0, pages.size() / (double) perLanguage);
            int taken = 0;
            for (double i = 0; i < pages.size() && taken < perLanguage; i += step) {
                String text = troffText(pages.get((int) i));
                if (text.length() < 200) continue; // a ".so" redirect or a stub
                texts.add(text);
                taken++;
            }
        }
        return texts;
    }

    private static String troffText(Path gz) {
        String src;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
            src = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StringBuilder out = new StringBuilder();
        for (String line : src.split("\n")) {
            if (line.startsWith(".\\\"") || line.startsWith("'\\\"") || line.startsWith("\\\"")) continue;
            if (line.startsWith(".") || line.startsWith("'")) {
                int sp = line.indexOf(' ');
                if (sp < 0) continue;
                String macro = line.substring(1, sp);
                if (!macro.matches("SH|SS|B|I|BR|IR|RB|RI|BI|IB|TP|IP|Nm|Nd|Sh|Ss|Fl|Ar|Dl")) continue;
                line = line.substring(sp + 1).replace("\"", "");
            }
            out.append(TROFF_ESCAPE.matcher(line).replaceAll("").replace("\\-", "-")).append(' ');
        }
        return out.toString().replaceAll("\\s+", " ").strip();
    }

    /** Each UDHR paragraph of the detector's tests, and each language's first four paragraphs as one passage. */
    static List<String> udhr(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return List.of();
        List<String> texts = new ArrayList<>();
        for (String code : LanguageDetector.LANGUAGES) {
            Path f = dir.resolve(code + ".txt");
            if (!Files.exists(f)) continue;
            List<String> paras = Files.readAllLines(f).stream().filter(l -> !l.isBlank()).toList();
            texts.addAll(paras);
            texts.add(String.join(" ", paras.subList(0, Math.min(4, paras.size()))));
        }
        return texts;
    }

    private static String loadAverage() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).strip();
    }
}
