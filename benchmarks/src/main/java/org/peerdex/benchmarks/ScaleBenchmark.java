package org.peerdex.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;
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
import org.apache.lucene.store.FSDirectory;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.CompressionType;
import org.peerdex.actors.importer.ImportInput;
import org.peerdex.actors.importer.ImportJobs;
import org.peerdex.actors.importer.ImportKind;
import org.peerdex.actors.importer.ImportProgress;
import org.peerdex.actors.importer.MediaWikiDump;
import org.peerdex.actors.importer.WikiText;
import org.peerdex.actors.search.LocalIndexSource;
import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.benchmarks.corpus.CorpusGenerator;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.simulations.report.Percentiles;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.LevelDbStore;

/**
 * Peerdex next to Lucene 9 at scale: a {@link CorpusGenerator} dump of N pages imported through the node's
 * MediaWiki importer ({@code ImportJobs}, one import thread, flush every 500 documents) into LevelDB on disk, and the
 * same dump parsed by the same code ({@code MediaWikiDump} and {@code WikiText}) into Lucene on disk
 * ({@code FSDirectory}, fielded as {@code SearchBenchmark}'s {@code lucene-fields}, one thread, committed). Prints
 * for each N: documents per second (parse included on both sides), bytes on disk per document, heap used after a
 * full GC with each index open, warm query latency p50/p99 of 1-, 2- and 3-word queries (consecutive words of
 * sentences sampled from the dump, split by {@link SearchBenchmark#words}, independent of both analyzers), and the
 * ratios against the goals (indexing at least 1.0x Lucene, size at most 1.5x, p50 at most 2x, p99 at most 3x).
 * Peerdex is timed on its index evaluation ({@code LocalIndexSource}, top 10, every word required); Lucene on
 * BM25 over the fields, OR ({@code lucene-fields}) and AND ({@code lucene-fields-and}).
 *
 * <p>Usage: {@code java -Xmx1g -cp benchmarks/target/peerdex-benchmarks.jar org.peerdex.benchmarks.ScaleBenchmark
 * [N=100000[,1000000]] [QUERIES=300] [SEED=1] [WORKDIR=tmp]}; {@code -Dscale.engine=jni} puts Peerdex's store on
 * leveldbjni instead of the node's iq80; {@code -Dscale.live=raw} sums the live entries' key and value bytes instead of
 * copying them to a new store to measure the size (the copy takes many minutes at a million documents).
 */
public final class ScaleBenchmark {
    private static final int SAMPLED_SENTENCES = 4000;

    record Latency(double p50, double p99) {}

    public static void main(String[] args) throws Exception {
        String[] sizes = (args.length > 0 ? args[0] : "100000").split(",");
        int perSet = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
        Path work = args.length > 3 ? Files.createDirectories(Path.of(args[3])) : Files.createTempDirectory("peerdex-scale");
        List<Path> sources = CorpusGenerator.defaultSources();
        long t = System.nanoTime();
        CorpusGenerator generator = CorpusGenerator.load(sources, Integer.MAX_VALUE);
        System.out.printf(Locale.ROOT, "sentence pool: %d sentences, %d real words and identifiers from %s (%.1f s)%n",
                generator.sentenceCount(), generator.realVocabulary(), sources, (System.nanoTime() - t) / 1e9);
        System.out.printf(Locale.ROOT, "heap max %d MB, %d cores, Peerdex store on %s%n", Runtime.getRuntime().maxMemory() >> 20,
                Runtime.getRuntime().availableProcessors(), "jni".equals(System.getProperty("scale.engine")) ? "leveldbjni" : "iq80");
        try {
            for (String s : sizes) run(generator, Integer.parseInt(s.trim()), perSet, seed, work);
        } finally {
            BenchPeers.deleteTree(work);
        }
        System.exit(0);
    }

    /**
     * The node's store ({@code PeerStorage.openLevelDb}: iq80), or with {@code -Dscale.engine=jni} the same store on
     * leveldbjni (Snappy), to weigh the engines on the whole import.
     */
    private static PeerStorage openStorage(Path dir) {
        if (!"jni".equals(System.getProperty("scale.engine"))) return PeerStorage.openLevelDb(dir, new Partitions(4));
        return new PeerStorage(LevelDbStore.open(dir.resolve("index"), 32L << 20, JniDBFactory.factory,
                CompressionType.SNAPPY),
                new Partitions(4), 8L << 20, false);
    }

