package org.peerdex.benchmarks;

import static org.peerdex.benchmarks.BenchPeers.run;
import static org.peerdex.benchmarks.BenchPeers.send;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.peerdex.node.PeerNode;

/**
 * A wide crawl at the politeness limit (issue 18). The real corpora of {@code /work/shared/corpus/serve-corpus.sh}
 * (Python, PostgreSQL and OpenJDK documentation, those installed) are split over {@code HOSTS} loopback hosts
 * 127.0.0.2, 127.0.0.3, ... (each page on the host its path hashes to; every link to another page of the corpora is
 * rewritten to the host that serves it, so the hosts link to each other; links leaving the corpora are blanked) and
 * served by one nginx with one {@code server} block per host. A peer crawls them from the corpora's index pages with
 * {@code range: wide}, the default politeness (the node's 500 ms floor per host; no {@code minDelayMs}) and
 * {@code allow-loopback}; {@code mustMatch} keeps the crawl on these hosts. Prints pages/min (overall, and between
 * 10% and 90% of the pages) against the limit politeness allows (hosts × 60000 / 500 ms pages/min), where the
 * crawl's time went, the heap after collections over the run, and the gap check from nginx's access log: per host,
 * the time from the end of one request to the start of the next, which must never be below the floor. Where the
 * time goes: a sampling profile of the peer's fetch and index dispatcher threads (every 50 ms: the state of each and
 * its topmost Peerdex frame, or its top frame), the most frequent printed per pool.
 *
 * <p>Needs nginx (Debian: {@code apt-get install -y nginx-light}) and the documentation packages
 * ({@code python3.11-doc postgresql-doc-15 openjdk-17-doc}). Usage:
 * {@code WideCrawlBenchmark [HOSTS=200] [MAX_PAGES=20000] [PORT=18290] [WORK_DIR=/tmp/peerdex-wide]}.
 */
public final class WideCrawlBenchmark {
    private static final Map<String, Path> CORPORA = new LinkedHashMap<>();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern HREF = Pattern.compile("(href\\s*=\\s*\")([^\"]*)(\")", Pattern.CASE_INSENSITIVE);
    private static final long FLOOR_MS = 500;

    static {
        CORPORA.put("python", Path.of("/usr/share/doc/python3.11/html"));
        CORPORA.put("postgres", Path.of("/usr/share/doc/postgresql-doc-15/html"));
        CORPORA.put("openjdk", Path.of("/usr/share/doc/openjdk-17-jre-headless/api"));
    }

    private WideCrawlBenchmark() {}

    public static void main(String[] args) throws Exception {
        int hosts = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        long maxPages = args.length > 1 ? Long.parseLong(args[1]) : 20_000;
        int port = args.length > 2 ? Integer.parseInt(args[2]) : 18290;
        Path work = Path.of(args.length > 3 ? args[3] : "/tmp/peerdex-wide");
        if (hosts < 1 || hosts > 254) throw new IllegalArgumentException("HOSTS must be 1..254");
        BenchPeers.deleteTree(work);
        Files.createDirectories(work);
        List<String> starts = new ArrayList<>();
        Map<String, Integer> pagesPerHost = split(hosts, port, work, starts);
        Path conf = nginxConf(hosts, port, work);
        Process nginx = new ProcessBuilder("/usr/sbin/nginx", "-c", conf.toString(), "-p", work.toString())
                .inheritIO().start();
        try {
            awaitServing("http://127.0.0.2:" + port + "/robots.txt");
            crawl(starts, hosts, port, maxPages, pagesPerHost);
        } finally {
            nginx.destroy();
            nginx.waitFor();
        }
        gapCheck(work.resolve("access.log"), hosts);
    }

    private static String host(int i) {
        return "127.0.0." + (2 + i);
    }

