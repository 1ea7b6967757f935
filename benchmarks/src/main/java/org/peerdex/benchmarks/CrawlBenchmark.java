package org.peerdex.benchmarks;

import static org.peerdex.benchmarks.BenchPeers.freePort;
import static org.peerdex.benchmarks.BenchPeers.run;
import static org.peerdex.benchmarks.BenchPeers.send;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.peerdex.node.PeerNode;

/**
 * Crawl throughput side by side: Peerdex crawling <em>and indexing</em> a real documentation site served by nginx
 * on 127.0.0.1 (politeness 0 for that host), and {@code wget --recursive --level=inf --no-parent} only fetching the
 * same site, in one run. Prints pages, seconds, pages/s and pages/min for both, the ratio, and where Peerdex's time
 * went (fetch, parse, index; summed over pages, so with parallel fetches they exceed the wall time).
 *
 * <p>Usage: {@code CrawlBenchmark [CORPUS=postgres] [PORT=random] [URL]}: starts
 * {@code /work/shared/corpus/serve-corpus.sh start PORT CORPUS} (stopped at the end) unless a URL is given.
 */
public final class CrawlBenchmark {
    private static final String SERVE = System.getProperty("peerdex.serve-corpus", "/work/shared/corpus/serve-corpus.sh");

    private CrawlBenchmark() {}

    /** One engine's figures. */
    record Row(String engine, long pages, double seconds) {
        double perSecond() {
            return pages / seconds;
        }
    }

    public static void main(String[] args) throws Exception {
        String corpus = args.length > 0 ? args[0] : "postgres";
        int port = args.length > 1 && !args[1].equals("random") ? Integer.parseInt(args[1]) : freePort();
        String url = args.length > 2 ? args[2] : null;
        boolean serve = url == null;
        if (serve) {
            run(SERVE, "start", Integer.toString(port), corpus);
            url = "http://127.0.0.1:" + port + "/index.html";
        }
        try {
            Row peerdex = peerdex(url);
            Row wget = wget(url);
            System.out.printf("%n%-8s %8s %9s %9s %10s%n", "engine", "pages", "seconds", "pages/s", "pages/min");
            for (Row r : new Row[] {peerdex, wget}) {
                System.out.printf("%-8s %8d %9.2f %9.1f %10.0f%n", r.engine(), r.pages(), r.seconds(), r.perSecond(),
                        r.perSecond() * 60);
            }
            System.out.printf("ratio peerdex/wget (pages/s): %.2f%n", peerdex.perSecond() / wget.perSecond());
        } finally {
            if (serve) run(SERVE, "stop", Integer.toString(port));
        }
    }

    private static Row peerdex(String url) throws Exception {
        Path data = Files.createTempDirectory("peerdex-crawl-bench");
        try (PeerNode node = PeerNode.start(BenchPeers.config(data,
                Map.of("peerdex.mode", "portal", "peerdex.crawler.allow-loopback", true)))) {
            String profile = "{\"url\": \"" + url + "\", \"minDelayMs\": 0, \"depth\": 1000, \"maxPages\": 1000000,"
                    + " \"range\": \"subpath\"}";
            JsonNode started = send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/crawl"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(profile)));
            String id = started.get("id").asText();
            JsonNode p;
            long lastLog = 0;
            while (true) {
                p = send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/crawl/" + id)).GET());
                if (!p.get("state").asText().equals("running")) break;
                if (System.currentTimeMillis() - lastLog > 5000) {
                    lastLog = System.currentTimeMillis();
                    System.out.printf("peerdex: %d fetched, %d indexed, %.0f pages/min%n", p.get("fetched").asLong(),
                            p.get("indexed").asLong(), p.get("pagesPerMinute").asDouble());
                }
                Thread.sleep(100); // polling a progress endpoint from a benchmark's main thread
            }
            double seconds = (p.get("finishedAt").asLong() - p.get("startedAt").asLong()) / 1000.0;
            System.out.println("peerdex crawl: " + p);
            System.out.printf("peerdex: %d fetched, %d indexed, %d skipped %s, %d errors %s%n",
                    p.get("fetched").asLong(), p.get("indexed").asLong(), p.get("skipped").asLong(),
                    p.get("skippedBy"), p.get("errors").asLong(), p.get("errorsBy"));
            JsonNode status = send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/status")).GET());
            System.out.printf("peerdex index: %d documents, %d postings%n", status.get("documents").asLong(),
                    status.get("postings").asLong());
            return new Row("peerdex", p.get("indexed").asLong(), seconds);
        } finally {
            BenchPeers.deleteTree(data);
        }
    }

    private static Row wget(String url) throws Exception {
        Path dir = Files.createTempDirectory("peerdex-wget-bench");
        try {
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder("wget", "--recursive", "--level=inf", "--no-parent", "-q", "-P",
                    dir.toString(), url).inheritIO().start();
            p.waitFor();
            double seconds = (System.nanoTime() - t0) / 1e9;
            long pages;
            try (Stream<Path> s = Files.walk(dir)) {
                pages = s.filter(f -> f.toString().endsWith(".html") || f.toString().endsWith(".htm")).count();
            }
            return new Row("wget", pages, seconds);
        } finally {
            BenchPeers.deleteTree(dir);
        }
    }
}
