package org.peerdex.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.queryparser.classic.MultiFieldQueryParser;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.store.FSDirectory;
import org.peerdex.actors.search.Candidate;
import org.peerdex.actors.search.CorpusIndexer;
import org.peerdex.actors.search.HtmlText;
import org.peerdex.actors.search.Intersection;
import org.peerdex.actors.search.LocalIndexSource;
import org.peerdex.actors.search.QueryEvaluator;
import org.peerdex.actors.search.SearchRequest;
import org.peerdex.actors.search.SearchResult;
import org.peerdex.actors.search.query.QuerySyntaxException;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.ranking.HostPageRank;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.node.PeerNode;
import org.peerdex.node.http.SearchBackend;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.simulations.report.Percentiles;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.text.DocumentText;
import org.peerdex.storage.text.Tokenizer;

/**
 * Known-item search quality and query latency of Peerdex next to Lucene 9 in one run, both on disk, over the same
 * extracted text of a real documentation corpus (by default Debian's PostgreSQL 15 HTML docs).
 *
 * <p>Queries are drawn (seeded) from the corpus with the benchmark's own word split ({@link #words}: whitespace,
 * lower case, punctuation stripped at both ends; words without a letter or with a character other than letters,
 * digits, {@code _ . - '} dropped), not with either engine's analyzer, so neither gets queries cut to its own
 * tokens. Sets: <b>title</b> (a page's title words minus the benchmark's stop list, titles that name one page),
 * <b>body</b> (three words frequent in a page and in 2..20 pages, title words excluded), both with a known target
 * page; and <b>1w</b>, <b>2w</b>, <b>3w</b> (1, 2 or 3 consecutive words of a random sentence of a random page,
 * stop words included, as typed) for latency only.
 *
 * <p>Systems: {@code peerdex} (the {@code SearchService} the HTTP API uses, in-process), {@code peerdex-http}
 * (the same over HTTP on loopback), {@code peerdex-index} (only the index evaluation: {@code LocalIndexSource}'s
 * top 10 by the default profile, no metadata, snippets or actors), {@code peerdex-index-old} (the lookup before
 * it, for comparison: every list read and decoded, joined, cut in URL-hash order, then scored), {@code lucene-bm25}
 * (one field, OR),
 * {@code lucene-fields} (BM25 over title, headings, anchors, URL and body with boosts, OR: the reference the ratios
 * quote) and {@code lucene-fields-and} (the same, every word required, as Peerdex requires them). Lucene's index is
 * an {@code FSDirectory} (memory-mapped on 64-bit JVMs) in a temporary directory, committed before the queries;
 * Peerdex's is its LevelDB store. Both were just written, so the page cache holds them when they are queried.
 *
 * <p>What one side does that the other does not: Peerdex requires every word (Lucene's default is OR), ranks by
 * its profile of 26 factors (title, URL, anchors, positions, word distance, date, link rank, feedback, BM25 with a
 * nominal document length), and for {@code peerdex} and {@code peerdex-http} also reads each result's metadata and
 * stored text, builds snippets, runs the query's actors and (HTTP) renders JSON; Peerdex's indexing also stores
 * metadata, the text for snippets and the URL-to-word keys that deletion needs, and makes every posting a key of
 * its own. Lucene scores BM25 with the true average field length, skips with block-max WAND, stores only the URL,
 * and returns document numbers; its StandardAnalyzer keeps {@code pg_dump} as one token without its parts
 * (Peerdex indexes the whole and the parts); neither stems. Figures: MRR@10, recall@10, indexing docs/s, index bytes on
 * disk, warm query latency p50/p95/p99, single thread. docs/benchmarks.md has the latest figures.
 *
 * <p>Usage: {@code SearchBenchmark [CORPUS_DIR=/usr/share/doc/postgresql-doc-15/html] [QUERIES=300] [SEED=7]}.
 */