    /** Writes every page of the corpora to the directory of its host, links rewritten; returns pages per host. */
    private static Map<String, Integer> split(int hosts, int port, Path work, List<String> starts) throws IOException {
        // URL path ("/python/library/os.html") → host index
        Map<String, Integer> where = new HashMap<>();
        Map<String, Path> files = new HashMap<>();
        for (Map.Entry<String, Path> c : CORPORA.entrySet()) {
            Path root = c.getValue();
            if (!Files.isDirectory(root)) {
                System.out.println("corpus " + c.getKey() + " not installed (" + root + "): left out");
                continue;
            }
            try (Stream<Path> s = Files.walk(root, FileVisitOption.FOLLOW_LINKS)) {
                s.filter(f -> f.toString().endsWith(".html") && Files.isRegularFile(f)).forEach(f -> {
                    String path = "/" + c.getKey() + "/" + root.relativize(f).toString().replace('\\', '/');
                    where.put(path, Math.floorMod(path.hashCode() * 0x9E3779B1, hosts));
                    files.put(path, f);
                });
            }
            String index = "/" + c.getKey() + "/index.html";
            if (where.containsKey(index)) starts.add("http://" + host(where.get(index)) + ":" + port + index);
        }
        Map<String, Integer> perHost = new TreeMap<>();
        long t0 = System.nanoTime();
        for (Map.Entry<String, Path> e : files.entrySet()) {
            String path = e.getKey();
            int h = where.get(path);
            perHost.merge(host(h), 1, Integer::sum);
            // ISO-8859-1 keeps every byte as it is; the links rewritten are ASCII
            String html = Files.readString(e.getValue(), StandardCharsets.ISO_8859_1);
            Path out = work.resolve("h" + h + path);
            Files.createDirectories(out.getParent());
            Files.writeString(out, rewrite(html, path, where, port), StandardCharsets.ISO_8859_1);
        }
        System.out.printf("split %d pages of %s over %d hosts (%d..%d pages a host) in %.1f s%n", files.size(),
                CORPORA.keySet(), perHost.size(), perHost.values().stream().mapToInt(i -> i).min().orElse(0),
                perHost.values().stream().mapToInt(i -> i).max().orElse(0), (System.nanoTime() - t0) / 1e9);
        return perHost;
    }

    /** Links to pages of the corpora go to the host serving them; every other link (assets, the web) is blanked. */
    static String rewrite(String html, String path, Map<String, Integer> where, int port) {
        URI base = URI.create("http://x" + path);
        Matcher m = HREF.matcher(html);
        StringBuilder out = new StringBuilder(html.length() + 1024);
        while (m.find()) {
            String href = m.group(2).replace("&amp;", "&");
            String target = "#";
            if (href.startsWith("#")) {
                target = href;
            } else {
                try {
                    URI u = base.resolve(href);
                    String p = u.getPath();
                    if ("x".equals(u.getHost()) && p != null) {
                        if (p.endsWith("/")) p += "index.html";
                        Integer h = where.get(p);
                        if (h != null) {
                            target = "http://" + host(h) + ":" + port + u.getRawPath()
                                    + (u.getRawPath().endsWith("/") ? "index.html" : "")
                                    + (u.getRawFragment() == null ? "" : "#" + u.getRawFragment());
                        }
                    }
                } catch (IllegalArgumentException e) {
                    // an unusable href stays blank
                }
            }
            m.appendReplacement(out, Matcher.quoteReplacement(m.group(1) + target + m.group(3)));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static Path nginxConf(int hosts, int port, Path work) throws IOException {
        StringBuilder c = new StringBuilder();
        c.append("worker_processes 2;\npid ").append(work.resolve("nginx.pid")).append(";\nerror_log ")
                .append(work.resolve("error.log")).append(";\ndaemon off;\nevents { worker_connections 2048; }\n")
                .append("http {\n  include /etc/nginx/mime.types;\n  sendfile on;\n  keepalive_timeout 75s;\n")
                // the end of a request ($msec) and its duration: the start is $msec - $request_time
                .append("  log_format gaps '$server_addr $msec $request_time $status \"$request\"';\n")
                .append("  access_log ").append(work.resolve("access.log")).append(" gaps;\n");
        for (String t : List.of("client_body", "proxy", "fastcgi", "uwsgi", "scgi")) {
            c.append("  ").append(t).append("_temp_path ").append(work.resolve("tmp-" + t)).append(";\n");
        }
        for (int i = 0; i < hosts; i++) {
            c.append("  server {\n    listen ").append(host(i)).append(':').append(port).append(";\n    root ")
                    .append(work.resolve("h" + i)).append(";\n")
                    .append("    location = /robots.txt { default_type text/plain; return 200 \"User-agent: *\\n")
                    .append("Disallow: /python/whatsnew/\\nDisallow: /postgres/release\\nDisallow: /openjdk/jdk.jshell/\\n\"; }\n")
                    .append("    location / { try_files $uri =404; }\n  }\n");
        }
        c.append("}\n");
        Path conf = work.resolve("nginx.conf");
        Files.writeString(conf, c.toString());
        return conf;
    }

    private static void awaitServing(String url) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(100); // waiting for nginx to bind, from a benchmark's main thread
        }
        throw new IOException("nginx does not answer " + url);
    }