    private static void run(CorpusGenerator generator, int n, int perSet, long seed, Path work) throws Exception {
        Path dump = work.resolve("scale-" + n + ".xml");
        long t0 = System.nanoTime();
        try (OutputStream out = Files.newOutputStream(dump)) {
            generator.write(out, seed, n);
        }
        System.out.printf(Locale.ROOT, "%n== %d documents: dump %.0f MB written in %.1f s%n", n, Files.size(dump) / 1e6,
                (System.nanoTime() - t0) / 1e9);
        long heapBefore = heapAfterGc();

        Path peerdexDir = Files.createDirectories(work.resolve("peerdex-" + n));
        Path luceneDir = Files.createDirectories(work.resolve("lucene-" + n));
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try (PeerStorage storage = openStorage(peerdexDir)) {
            // as the node's search backend does when it starts: blocks carry their one-word bound from the first fold
            storage.rwi().scoreBlocksWith(Scorer.ONE_WORD_BLOCKS);
            ImportJobs jobs = new ImportJobs(storage, pool, 500, null);
            long p0 = System.nanoTime();
            String id = jobs.start(ImportKind.MEDIAWIKI, "scale " + n,
                    MediaWikiDump.source(new ImportInput.File(dump), null, false)).id();
            ImportProgress p;
            long lastPrint = p0;
            while ((p = jobs.get(id).orElseThrow()).running()) {
                LockSupport.parkNanos(20_000_000);
                if (System.nanoTime() - lastPrint > 30e9) {
                    lastPrint = System.nanoTime();
                    System.out.printf(Locale.ROOT, "  peerdex: %d documents after %.0f s%n", p.imported(), (lastPrint - p0) / 1e9);
                }
            }
            double peerdexSecs = (System.nanoTime() - p0) / 1e9;
            jobs.close();
            if (!p.state().equals("finished")) throw new IllegalStateException("import ended " + p.state() + ": " + p.error());
            long docs = p.imported();
            long peerdexHeap = heapAfterGc() - heapBefore;
            long freshBytes = SearchBenchmark.treeBytes(peerdexDir);
            // what the background folder has not folded yet is folded now, as it would be once the import is quiet
            long f0 = System.nanoTime();
            long folded = storage.rwi().foldAll();
            double foldSecs = (System.nanoTime() - f0) / 1e9;
            long foldedBytes = SearchBenchmark.treeBytes(peerdexDir);
            long postings = storage.rwi().totalPostings();
            long rawBytes = printKeyspaces(storage.store(), docs);
            // what the store settles at once LevelDB's compactions have dropped the folded entries: every live entry
            // copied to a new store, or with -Dscale.live=raw (for the largest runs, where the copy takes many
            // minutes) the live entries' raw key and value bytes (within 4% of the copy at 100,000 documents)
            boolean raw = "raw".equals(System.getProperty("scale.live"));
            long peerdexBytes = raw ? rawBytes : StorageBenchmark.compactedSize(storage.store(), peerdexDir.resolve("index"));
            System.out.printf(Locale.ROOT, "  peerdex: %d documents in %.1f s, %d postings; %d postings left fresh folded"
                    + " in %.1f s (%d folded in the background during the import); %.0f MB on disk before the last fold,"
                    + " %.0f MB after it, %.0f MB live (%s)%n", docs, peerdexSecs,
                    postings, folded, foldSecs, storage.foldedPostings() - folded, freshBytes / 1e6, foldedBytes / 1e6,
                    peerdexBytes / 1e6, raw ? "raw key and value bytes of the live entries" : "every entry copied to a new store");

            List<String> sentences = new ArrayList<>();
            long l0 = System.nanoTime();
            Analyzer analyzer = new StandardAnalyzer();
            long luceneDocs;
            try (FSDirectory dir = FSDirectory.open(luceneDir)) {
                luceneDocs = luceneIndex(dir, analyzer, dump, seed, sentences);
                double luceneSecs = (System.nanoTime() - l0) / 1e9;
                System.out.printf(Locale.ROOT, "  lucene: %d documents in %.1f s%n", luceneDocs, luceneSecs);
                try (DirectoryReader reader = DirectoryReader.open(dir)) {
                    long luceneHeap = heapAfterGc() - heapBefore - peerdexHeap;
                    long luceneBytes = SearchBenchmark.treeBytes(luceneDir);
                    IndexSearcher searcher = new IndexSearcher(reader);
                    Map<String, Float> boosts = Map.of("title", 4f, "headings", 2f, "url", 2f, "body", 1f);
                    String[] fields = boosts.keySet().stream().sorted().toArray(String[]::new);
                    MultiFieldQueryParser or = new MultiFieldQueryParser(fields, analyzer, boosts);
                    MultiFieldQueryParser and = new MultiFieldQueryParser(fields, analyzer, boosts);
                    and.setDefaultOperator(QueryParser.Operator.AND);
                    LocalIndexSource index = new LocalIndexSource(storage, Runnable::run);
                    Map<String, Function<String, List<String>>> systems = new LinkedHashMap<>();
                    systems.put("peerdex-index", q -> SearchBenchmark.peerdexIndex(index, storage, q));
                    systems.put("lucene-fields", q -> SearchBenchmark.lucene(searcher, or, q));
                    systems.put("lucene-fields-and", q -> SearchBenchmark.lucene(searcher, and, q));
                    Map<String, Map<Integer, Latency>> lat = new LinkedHashMap<>();
                    Map<Integer, List<String>> queries = new LinkedHashMap<>();
                    for (int w = 1; w <= 3; w++) queries.put(w, queries(sentences, w, perSet, new SplittableRandom(seed + w)));
                    for (var e : systems.entrySet()) {
                        for (List<String> qs : queries.values()) for (int i = 0; i < Math.min(50, qs.size()); i++) e.getValue().apply(qs.get(i));
                        Map<Integer, Latency> byLength = new LinkedHashMap<>();
                        for (var q : queries.entrySet()) {
                            SearchBenchmark.EVALUATED.clear();
                            byLength.put(q.getKey(), time(e.getValue(), q.getValue()));
                            if (e.getKey().equals("peerdex-index")) printEvaluations(q.getKey(), SearchBenchmark.EVALUATED);
                        }
                        lat.put(e.getKey(), byLength);
                    }
                    double peerdexRate = docs / peerdexSecs;
                    double luceneRate = luceneDocs / luceneSecs;
                    System.out.printf(Locale.ROOT, "%n  %-18s %10s %12s %10s%n", "system", "docs/s", "bytes/doc", "heap MB");
                    System.out.printf(Locale.ROOT, "  %-18s %10.0f %12.0f %10.0f   (whole store, folded, live entries: postings, URL words, metadata, text; %.1f bytes/posting)%n",
                            "peerdex", peerdexRate, (double) peerdexBytes / docs, peerdexHeap / 1e6, (double) peerdexBytes / postings);
                    System.out.printf(Locale.ROOT, "  %-18s %10.0f %12.0f %10.0f   (reader open; title and body stored)%n", "lucene", luceneRate,
                            (double) luceneBytes / luceneDocs, luceneHeap / 1e6);
                    System.out.printf(Locale.ROOT, "  %-18s %5s %9s %9s%n", "system", "words", "p50 ms", "p99 ms");
                    lat.forEach((sys, m) -> m.forEach((w, l) -> System.out.printf(Locale.ROOT, "  %-18s %5d %9.3f %9.3f%n",
                            sys, w, l.p50(), l.p99())));
                    System.out.printf(Locale.ROOT, "  goals at %d documents (peerdex / lucene-fields):%n", n);
                    System.out.printf(Locale.ROOT, "    indexing %.2fx (goal >= 1.0)   size %.2fx (goal <= 1.5)%n",
                            peerdexRate / luceneRate, ((double) peerdexBytes / docs) / ((double) luceneBytes / luceneDocs));
                    for (int w = 1; w <= 3; w++) {
                        Latency pd = lat.get("peerdex-index").get(w);
                        Latency lf = lat.get("lucene-fields").get(w);
                        Latency la = lat.get("lucene-fields-and").get(w);
                        System.out.printf(Locale.ROOT, "    %d-word p50 %.1fx (goal <= 2)   p99 %.1fx (goal <= 3)   [vs lucene-fields-and: p50 %.1fx, p99 %.1fx]%n",
                                w, pd.p50() / lf.p50(), pd.p99() / lf.p99(), pd.p50() / la.p50(), pd.p99() / la.p99());
                    }
                }
            }
        } finally {
            pool.shutdownNow();
            Files.deleteIfExists(dump);
            BenchPeers.deleteTree(peerdexDir);
            BenchPeers.deleteTree(luceneDir);
        }
    }