public final class SearchBenchmark {
    private static final String BASE = "http://docs.example/pg/";
    private static final Set<String> STOP = Set.of("a", "an", "and", "are", "as", "at", "be", "by", "for", "from",
            "how", "in", "into", "is", "it", "of", "on", "or", "that", "the", "this", "to", "with", "using", "use");

    private static final boolean DEBUG = Boolean.getBoolean("searchbench.debug");
    private static int misses;
    private static Function<KnownItem, String> PROBE;

    /** A query; {@code target} is the page it names, or null in the latency-only sets. */
    record KnownItem(String set, String query, String target) {}

    record Figures(String system, String set, double mrr, double recall, double p50, double p95, double p99) {}

    static final List<String> KNOWN_ITEM_SETS = List.of("title", "body");
    static final List<String> LENGTH_SETS = List.of("1w", "2w", "3w");
    static final String REFERENCE = "lucene-fields";

    public static void main(String[] args) throws Exception {
        Path corpus = Path.of(args.length > 0 ? args[0] : "/usr/share/doc/postgresql-doc-15/html");
        int perSet = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 7;
        if (!Files.isDirectory(corpus)) {
            System.err.println("corpus " + corpus + " is missing (scripts/install-test-deps.sh installs postgresql-doc-15)");
            System.exit(2);
        }
        Path data = Files.createTempDirectory("peerdex-searchbench");
        Path luceneDir = Files.createTempDirectory("peerdex-searchbench-lucene");
        PeerNode node = PeerNode.start(BenchPeers.config(data, Map.of()));
        FSDirectory dir = null;
        DirectoryReader reader = null;
        try {
            long t0 = System.nanoTime();
            CorpusIndexer.Result indexed = CorpusIndexer.index(node.context().storage(), corpus, BASE, 100_000);
            double peerdexIndexSecs = (System.nanoTime() - t0) / 1e9;
            SearchBackend backend = node.services().search();
            backend.setLinkRank(HostPageRank.compute(indexed.hostEdges()));
            Map<String, HtmlText.Page> pages = indexed.pages();
            PROBE = k -> {
                UrlHash u = indexed.urls().get(k.target());
                StringBuilder b = new StringBuilder("target " + u + " meta=" + node.context().storage().metadata().get(u).isPresent());
                for (String w : Tokenizer.plainWords(k.query())) {
                    b.append(" ").append(w).append(":").append(node.context().storage().rwi()
                            .get(WordHash.of(w), u).map(p -> "yes").orElse("NO"))
                            .append("/").append(node.context().storage().rwi().count(WordHash.of(w)));
                }
                return b.toString();
            };

            long t1 = System.nanoTime();
            Analyzer analyzer = new StandardAnalyzer();
            dir = FSDirectory.open(luceneDir);
            try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(analyzer))) {
                for (Map.Entry<String, HtmlText.Page> e : pages.entrySet()) w.addDocument(luceneDoc(e.getKey(), e.getValue().text()));
                w.commit();
            }
            double luceneIndexSecs = (System.nanoTime() - t1) / 1e9;
            reader = DirectoryReader.open(dir);
            IndexSearcher searcher = new IndexSearcher(reader);

            List<KnownItem> items = new ArrayList<>(titleQueries(pages, perSet, new Random(seed)));
            items.addAll(bodyQueries(pages, perSet, new Random(seed + 1)));
            for (int n = 1; n <= 3; n++) items.addAll(lengthQueries(pages, n, perSet, new Random(seed + 1 + n)));
            System.out.printf(Locale.ROOT, "corpus %s: %d pages; queries: %s; seed %d%n", corpus, pages.size(),
                    setSizes(items), seed);
            System.out.printf(Locale.ROOT, "indexing, one thread: peerdex %.0f docs/s (LevelDB: postings, metadata, text)   "
                    + "lucene %.0f docs/s (FSDirectory %s, committed)%n", pages.size() / peerdexIndexSecs,
                    pages.size() / luceneIndexSecs, dir.getClass().getSimpleName());
            System.out.printf(Locale.ROOT, "index on disk: peerdex %.1f MB (whole store)   lucene %.1f MB%n",
                    treeBytes(data) / 1e6, treeBytes(luceneDir) / 1e6);

