package org.peerdex.simulations.bench;

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
import org.apache.lucene.store.ByteBuffersDirectory;
import org.peerdex.actors.search.CorpusIndexer;
import org.peerdex.actors.search.HtmlText;
import org.peerdex.actors.search.SearchRequest;
import org.peerdex.actors.search.SearchResult;
import org.peerdex.actors.search.ranking.HostPageRank;
import org.peerdex.node.PeerNode;
import org.peerdex.node.http.SearchBackend;
import org.peerdex.simulations.report.Percentiles;
import org.peerdex.storage.text.DocumentText;
import org.peerdex.storage.text.Tokenizer;

/**
 * Known-item search quality and latency of Peerdex next to Lucene 9 in one run, over the same extracted text of a
 * real documentation corpus (by default Debian's PostgreSQL 15 HTML docs).
 *
 * <p>Two query sets are drawn (seeded) from the corpus itself, each query naming exactly one target page:
 * <b>title</b> (the page's subject: its title words without section numbers, as a user remembers a page) and
 * <b>body</b> (three words that are rare in the corpus but frequent in the page, as a user remembers its content;
 * title words excluded). Systems compared: Peerdex in-process (the same {@code SearchService} the HTTP API uses,
 * LevelDB underneath), Peerdex over HTTP on loopback, Lucene BM25 on one field holding title and body, and Lucene
 * BM25 over fields with boosts (title, headings, anchors, URL, body), a stand-in for field-boosted ranking such as
 * YaCy's. Figures: MRR@10, recall@10, indexing docs/s, warm query latency p50/p99, single thread.
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

    record KnownItem(String set, String query, String target) {}

    record Figures(String system, String set, double mrr, double recall, double p50, double p99) {}

    public static void main(String[] args) throws Exception {
        Path corpus = Path.of(args.length > 0 ? args[0] : "/usr/share/doc/postgresql-doc-15/html");
        int perSet = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 7;
        if (!Files.isDirectory(corpus)) {
            System.err.println("corpus " + corpus + " is missing (scripts/install-test-deps.sh installs postgresql-doc-15)");
            System.exit(2);
        }
        Path data = Files.createTempDirectory("peerdex-searchbench");
        PeerNode node = PeerNode.start(BenchPeers.config(data, Map.of()));
        try {
            long t0 = System.nanoTime();
            CorpusIndexer.Result indexed = CorpusIndexer.index(node.context().storage(), corpus, BASE, 100_000);
            double peerdexIndexSecs = (System.nanoTime() - t0) / 1e9;
            SearchBackend backend = SearchBackend.of(node.context());
            backend.setLinkRank(HostPageRank.compute(indexed.hostEdges()));
            Map<String, HtmlText.Page> pages = indexed.pages();
            PROBE = k -> {
                org.peerdex.protocol.hash.UrlHash u = indexed.urls().get(k.target());
                StringBuilder b = new StringBuilder("target " + u + " meta=" + node.context().storage().metadata().get(u).isPresent());
                for (String w : Tokenizer.plainWords(k.query())) {
                    b.append(" ").append(w).append(":").append(node.context().storage().rwi()
                            .get(org.peerdex.protocol.hash.WordHash.of(w), u).map(p -> "yes").orElse("NO"))
                            .append("/").append(node.context().storage().rwi().count(org.peerdex.protocol.hash.WordHash.of(w)));
                }
                return b.toString();
            };

            long t1 = System.nanoTime();
            ByteBuffersDirectory dir = new ByteBuffersDirectory();
            Analyzer analyzer = new StandardAnalyzer();
            try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(analyzer))) {
                for (Map.Entry<String, HtmlText.Page> e : pages.entrySet()) w.addDocument(luceneDoc(e.getKey(), e.getValue().text()));
            }
            double luceneIndexSecs = (System.nanoTime() - t1) / 1e9;
            IndexSearcher searcher = new IndexSearcher(DirectoryReader.open(dir));

            List<KnownItem> items = new ArrayList<>(titleQueries(pages, perSet, new Random(seed)));
            items.addAll(bodyQueries(pages, perSet, new Random(seed + 1)));
            System.out.printf(Locale.ROOT, "corpus %s: %d pages; %d known-item queries (title %d, body %d), seed %d%n",
                    corpus, pages.size(), items.size(), items.stream().filter(i -> i.set().equals("title")).count(),
                    items.stream().filter(i -> i.set().equals("body")).count(), seed);
            System.out.printf(Locale.ROOT, "indexing: peerdex %.0f docs/s (LevelDB, postings + metadata)   lucene %.0f docs/s (in memory)%n",
                    pages.size() / peerdexIndexSecs, pages.size() / luceneIndexSecs);

            QueryParser plain = new QueryParser("all", analyzer);
            Map<String, Float> boosts = Map.of("title", 4f, "headings", 2f, "anchors", 2f, "url", 2f, "body", 1f);
            MultiFieldQueryParser fielded = new MultiFieldQueryParser(boosts.keySet().toArray(String[]::new), analyzer, boosts);
            HttpClient http = HttpClient.newHttpClient();

            Map<String, Function<String, List<String>>> systems = new LinkedHashMap<>();
            systems.put("peerdex", q -> peerdex(backend, q));
            systems.put("peerdex-http", q -> peerdexHttp(http, node.baseUrl(), q));
            systems.put("lucene-bm25", q -> lucene(searcher, plain, q));
            systems.put("lucene-fields", q -> lucene(searcher, fielded, q));

            List<Figures> figures = new ArrayList<>();
            for (Map.Entry<String, Function<String, List<String>>> s : systems.entrySet()) {
                for (int i = 0; i < Math.min(50, items.size()); i++) s.getValue().apply(items.get(i).query()); // warm-up
                for (String set : List.of("title", "body")) {
                    List<KnownItem> q = items.stream().filter(i -> i.set().equals(set)).toList();
                    figures.add(measure(s.getKey(), set, q, s.getValue()));
                }
            }
            System.out.printf(Locale.ROOT, "%-14s %-6s %8s %10s %9s %9s%n", "system", "set", "MRR@10", "recall@10", "p50 ms", "p99 ms");
            for (Figures f : figures) {
                System.out.printf(Locale.ROOT, "%-14s %-6s %8.3f %10.3f %9.3f %9.3f%n", f.system(), f.set(), f.mrr(), f.recall(), f.p50(), f.p99());
            }
            for (String set : List.of("title", "body")) {
                Figures p = find(figures, "peerdex", set), l = find(figures, "lucene-bm25", set);
                System.out.printf(Locale.ROOT, "ratio (%s): peerdex/lucene-bm25 MRR %.2f, p50 latency %.1fx%n", set,
                        p.mrr() / l.mrr(), p.p50() / l.p50());
            }
        } finally {
            node.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
            BenchPeers.deleteTree(data);
        }
        System.exit(0);
    }

    private static Figures find(List<Figures> all, String system, String set) {
        return all.stream().filter(f -> f.system().equals(system) && f.set().equals(set)).findFirst().orElseThrow();
    }

    private static Figures measure(String system, String set, List<KnownItem> items, Function<String, List<String>> run) {
        double rr = 0;
        int found = 0;
        double[] ms = new double[items.size()];
        for (int i = 0; i < items.size(); i++) {
            long t = System.nanoTime();
            List<String> top = run.apply(items.get(i).query());
            ms[i] = (System.nanoTime() - t) / 1e6;
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
        return new Figures(system, set, rr / items.size(), (double) found / items.size(), Percentiles.of(ms, 50),
                Percentiles.of(ms, 99));
    }

    private static List<String> peerdex(SearchBackend backend, String q) {
        try {
            SearchRequest r = SearchRequest.of(org.peerdex.actors.search.query.QueryParser.parse(q), 10);
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

    private static List<String> lucene(IndexSearcher searcher, QueryParser parser, String q) {
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

    /** Title words without section numbers and stop words; only titles that name one page. */
    static List<KnownItem> titleQueries(Map<String, HtmlText.Page> pages, int n, Random random) {
        Map<String, List<String>> byQuery = new HashMap<>();
        for (Map.Entry<String, HtmlText.Page> e : pages.entrySet()) {
            List<String> words = Tokenizer.plainWords(e.getValue().text().title()).stream()
                    .filter(w -> !STOP.contains(w) && !w.chars().allMatch(Character::isDigit)).limit(5).toList();
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
            for (String w : Tokenizer.plainWords(e.getValue().text().body())) {
                if (w.length() >= 4 && !STOP.contains(w) && !w.chars().anyMatch(Character::isDigit)) counts.merge(w, 1, Integer::sum);
            }
            tf.put(e.getKey(), counts);
            counts.keySet().forEach(w -> df.merge(w, 1, Integer::sum));
        }
        List<String> urls = new ArrayList<>(tf.keySet());
        Collections.shuffle(urls, random);
        List<KnownItem> out = new ArrayList<>();
        for (String url : urls) {
            if (out.size() >= n) break;
            Set<String> title = new HashSet<>(Tokenizer.plainWords(pages.get(url).text().title()));
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
}