    /** What Peerdex's evaluations of one query length did, summed: matches, scored, passed over, blocks skipped. */
    private static void printEvaluations(int words, List<long[]> evaluations) {
        long[] sum = new long[4];
        synchronized (evaluations) {
            for (long[] e : evaluations) for (int i = 0; i < sum.length; i++) sum[i] += e[i];
        }
        int n = Math.max(1, evaluations.size());
        System.out.printf(Locale.ROOT, "  peerdex %d-word evaluations (%d): per query %.0f matches, %.0f scored, %.0f passed"
                + " over, %.1f blocks skipped whole%n", words, evaluations.size(), (double) sum[0] / n,
                (double) sum[1] / n, (double) sum[2] / n, (double) sum[3] / n);
    }

    /**
     * Where the store's bytes go: entries and key and value bytes per keyspace (before LevelDB's own prefix sharing
     * and block compression), per document; returns their sum.
     */
    static long printKeyspaces(KeyValueStore store, long docs) {
        Map<Character, long[]> by = new java.util.TreeMap<>();
        try (KeyValueStore.Cursor c = store.scan(new byte[0], new byte[] {(byte) 0xFF})) {
            while (c.next()) {
                long[] a = by.computeIfAbsent((char) c.key()[0], k -> new long[3]);
                a[0]++;
                a[1] += c.key().length;
                a[2] += c.value().length;
            }
        }
        System.out.printf(Locale.ROOT, "  peerdex keyspaces (raw key + value bytes per document):%n");
        by.forEach((k, a) -> System.out.printf(Locale.ROOT, "    '%c' %,12d entries %,10.0f key B/doc %,10.0f value B/doc%n",
                k, a[0], (double) a[1] / docs, (double) a[2] / docs));
        return by.values().stream().mapToLong(a -> a[1] + a[2]).sum();
    }

