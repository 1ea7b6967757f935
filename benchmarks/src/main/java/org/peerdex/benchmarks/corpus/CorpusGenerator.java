package org.peerdex.benchmarks.corpus;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Element;

/**
 * Writes a synthetic MediaWiki XML dump of any number of realistic pages, streaming (one page in memory at a time)
 * and deterministic by seed. Pages recombine the sentences of real HTML documentation (the
 * {@link #load sentence pool}: Debian's PostgreSQL, Python and OpenJDK docs on this machine), with their titles and
 * headings as section names, and replace a share of the words by draws from a Zipf-like vocabulary (exponent
 * {@link #ZIPF_S}): the corpus' own words by frequency rank, then its real identifiers ({@code pg_stat_activity},
 * {@code os.path.join}, {@code java.util.List}), then a long tail of compounds of those, so the vocabulary keeps
 * growing with the corpus as a real one does (Heaps' law). Each page has an infobox, sections, a wikitable now and
 * then, internal links to other generated pages and categories: the markup the importer's {@code WikiText} handles.
 *
 * <p>Page {@code i} depends only on the pool, the seed, {@code i} and the number of pages (its link targets).
 */
public final class CorpusGenerator {
    /** Zipf exponent of the substituted words: near 1, as measured on English text. */
    public static final double ZIPF_S = 1.05;
    /** Share of words replaced by a vocabulary draw. */
    static final double SUBSTITUTE = 0.12;
    /** Ranks of the vocabulary: the tail past the real words and identifiers is compounds of them. */
    static final int VOCABULARY = 4_000_000;
    /** Sentences read at most, shared evenly between the sources (parsing the HTML dominates the set-up). */
    private static final int MAX_SENTENCES = 120_000;
    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?])\\s+(?=[A-Z])");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+");

    private final List<String> sentences;
    private final List<String> titles;
    private final List<String> words;
    private final List<String> identifiers;

    private CorpusGenerator(List<String> sentences, List<String> titles, List<String> words, List<String> identifiers) {
        this.sentences = sentences;
        this.titles = titles;
        this.words = words;
        this.identifiers = identifiers;
    }

    /** The default sources: those of Debian's documentation packages that are installed. */
    public static List<Path> defaultSources() {
        List<Path> out = new ArrayList<>();
        for (String p : List.of("/usr/share/doc/postgresql-doc-15/html", "/usr/share/doc/python3.11/html",
                "/usr/share/doc/openjdk-17-jre-headless/api")) {
            if (Files.isDirectory(Path.of(p))) out.add(Path.of(p));
        }
        return out;
    }

    /**
     * Reads the sentence pool from the HTML files under {@code roots} (sorted, so the pool is the same on every run):
     * paragraph and list-item text split into sentences of 4 to 60 words, page titles and headings.
     */
    public static CorpusGenerator load(List<Path> roots, int maxFiles) throws IOException {
        Set<String> sentences = new LinkedHashSet<>();
        Set<String> titles = new LinkedHashSet<>();
        Map<String, Integer> wordCounts = new HashMap<>();
        Map<String, Integer> identifierCounts = new HashMap<>();
        int files = 0;
        for (Path root : roots) {
            int until = sentences.size() + MAX_SENTENCES / roots.size();
            List<Path> html;
            try (Stream<Path> s = Files.walk(root)) {
                html = s.filter(p -> p.toString().endsWith(".html")).sorted().toList();
            }
            for (Path p : html) {
                if (files++ >= maxFiles || sentences.size() >= until) break;
                var doc = Jsoup.parse(Files.readString(p, StandardCharsets.UTF_8));
                String title = clean(doc.title());
                if (title.length() > 2 && title.length() < 120) titles.add(title);
                for (Element h : doc.select("h1, h2, h3")) {
                    String t = clean(h.text());
                    if (t.length() > 2 && t.length() < 100) titles.add(t);
                }
                for (Element e : doc.select("p, li, dd")) {
                    for (String s : SENTENCE_END.split(clean(e.text()))) {
                        String[] w = s.split(" ");
                        if (w.length < 4 || w.length > 60) continue;
                        if (sentences.add(s)) {
                            for (String x : w) {
                                String t = x.replaceAll("^[^A-Za-z0-9_]+|[^A-Za-z0-9_]+$", "");
                                if (t.isEmpty()) continue;
                                if (IDENTIFIER.matcher(t).matches()) identifierCounts.merge(t, 1, Integer::sum);
                                else if (t.chars().allMatch(Character::isLetter)) wordCounts.merge(t.toLowerCase(Locale.ROOT), 1, Integer::sum);
                            }
                        }
                    }
                }
            }
        }
        if (sentences.isEmpty()) throw new IOException("no sentences under " + roots);
        return new CorpusGenerator(new ArrayList<>(sentences), new ArrayList<>(titles), byFrequency(wordCounts),
                byFrequency(identifierCounts));
    }

    private static List<String> byFrequency(Map<String, Integer> counts) {
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry::getKey))
                .map(Map.Entry::getKey).toList();
    }

    private static String clean(String s) {
        return s.replace('\u00a0', ' ').replaceAll("\\s+", " ").replace("¶", "").trim();
    }

    public int sentenceCount() {
        return sentences.size();
    }

    public int realVocabulary() {
        return words.size() + identifiers.size();
    }

    /**
     * The word of vocabulary rank {@code r} (0 most frequent): the corpus' words by frequency, then its identifiers,
     * then compounds of two of them (a name made from ranks {@code r mod a} and {@code r / a}), as deterministic as
     * the rank.
     */
    String word(int r) {
        if (r < words.size()) return words.get(r);
        r -= words.size();
        if (r < identifiers.size()) return identifiers.get(r);
        r -= identifiers.size();
        int a = identifiers.size() + words.size();
        String first = r % 2 == 0 && !identifiers.isEmpty() ? identifiers.get(r % identifiers.size()) : words.get(r % words.size());
        return first + "_" + words.get((r / a + r) % words.size());
    }

    /** A Zipf-like rank in [0, n): the continuous power law with exponent {@link #ZIPF_S}, inverted. */
    static int zipf(SplittableRandom random, int n) {
        double u = random.nextDouble();
        double oneMinusS = 1 - ZIPF_S;
        double x = Math.pow((Math.pow(n + 1, oneMinusS) - 1) * u + 1, 1 / oneMinusS);
        return Math.min(n - 1, Math.max(0, (int) x - 1));
    }

    /** The title of page {@code i}: a real title or heading, and a qualifier so that titles name one page. */
    public String title(long seed, int i) {
        SplittableRandom r = random(seed, i);
        String t = titles.get(r.nextInt(titles.size()));
        return t.replaceAll("[\\[\\]{}|<>#]", "") + " (" + word(zipf(r, VOCABULARY)) + " " + i + ")";
    }

    private static SplittableRandom random(long seed, int i) {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i * 0xC2B2AE3D27D4EB4FL);
    }

    /** The wikitext of page {@code i} of {@code pages}: a function of the pool, {@code seed} and {@code i} alone. */
    public String page(long seed, int i, int pages) {
        SplittableRandom r = random(seed, i);
        r.nextInt(titles.size()); // the title's draws, so the body does not repeat them
        zipf(r, VOCABULARY);
        StringBuilder b = new StringBuilder(4096);
        b.append("{{Infobox topic\n| name = ").append(word(zipf(r, VOCABULARY))).append("\n| related = [[")
                .append(title(seed, r.nextInt(pages))).append("]]\n}}\n");
        // log-normal length: median about 350 words, a long tail of long pages
        int sentencesWanted = (int) Math.max(3, Math.min(400, Math.exp(3.0 + 0.8 * r.nextGaussian())));
        int sections = 1 + sentencesWanted / 12;
        int perSection = Math.max(1, sentencesWanted / sections);
        for (int s = 0; s < sections; s++) {
            if (s > 0) b.append("\n== ").append(titles.get(r.nextInt(titles.size())).replace("=", "")).append(" ==\n");
            for (int k = 0; k < perSection; k++) {
                sentence(b, r);
                if (r.nextInt(8) == 0) {
                    b.append(" See [[").append(title(seed, r.nextInt(pages))).append("|").append(word(zipf(r, 5000)))
                            .append("]].");
                }
                b.append(k % 4 == 3 ? "\n\n" : " ");
            }
            if (r.nextInt(10) == 0) {
                b.append("\n{| class=\"wikitable\"\n! Name !! Value\n");
                for (int row = 0; row < 3; row++) {
                    b.append("|-\n| ").append(word(zipf(r, VOCABULARY))).append(" || ").append(r.nextInt(10_000)).append('\n');
                }
                b.append("|}\n");
            }
        }
        b.append("\n[[Category:").append(word(zipf(r, 2000))).append("]]\n");
        return b.toString();
    }

    private void sentence(StringBuilder b, SplittableRandom r) {
        String s = sentences.get(r.nextInt(sentences.size()));
        int start = 0;
        for (int at = 0; at <= s.length(); at++) {
            if (at < s.length() && s.charAt(at) != ' ') continue;
            String w = s.substring(start, at);
            if (r.nextDouble() < SUBSTITUTE) {
                b.append(word(zipf(r, VOCABULARY)));
                char last = w.isEmpty() ? ' ' : w.charAt(w.length() - 1);
                if (last == '.' || last == ',' || last == ';' || last == ':') b.append(last);
            } else {
                b.append(w.replace("[[", "[").replace("]]", "]").replace("{{", "{").replace("}}", "}")
                        .replace("''", "'").replace("==", "=").replace("{|", "{"));
            }
            if (at < s.length()) b.append(' ');
            start = at + 1;
        }
    }

    /**
     * Writes pages {@code 0 .. pages-1} as a MediaWiki export to {@code out}, one page at a time.
     *
     * @return the bytes of wikitext written (before XML escaping)
     */
    public long write(OutputStream out, long seed, int pages) throws IOException {
        Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        w.write("<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.11/\" version=\"0.11\" xml:lang=\"en\">\n"
                + "<siteinfo><sitename>Scalewiki</sitename><base>https://scale.test/wiki/Main_Page</base></siteinfo>\n");
        long textBytes = 0;
        for (int i = 0; i < pages; i++) {
            String text = page(seed, i, pages);
            textBytes += text.length();
            w.write("<page><title>");
            w.write(escape(title(seed, i)));
            w.write("</title><ns>0</ns><id>");
            w.write(Integer.toString(i + 1));
            w.write("</id><revision><id>");
            w.write(Integer.toString(i + 1));
            w.write("</id><timestamp>");
            w.write(String.format(Locale.ROOT, "20%02d-%02d-%02dT12:00:00Z", 10 + i % 16, 1 + i % 12, 1 + i % 28));
            w.write("</timestamp><contributor><username>Editor");
            w.write(Integer.toString(i % 997));
            w.write("</username></contributor><text xml:space=\"preserve\">");
            w.write(escape(text));
            w.write("</text></revision></page>\n");
        }
        w.write("</mediawiki>\n");
        w.flush();
        return textBytes;
    }

    private static String escape(String s) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String rep = switch (c) {
                case '&' -> "&amp;";
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '"' -> "&quot;";
                default -> c < 0x20 && c != '\n' && c != '\t' && c != '\r' ? " " : null;
            };
            if (rep == null) {
                if (b != null) b.append(c);
                continue;
            }
            if (b == null) b = new StringBuilder(s.length() + 32).append(s, 0, i);
            b.append(rep);
        }
        return b == null ? s : b.toString();
    }

    /** Usage: {@code CorpusGenerator OUT.xml PAGES [SEED=1]} with the default sources. */
    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]);
        int pages = Integer.parseInt(args[1]);
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
        CorpusGenerator g = load(defaultSources(), Integer.MAX_VALUE);
        try (OutputStream o = Files.newOutputStream(out)) {
            g.write(o, seed, pages);
        }
        System.out.printf(Locale.ROOT, "%s: %d pages, %d bytes, from %d sentences%n", out, pages, Files.size(out),
                g.sentenceCount());
    }
}