            QueryParser plain = new QueryParser("all", analyzer);
            Map<String, Float> boosts = Map.of("title", 4f, "headings", 2f, "anchors", 2f, "url", 2f, "body", 1f);
            String[] fields = boosts.keySet().stream().sorted().toArray(String[]::new);
            MultiFieldQueryParser fielded = new MultiFieldQueryParser(fields, analyzer, boosts);
            MultiFieldQueryParser fieldedAnd = new MultiFieldQueryParser(fields, analyzer, boosts);
            fieldedAnd.setDefaultOperator(QueryParser.Operator.AND);
            HttpClient http = HttpClient.newHttpClient();
            LocalIndexSource index = new LocalIndexSource(node.context().storage(), Runnable::run);
            // the index-only systems return URL hashes: named by URL, so that their MRR is comparable
            Map<String, String> urlOf = new HashMap<>();
            indexed.urls().forEach((url, hash) -> urlOf.put(hash.value(), url));
            Function<List<String>, List<String>> named = hashes -> hashes.stream().map(h -> urlOf.getOrDefault(h, h)).toList();

            Map<String, Function<String, List<String>>> systems = new LinkedHashMap<>();
            systems.put("peerdex", q -> peerdex(backend, q));
            systems.put("peerdex-http", q -> peerdexHttp(http, node.baseUrl(), q));
            systems.put("peerdex-index", q -> named.apply(peerdexIndex(index, node.context().storage(), q)));
            systems.put("peerdex-index-old", q -> named.apply(peerdexIndexOld(node.context().storage(), q)));
            systems.put("lucene-bm25", q -> lucene(searcher, plain, q));
            systems.put(REFERENCE, q -> lucene(searcher, fielded, q));
            systems.put("lucene-fields-and", q -> lucene(searcher, fieldedAnd, q));