    /**
     * Indexes the dump into Lucene with the importer's own parse ({@code MediaWikiDump}, {@code WikiText}, articles
     * only, redirects skipped) and keeps a seeded reservoir sample of body sentences for the queries.
     */
    static long luceneIndex(FSDirectory dir, Analyzer analyzer, Path dump, long seed, List<String> sample) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        long[] seen = {0};
        long[] docs = {0};
        String[] base = {"https://scale.test/wiki/"};
        try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(analyzer)); InputStream in = Files.newInputStream(dump)) {
            MediaWikiDump.read(in, info -> {
                if (!info.articleBase().isEmpty()) base[0] = info.articleBase();
            }, page -> {
                if (page.redirect() != null || page.namespace() != 0) return;
                WikiText.Result t = WikiText.convert(page.text());
                String url = MediaWikiDump.pageUrl(base[0], page.title());
                Document d = new Document();
                d.add(new StringField("id", url, Field.Store.YES));
                d.add(new TextField("title", page.title(), Field.Store.YES));
                d.add(new TextField("headings", String.join("\n", t.headings()), Field.Store.NO));
                d.add(new TextField("url", url.substring(base[0].length()).replaceAll("[^A-Za-z0-9]+", " "), Field.Store.NO));
                // stored, as Peerdex keeps each page's text for snippets and phrase checks
                d.add(new TextField("body", t.text(), Field.Store.YES));
                try {
                    w.addDocument(d);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
                docs[0]++;
                for (String s : t.text().split("(?<=[.!?])\\s+")) {
                    if (s.length() < 20) continue;
                    long k = seen[0]++;
                    if (sample.size() < SAMPLED_SENTENCES) sample.add(s);
                    else {
                        long j = random.nextLong(k + 1);
                        if (j < SAMPLED_SENTENCES) sample.set((int) j, s);
                    }
                }
            }, () -> false);
            w.commit();
        }
        return docs[0];
    }

    /** {@code n} consecutive words (the benchmark's own split) of a random sampled sentence. */
    static List<String> queries(List<String> sentences, int n, int count, SplittableRandom random) {
        List<String> out = new ArrayList<>();
        for (int attempt = 0; out.size() < count && attempt < count * 100 && !sentences.isEmpty(); attempt++) {
            List<String> words = SearchBenchmark.words(sentences.get(random.nextInt(sentences.size())));
            if (words.size() < n) continue;
            int at = random.nextInt(words.size() - n + 1);
            out.add(String.join(" ", words.subList(at, at + n)));
        }
        return out;
    }

    private static Latency time(Function<String, List<String>> system, List<String> queries) {
        double[] ms = new double[queries.size()];
        for (int i = 0; i < queries.size(); i++) {
            long t = System.nanoTime();
            system.apply(queries.get(i));
            ms[i] = (System.nanoTime() - t) / 1e6;
        }
        return new Latency(Percentiles.of(ms, 50), Percentiles.of(ms, 99));
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
