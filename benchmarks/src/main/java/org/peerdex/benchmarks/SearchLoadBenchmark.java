package org.peerdex.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * Sustained search load from a second process: starts a peer as a child JVM on 127.0.0.1 (or uses BASE_URL),
 * indexes the bundled manual and DOCS synthetic documents through the API, then runs CLIENTS closed-loop clients
 * for SECONDS over pooled keep-alive connections, and then, side by side, the naive client (a new connection per
 * request) for the same time, and then the pooled clients again while the peer crawls a local corpus (real HTML
 * served from this process on 127.0.0.1: {@code -Dpeerdex.load.corpus=DIR}, by default the PostgreSQL manual
 * if installed, else generated pages). Prints throughput, p50/p99/max, errors, heap and threads before and after,
 * and the crawl's pages during the run. Usage: {@code java -cp benchmarks/target/peerdex-benchmarks.jar
 * org.peerdex.benchmarks.SearchLoadBenchmark [SECONDS=60] [CLIENTS=8] [DOCS=5000] [BASE_URL]}.
 */
public final class SearchLoadBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SERVING = Pattern.compile("serving http://127\\.0\\.0\\.1:(\\d+)/");
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).executor(Executors.newFixedThreadPool(4)).build();

    private SearchLoadBenchmark() {}

    /** One run's figures. */
    record Result(String name, long requests, long errors, double seconds, long p50, long p90, long p99, long max) {
        @Override
        public String toString() {
            return String.format("%-26s %,9d requests %8.1f/s  errors %,d  p50 %6.2f ms  p90 %6.2f ms  p99 %6.2f ms"
                    + "  max %7.2f ms", name, requests, requests / seconds, errors, p50 / 1e6, p90 / 1e6, p99 / 1e6,
                    max / 1e6);
        }
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int docs = args.length > 2 ? Integer.parseInt(args[2]) : 5000;
        Process child = null;
        Path data = null;
        String base;
        if (args.length > 3) {
            base = args[3];
        } else {
            data = Files.createTempDirectory("peerdex-load");
            child = startPeer(data);
            base = "http://127.0.0.1:" + awaitPort(child);
        }
        try {
            System.out.println("peer " + base + "; indexing the manual and " + docs + " synthetic documents");
            post(base + "/api/index/manual", "");
            indexSynthetic(base, docs);
            String[] vocabulary = new String[5000];
            for (int i = 0; i < vocabulary.length; i++) vocabulary[i] = IndexingMemoryBenchmark.word(i);
            double[] zipf = IndexingMemoryBenchmark.zipfCdf(vocabulary.length, 1.0);
            // warm up the JIT and the caches, then measure
            run("warm-up", base, 5, clients, vocabulary, zipf, false);
            JsonNode before = status(base);
            Result keepAlive = run("keep-alive (pooled)", base, seconds, clients, vocabulary, zipf, false);
            JsonNode mid = status(base);
            Result naive = run("naive (connection/request)", base, seconds, clients, vocabulary, zipf, true);
            JsonNode after = status(base);
            // the same pooled load while the peer crawls a local corpus
            com.sun.net.httpserver.HttpServer corpus = LoadCorpus.serve();
            String crawlId;
            try {
                String seed = "http://127.0.0.1:" + corpus.getAddress().getPort() + "/index.html";
                crawlId = JSON.readTree(postForBody(base + "/api/crawl", "{\"url\": \"" + seed
                        + "\", \"depth\": 30, \"minDelayMs\": 0, \"maxPages\": 20000}")).get("id").asText();
                awaitFetched(base, crawlId, 20);
            } catch (Exception e) {
                corpus.stop(0);
                throw e;
            }
            JsonNode crawlBefore = crawl(base, crawlId);
            JsonNode beforeCrawl = status(base);
            Result crawling = run("keep-alive, crawl running", base, seconds, clients, vocabulary, zipf, false);
            JsonNode afterCrawl = status(base);
            JsonNode crawlAfter = crawl(base, crawlId);
            corpus.stop(0);
            System.out.println();
            System.out.printf("search load, %d closed-loop clients, %d s each, %d documents + manual, peer -Xmx512m%n",
                    clients, seconds, docs);
            System.out.println(keepAlive);
            System.out.println(naive);
            System.out.printf("peer heap used before %d MiB, after keep-alive %d MiB, after naive %d MiB (max %d MiB)%n",
                    before.path("heapUsedBytes").asLong() >> 20, mid.path("heapUsedBytes").asLong() >> 20,
                    after.path("heapUsedBytes").asLong() >> 20, after.path("heapMaxBytes").asLong() >> 20);
            System.out.printf("peer threads before %d, after keep-alive %d, after naive %d%n",
                    before.path("threads").asInt(), mid.path("threads").asInt(), after.path("threads").asInt());
            System.out.println(crawling);
            System.out.printf("crawl of %s during the run: state %s, %d pages fetched and %d indexed in the %d s"
                    + " (%d errors); %d fetched in all%n", LoadCorpus.describe(), crawlAfter.path("state").asText(),
                    crawlAfter.path("fetched").asLong() - crawlBefore.path("fetched").asLong(),
                    crawlAfter.path("indexed").asLong() - crawlBefore.path("indexed").asLong(), seconds,
                    crawlAfter.path("errors").asLong() - crawlBefore.path("errors").asLong(),
                    crawlAfter.path("fetched").asLong());
            System.out.printf("peer heap used before the crawl run %d MiB, after %d MiB; threads before %d, after %d%n",
                    beforeCrawl.path("heapUsedBytes").asLong() >> 20, afterCrawl.path("heapUsedBytes").asLong() >> 20,
                    beforeCrawl.path("threads").asInt(), afterCrawl.path("threads").asInt());
            System.out.println("load average " + Files.readString(Path.of("/proc/loadavg")).strip());
        } finally {
            if (child != null) {
                child.destroy();
                child.waitFor(30, TimeUnit.SECONDS);
                if (child.isAlive()) child.destroyForcibly();
            }
            if (data != null) IndexingMemoryBenchmark.delete(data);
            System.exit(0);
        }
    }

    static Result run(String name, String base, int seconds, int clients, String[] vocabulary, double[] zipf,
                      boolean naive) throws Exception {
        URI uri = URI.create(base);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        AtomicLong errors = new AtomicLong();
        List<CompletableFuture<Histogram>> futures = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int c = 0; c < clients; c++) {
            SplittableRandom r = new SplittableRandom(100 + c);
            futures.add(CompletableFuture.supplyAsync(() -> {
                // nanoseconds, 3 significant digits, growing as slower requests arrive; one per client thread
                Histogram lat = new Histogram(3);
                while (System.nanoTime() < end) {
                    int words = 1 + r.nextInt(3);
                    StringBuilder q = new StringBuilder();
                    for (int w = 0; w < words; w++) {
                        q.append(w == 0 ? "" : "+").append(vocabulary[IndexingMemoryBenchmark.sample(zipf, r.nextDouble())]);
                    }
                    String target = "/api/search?resource=local&q=" + q;
                    long s = System.nanoTime();
                    try {
                        int status = naive ? naiveGet(uri.getPort(), target) : pooledGet(base + target);
                        if (status != 200) errors.incrementAndGet();
                    } catch (Exception e) {
                        errors.incrementAndGet();
                    }
                    lat.recordValue(System.nanoTime() - s);
                }
                return lat;
            }, pool));
        }
        Histogram all = new Histogram(3);
        for (CompletableFuture<Histogram> f : futures) all.add(f.get());
        double secs = (System.nanoTime() - t0) / 1e9;
        pool.shutdown();
        return new Result(name, all.getTotalCount(), errors.get(), secs, all.getValueAtPercentile(50),
                all.getValueAtPercentile(90), all.getValueAtPercentile(99), all.getMaxValue());
    }

    static int pooledGet(String url) throws IOException, InterruptedException {
        HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofByteArray());
        return r.statusCode();
    }

    /** A fresh TCP connection, one request, read to the end. */
    static int naiveGet(int port, String target) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] all = in.readAllBytes();
            String head = new String(all, 0, Math.min(12, all.length), StandardCharsets.US_ASCII);
            return head.length() >= 12 ? Integer.parseInt(head.substring(9, 12)) : -1;
        }
    }

    static void indexSynthetic(String base, int docs) throws Exception {
        double[] zipf = IndexingMemoryBenchmark.zipfCdf(20_000, 1.0);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int t = 0; t < 4; t++) {
            int from = t;
            fs.add(CompletableFuture.runAsync(() -> {
                SplittableRandom r = new SplittableRandom(from);
                for (int n = from; n < docs; n += 4) {
                    StringBuilder text = new StringBuilder();
                    for (int w = 0; w < 80; w++) {
                        text.append(IndexingMemoryBenchmark.word(IndexingMemoryBenchmark.sample(zipf, r.nextDouble()))).append(' ');
                    }
                    try {
                        String body = JSON.writeValueAsString(Map.of("url", "http://load" + (n % 50) + ".bench/p/" + n,
                                "title", IndexingMemoryBenchmark.word(n % 5000) + " page " + n, "text", text.toString()));
                        post(base + "/api/index/document", body);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }, pool));
        }
        for (CompletableFuture<Void> f : fs) f.get();
        pool.shutdown();
        System.out.printf("indexed %d documents through POST /api/index/document in %.1f s%n", docs,
                (System.nanoTime() - t0) / 1e9);
    }

    static void post(String url, String json) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type",
                "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IOException(url + " answered " + r.statusCode() + ": " + r.body());
    }

    static String postForBody(String url, String json) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type",
                "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IOException(url + " answered " + r.statusCode() + ": " + r.body());
        return r.body();
    }

    static JsonNode crawl(String base, String id) throws IOException, InterruptedException {
        return JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(base + "/api/crawl/" + id)).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    /** Waits (polling, 60 s at most) until the crawl has fetched some pages, so the load meets a crawl in full run. */
    static void awaitFetched(String base, String id, long pages) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            JsonNode p = crawl(base, id);
            if (p.path("fetched").asLong() >= pages || !p.path("state").asText().equals("running")) return;
            Thread.sleep(100); // poll interval
        }
        throw new IOException("the crawl fetched fewer than " + pages + " pages in 60 s");
    }

    static JsonNode status(String base) throws IOException, InterruptedException {
        return JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(base + "/api/status")).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    static Process startPeer(Path data) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // the crawl run fetches from this process's own corpus server on 127.0.0.1
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx512m", "-Dpeerdex.crawler.allow-loopback=true",
                "-cp", System.getProperty("java.class.path"),
                "org.peerdex.node.Main", "--data", data.toString(), "--http", "127.0.0.1:0", "--cluster", "127.0.0.1:0");
        pb.redirectErrorStream(true);
        return pb.start();
    }

    static int awaitPort(Process child) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        for (String line; (line = r.readLine()) != null; ) {
            Matcher m = SERVING.matcher(line);
            if (m.find()) {
                // keep draining the child's output so it never blocks on a full pipe
                Thread drain = new Thread(() -> {
                    try {
                        while (r.readLine() != null) {
                            // discard
                        }
                    } catch (IOException ignored) {
                        // the child ended
                    }
                }, "peer-output");
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new IOException("the peer exited before serving");
    }
}