            List<String> sets = new ArrayList<>(KNOWN_ITEM_SETS);
            sets.addAll(LENGTH_SETS);
            List<Figures> figures = new ArrayList<>();
            for (Map.Entry<String, Function<String, List<String>>> s : systems.entrySet()) {
                for (int i = 0; i < Math.min(50, items.size()); i++) s.getValue().apply(items.get(i).query()); // warm-up
                for (String set : sets) {
                    List<KnownItem> q = items.stream().filter(i -> i.set().equals(set)).toList();
                    figures.add(measure(s.getKey(), set, q, s.getValue()));
                }
            }
            System.out.printf(Locale.ROOT, "%-18s %-6s %8s %10s %9s %9s %9s%n", "system", "set", "MRR@10", "recall@10",
                    "p50 ms", "p95 ms", "p99 ms");
            for (Figures f : figures) {
                System.out.printf(Locale.ROOT, "%-18s %-6s %8s %10s %9.3f %9.3f %9.3f%n", f.system(), f.set(),
                        Double.isNaN(f.mrr()) ? "-" : String.format(Locale.ROOT, "%.3f", f.mrr()),
                        Double.isNaN(f.recall()) ? "-" : String.format(Locale.ROOT, "%.3f", f.recall()),
                        f.p50(), f.p95(), f.p99());
            }
            for (String set : sets) {
                Figures l = find(figures, REFERENCE, set);
                for (String system : List.of("peerdex", "peerdex-index")) {
                    Figures p = find(figures, system, set);
                    System.out.printf(Locale.ROOT, "ratio (%s): %s/%s %slatency p50 %.1fx, p95 %.1fx, p99 %.1fx%n", set,
                            system, REFERENCE, Double.isNaN(p.mrr()) ? "" : String.format(Locale.ROOT, "MRR %.2f, ",
                                    p.mrr() / l.mrr()), p.p50() / l.p50(), p.p95() / l.p95(), p.p99() / l.p99());
                }
            }
        } finally {
            if (reader != null) reader.close();
            if (dir != null) dir.close();
            node.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
            BenchPeers.deleteTree(data);
            BenchPeers.deleteTree(luceneDir);
        }
        System.exit(0);
    }

    private static String setSizes(List<KnownItem> items) {
        Map<String, Long> n = new LinkedHashMap<>();
        for (KnownItem i : items) n.merge(i.set(), 1L, Long::sum);
        return n.toString();
    }

    static long treeBytes(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0; // a file removed by a compaction while walking
                }
            }).sum();
        }
    }

    private static Figures find(List<Figures> all, String system, String set) {
        return all.stream().filter(f -> f.system().equals(system) && f.set().equals(set)).findFirst().orElseThrow();
    }

    private static Figures measure(String system, String set, List<KnownItem> items, Function<String, List<String>> run) {
        double rr = 0;
        int found = 0;
        double[] ms = new double[items.size()];
        boolean known = !items.isEmpty() && items.get(0).target() != null;
        for (int i = 0; i < items.size(); i++) {
            long t = System.nanoTime();
            List<String> top = run.apply(items.get(i).query());
            ms[i] = (System.nanoTime() - t) / 1e6;
            if (!known) continue;
            int rank = top.indexOf(items.get(i).target());
            if (rank < 0 && DEBUG && system.equals("peerdex") && misses++ < 15) {
                System.out.println("miss " + set + " '" + items.get(i).query() + "' -> " + items.get(i).target() + " got " + top);
                if (PROBE != null) System.out.println("   " + PROBE.apply(items.get(i)));
            }
            if (rank >= 0 && rank < 10) {
                rr += 1.0 / (rank + 1);
                found++;
            }
        }
        return new Figures(system, set, known ? rr / items.size() : Double.NaN,
                known ? (double) found / items.size() : Double.NaN, percentile(ms, 50), percentile(ms, 95),
                percentile(ms, 99));
    }

    private static double percentile(double[] ms, double p) {
        return ms.length == 0 ? Double.NaN : Percentiles.of(ms, p);
    }

    /**
     * The index lookup as it was before {@code QueryEvaluator}, for comparison: every posting of every term read and
     * decoded, the lists joined, the first 50,000 candidates in URL-hash order kept, then all of them scored and
     * sorted (no phrases in these queries).
     */
    private static List<String> peerdexIndexOld(PeerStorage storage, String q) {
        org.peerdex.actors.search.query.Query query;
        try {
            query = org.peerdex.actors.search.query.QueryParser.parse(q);
        } catch (QuerySyntaxException e) {
            return List.of();
        }
        Map<String, Long> df = new HashMap<>();
        List<List<Posting>> lists = new ArrayList<>();
        for (String t : query.terms()) {
            List<Posting> raw = storage.rwi().postings(WordHash.of(t));
            df.put(t, (long) raw.size());
            lists.add(raw);
        }
        List<Candidate> candidates = Intersection.intersect(lists, List.of());
        if (candidates.size() > LocalIndexSource.MAX_CANDIDATES) candidates = candidates.subList(0, LocalIndexSource.MAX_CANDIDATES);
        Scorer scorer = new Scorer(query, RankingProfile.defaults(), new CorpusStats(storage.stats().documents(), df, 0),
                LinkRank.NONE, u -> 0, "", "text");
        for (Candidate c : candidates) scorer.add(c);
        List<String> out = new ArrayList<>();
        for (Scorer.Scored x : scorer.ranked()) {
            if (out.size() == 10) break;
            out.add(x.url().value());
        }
        return out;
    }

    /** Peerdex's index evaluation alone: the top 10 URL hashes by the default profile (no metadata, no snippets). */
    /** What each {@link #peerdexIndex} evaluation did: matches, scored, passed over, blocks skipped. */
    static final List<long[]> EVALUATED = java.util.Collections.synchronizedList(new ArrayList<>());

    static List<String> peerdexIndex(LocalIndexSource index, PeerStorage storage, String q) {
        org.peerdex.actors.search.query.Query query;
        try {
            query = org.peerdex.actors.search.query.QueryParser.parse(q);
        } catch (QuerySyntaxException e) {
            return List.of();
        }
        Scorer scorer = new Scorer(query, RankingProfile.defaults(), new CorpusStats(1, Map.of(), 0), LinkRank.NONE,
                u -> 0, "", "text");
        List<String> out = new ArrayList<>();
        QueryEvaluator.Evaluation e = index.evaluate(query, scorer, 10).evaluation();
        EVALUATED.add(new long[] {e.aligned(), e.scored(), e.pruned(), e.skippedBlocks()});
        for (Candidate c : e.top()) out.add(c.url().value());
        return out;
    }

    private static List<String> peerdex(SearchBackend backend, String q) {
        try {
            SearchRequest r;
            try {
                r = SearchRequest.of(org.peerdex.actors.search.query.QueryParser.parse(q), 10);
            } catch (QuerySyntaxException e) {
                return List.of(); // nothing Peerdex can look for: an empty answer, as the API's 400
            }
            return backend.service().search(r).toCompletableFuture().get(30, TimeUnit.SECONDS).results().stream()
                    .map(SearchResult::url).toList();
        } catch (Exception e) {
            throw new IllegalStateException("peerdex query '" + q + "' failed", e);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static List<String> peerdexHttp(HttpClient http, String base, String q) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/search?resource=local&count=10&q="
                    + URLEncoder.encode(q, StandardCharsets.UTF_8))).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 400) return List.of();
            if (r.statusCode() != 200) throw new IOException("HTTP " + r.statusCode() + ": " + r.body());
            List<String> out = new ArrayList<>();
            for (JsonNode n : JSON.readTree(r.body()).get("results")) out.add(n.get("url").asText());
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("peerdex http query '" + q + "' failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static List<String> lucene(IndexSearcher searcher, QueryParser parser, String q) {
        try {
            Query query = parser.parse(QueryParser.escape(q));
            List<String> out = new ArrayList<>();
            for (ScoreDoc d : searcher.search(query, 10).scoreDocs) out.add(searcher.storedFields().document(d.doc).get("id"));
            return out;
        } catch (Exception e) {
            throw new IllegalStateException("lucene query '" + q + "' failed", e);
        }
    }

    private static Document luceneDoc(String url, DocumentText t) {
        Document d = new Document();
        d.add(new StringField("id", url, Field.Store.YES));
        d.add(new TextField("all", t.title() + "\n" + t.body(), Field.Store.NO));
        d.add(new TextField("title", t.title(), Field.Store.NO));
        d.add(new TextField("headings", String.join("\n", t.headings()), Field.Store.NO));
        d.add(new TextField("anchors", String.join("\n", t.anchors()), Field.Store.NO));
        d.add(new TextField("url", url.substring(BASE.length()).replaceAll("[^A-Za-z0-9]+", " "), Field.Store.NO));
        d.add(new TextField("body", t.body(), Field.Store.NO));
        return d;
    }

    /**
     * The benchmark's own word split, independent of both engines' analysis: whitespace-separated, lower case,
     * leading and trailing characters other than letters and digits stripped; a word without a letter, or with a
     * character other than letters, digits and {@code _ . - '} inside, is dropped (it would be query syntax to one
     * engine or the other).
     */
    static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        for (String raw : text.toLowerCase(Locale.ROOT).split("\\s+")) {
            int a = 0;
            int b = raw.length();
            while (a < b && !Character.isLetterOrDigit(raw.charAt(a))) a++;
            while (b > a && !Character.isLetterOrDigit(raw.charAt(b - 1))) b--;
            String w = raw.substring(a, b);
            if (w.isEmpty() || w.chars().noneMatch(Character::isLetter)) continue;
            if (w.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '-' || c == '\'')) out.add(w);
        }
        return out;
    }

    /** Title words without section numbers and stop words; only titles that name one page. */
    static List<KnownItem> titleQueries(Map<String, HtmlText.Page> pages, int n, Random random) {
        Map<String, List<String>> byQuery = new HashMap<>();
        for (Map.Entry<String, HtmlText.Page> e : pages.entrySet()) {
            List<String> words = words(e.getValue().text().title()).stream()
                    .filter(w -> !STOP.contains(w)).limit(5).toList();
            if (words.isEmpty()) continue;
            byQuery.computeIfAbsent(String.join(" ", words), k -> new ArrayList<>()).add(e.getKey());
        }
        List<KnownItem> all = new ArrayList<>();
        byQuery.forEach((q, urls) -> {
            if (urls.size() == 1) all.add(new KnownItem("title", q, urls.get(0)));
        });
        all.sort(Comparator.comparing(KnownItem::target));
        Collections.shuffle(all, random);
        return all.subList(0, Math.min(n, all.size()));
    }

    /** Three words frequent in the page and rare in the corpus (document frequency 2..20), title words excluded. */
    static List<KnownItem> bodyQueries(Map<String, HtmlText.Page> pages, int n, Random random) {
        Map<String, Integer> df = new HashMap<>();
        Map<String, Map<String, Integer>> tf = new LinkedHashMap<>();
        for (Map.Entry<String, HtmlText.Page> e : pages.entrySet()) {
            Map<String, Integer> counts = new HashMap<>();
            for (String w : words(e.getValue().text().body())) {
                if (w.length() >= 4 && !STOP.contains(w) && w.chars().noneMatch(Character::isDigit)) counts.merge(w, 1, Integer::sum);
            }
            tf.put(e.getKey(), counts);
            counts.keySet().forEach(w -> df.merge(w, 1, Integer::sum));
        }
        List<String> urls = new ArrayList<>(tf.keySet());
        Collections.shuffle(urls, random);
        List<KnownItem> out = new ArrayList<>();
        for (String url : urls) {
            if (out.size() >= n) break;
            Set<String> title = new HashSet<>(words(pages.get(url).text().title()));
            List<String> words = tf.get(url).entrySet().stream()
                    .filter(e -> e.getValue() >= 2 && !title.contains(e.getKey()))
                    .filter(e -> df.get(e.getKey()) >= 2 && df.get(e.getKey()) <= 20)
                    .sorted(Comparator.<Map.Entry<String, Integer>>comparingDouble(e -> -e.getValue() * Math.log((double) pages.size() / df.get(e.getKey())))
                            .thenComparing(Map.Entry::getKey))
                    .limit(3).map(Map.Entry::getKey).toList();
            if (words.size() == 3) out.add(new KnownItem("body", String.join(" ", words), url));
        }
        return out;
    }

    /**
     * {@code n} consecutive words of a random sentence (split after . ! ?) of a random page, stop words kept: the
     * latency sets, with no target.
     */
    static List<KnownItem> lengthQueries(Map<String, HtmlText.Page> pages, int n, int count, Random random) {
        List<String> urls = new ArrayList<>(pages.keySet());
        Collections.sort(urls);
        List<KnownItem> out = new ArrayList<>();
        for (int attempt = 0; out.size() < count && attempt < count * 100; attempt++) {
            String[] sentences = pages.get(urls.get(random.nextInt(urls.size()))).text().body().split("(?<=[.!?])\\s+");
            List<String> words = words(sentences[random.nextInt(sentences.length)]);
            if (words.size() < n) continue;
            int at = random.nextInt(words.size() - n + 1);
            out.add(new KnownItem(n + "w", String.join(" ", words.subList(at, at + n)), null));
        }
        return out;
    }
}