    private static void crawl(List<String> starts, int hosts, int port, long maxPages, Map<String, Integer> perHost)
            throws Exception {
        Path data = Files.createTempDirectory("peerdex-wide-bench");
        try (PeerNode node = PeerNode.start(BenchPeers.config(data,
                Map.of("peerdex.mode", "portal", "peerdex.crawler.allow-loopback", true)))) {
            StringBuilder urls = new StringBuilder();
            for (String s : starts) urls.append(urls.length() == 0 ? "" : ", ").append('"').append(s).append('"');
            // default politeness: no minDelayMs. mustMatch keeps the wide crawl on these hosts, never the web.
            String profile = "{\"urls\": [" + urls + "], \"range\": \"wide\", \"depth\": 1000, \"maxPages\": " + maxPages
                    + ", \"mustMatch\": \"http://127\\\\.0\\\\.0\\\\.[0-9]+:" + port + "/.*\"}";
            JsonNode started = send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/crawl"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(profile)));
            String id = started.get("id").asText();
            long limitPerMin = perHost.size() * 60_000L / FLOOR_MS;
            System.out.printf("crawl %s from %s; limit %d hosts × %d pages/min = %,d pages/min%n", id, starts,
                    perHost.size(), 60_000L / FLOOR_MS, limitPerMin);
            JsonNode p;
            long lastLog = 0;
            List<Long> heap = new ArrayList<>();
            OperatingSystemMXBean os =
                    (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            long wall0 = System.nanoTime();
            Profile sampled = new Profile();
            Thread sampler = new Thread(sampled, "wide-crawl-sampler");
            sampler.setDaemon(true);
            sampler.start();
            while (true) {
                p = send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/crawl/" + id)).GET());
                if (!p.get("state").asText().equals("running")) break;
                if (System.currentTimeMillis() - lastLog > 10_000) {
                    lastLog = System.currentTimeMillis();
                    long h = heapAfterGc();
                    heap.add(h);
                    System.out.printf("%4d s: %,d fetched, %,d indexed, %,d queued, %.0f pages/min (last minute), "
                                    + "%d host queues, %d on the wire, heap after GC %d MiB%n",
                            p.get("durationMs").asLong() / 1000, p.get("fetched").asLong(), p.get("indexed").asLong(),
                            p.get("queued").asLong(), p.get("pagesPerMinute").asDouble(), p.get("hostQueues").asInt(),
                            p.get("fetching").size(), h >> 20);
                }
                Thread.sleep(200); // polling a progress endpoint from a benchmark's main thread
            }
            double cpuSeconds = (os.getProcessCpuTime() - cpu0) / 1e9;
            double wallSeconds = (System.nanoTime() - wall0) / 1e9;
            sampler.interrupt();
            sampler.join();
            sampled.print();
            long fetched = p.get("fetched").asLong();
            double seconds = p.get("durationMs").asLong() / 1000.0;
            System.out.printf("%ncrawl %s: %,d fetched, %,d indexed, %,d skipped %s, %,d errors %s in %.1f s%n",
                    p.get("state").asText(), fetched, p.get("indexed").asLong(), p.get("skipped").asLong(),
                    p.get("skippedBy"), p.get("errors").asLong(), p.get("errorsBy"), seconds);
            System.out.println("time summed over pages (ms): " + p.get("timingMs"));
            double overall = fetched * 60 / seconds;
            double steady = steadyRate(p.get("history"), fetched);
            System.out.printf("pages/min overall %,.0f (%.0f%% of the limit %,d); between 10%% and 90%% of the pages "
                    + "%,.0f (%.0f%%)%n", overall, 100 * overall / limitPerMin, limitPerMin, steady,
                    100 * steady / limitPerMin);
            // the CPU this JVM (peer and benchmark) used: what a page costs, and the rate its cores would allow
            System.out.printf("CPU: %.0f s of this process in %.0f s (%.2f cores busy on average of %d); %.1f ms CPU a "
                            + "page, so %,.0f pages/min would need %.1f cores%n", cpuSeconds, wallSeconds,
                    cpuSeconds / wallSeconds, Runtime.getRuntime().availableProcessors(), cpuSeconds * 1000 / fetched,
                    (double) limitPerMin, limitPerMin / 60.0 * cpuSeconds / fetched);
            System.out.println("heap after GC, every 10 s (MiB): " + heap.stream().map(h -> h >> 20).toList());
        } finally {
            BenchPeers.deleteTree(data);
        }
    }

    /** Samples the dispatcher threads of the peer: per pool, how often each (state, frame) was seen. */
    private static final class Profile implements Runnable {
        private final Map<String, Map<String, Integer>> seen = new TreeMap<>();
        private int samples;

        @Override
        public void run() {
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            while (!Thread.currentThread().isInterrupted()) {
                samples++;
                for (ThreadInfo t : mx.dumpAllThreads(false, false, 64)) {
                    String pool = t.getThreadName().contains("fetch-dispatcher") ? "fetch"
                            : t.getThreadName().contains("index-dispatcher") ? "index" : null;
                    if (pool == null) continue;
                    StackTraceElement[] st = t.getStackTrace();
                    String frame = st.length == 0 ? "-" : st[0].getClassName() + "." + st[0].getMethodName();
                    for (StackTraceElement e : st) {
                        if (e.getClassName().startsWith("org.peerdex")) {
                            frame = e.getClassName().replace("org.peerdex.", "") + "." + e.getMethodName()
                                    + " (top: " + (st[0].getClassName() + "." + st[0].getMethodName())
                                    .replaceAll("^.*\\.([A-Za-z0-9$]+\\.[A-Za-z0-9$<>]+)$", "$1") + ")";
                            break;
                        }
                    }
                    seen.computeIfAbsent(pool, k -> new HashMap<>()).merge(t.getThreadState() + " " + frame, 1,
                            Integer::sum);
                }
                try {
                    Thread.sleep(50); // the sampling interval
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        void print() {
            System.out.printf("%nprofile: %d samples of the fetch and index dispatcher threads (thread-samples, share)%n",
                    samples);
            seen.forEach((pool, frames) -> {
                int total = frames.values().stream().mapToInt(i -> i).sum();
                System.out.println(pool + ":");
                frames.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(12).forEach(e ->
                        System.out.printf("  %6d %5.1f%%  %s%n", e.getValue(), 100.0 * e.getValue() / total, e.getKey()));
            });
        }
    }

    /** Pages/min between the moments 10% and 90% of the pages were fetched (from the crawl's samples). */
    static double steadyRate(JsonNode history, long total) {
        long t10 = -1, f10 = 0, t90 = -1, f90 = 0;
        for (JsonNode s : history) {
            long f = s.get("fetched").asLong();
            if (t10 < 0 && f >= total / 10) {
                t10 = s.get("at").asLong();
                f10 = f;
            }
            if (t90 < 0 && f >= total * 9 / 10) {
                t90 = s.get("at").asLong();
                f90 = f;
            }
        }
        return t90 > t10 && t10 >= 0 ? (f90 - f10) * 60_000.0 / (t90 - t10) : 0;
    }

    /** Heap in use after the last collection of each heap pool (what survives: flat if nothing accumulates). */
    private static long heapAfterGc() {
        long used = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
                used += pool.getCollectionUsage().getUsed();
            }
        }
        return used;
    }

    /** Per host, the gaps from the end of one request to the start of the next, from nginx's access log. */
    private static void gapCheck(Path log, int hosts) throws IOException {
        Map<String, List<double[]>> byHost = new HashMap<>();
        long requests = 0;
        for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
            String[] f = line.split(" ", 5);
            if (f.length < 4) continue;
            double end = Double.parseDouble(f[1]);
            double took = Double.parseDouble(f[2]);
            byHost.computeIfAbsent(f[0], k -> new ArrayList<>()).add(new double[] {end - took, end});
            requests++;
        }
        long below = 0;
        long gaps = 0;
        double min = Double.MAX_VALUE;
        String minHost = "";
        for (Map.Entry<String, List<double[]>> e : byHost.entrySet()) {
            List<double[]> r = e.getValue();
            r.sort((a, b) -> Double.compare(a[0], b[0]));
            for (int i = 1; i < r.size(); i++) {
                double gapMs = (r.get(i)[0] - r.get(i - 1)[1]) * 1000;
                gaps++;
                // nginx logs milliseconds: a gap 1 ms under the floor may be rounding
                if (gapMs < FLOOR_MS - 1) below++;
                if (gapMs < min) {
                    min = gapMs;
                    minHost = e.getKey();
                }
            }
        }
        System.out.printf("nginx access log: %,d requests on %d of %d hosts; %,d gaps, the shortest %.0f ms (%s); "
                + "%d below the %d ms floor%n", requests, byHost.size(), hosts, gaps, min, minHost, below, FLOOR_MS);
        System.out.println(below == 0 ? "gap check: PASS" : "gap check: FAIL");
    }
}
