package org.peerdex.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URLEncoder;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.node.PeerNode;
import org.peerdex.node.http.Json;
import org.peerdex.benchmarks.lab.RealLab;

/**
 * Soak: 3 real peers in this JVM (RealLab: own ActorSystem, LevelDB, HTTP on 127.0.0.1 each) crawl a local site
 * round after round (each round from the next peer, recrawling what is indexed, so replication never rests) while
 * search clients ask all peers (resource=global) at a steady rate. Every sample interval it forces a GC and records
 * the used heap, then prints a table and the heap's slope (least squares, MiB per hour; over all samples and over the
 * samples after the first third, past warm-up). Not a test: run it by hand.
 * <pre>
 * java -Xmx1g -cp benchmarks/target/peerdex-benchmarks.jar org.peerdex.benchmarks.SoakBenchmark \
 *      [minutes=30] [sample-seconds=30] [search-clients=2] [searches-per-second-per-client=4] [pages-per-round=2000]
 * </pre>
 * The site is {@code -Dpeerdex.soak.site=URL} (e.g. the corpus server, /work/shared/corpus/serve-corpus.sh start
 * PORT python), else {@link LoadCorpus}: the PostgreSQL manual when installed, or 20,000 generated linked pages.
 * Query words: {@code -Dpeerdex.soak.words=a,b,c}, else words of the generated pages or common documentation words.
 */
public final class SoakBenchmark {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String[] DOC_WORDS = {"function", "module", "class", "string", "list", "error", "file",
        "table", "index", "value", "return", "object", "type", "server", "query", "example", "default", "option"};

    private SoakBenchmark() {}

    /** One row of the table. */
    private record Sample(double minutes, double heapMiB, int threads, long documents, long postings,
                          long outboxEntries, long outboxHeapKiB, long searches, long errors, long p50, long p99,
                          long crawlRounds, boolean indexingPaused) {}

    public static void main(String[] args) throws Exception {
        double minutes = args.length > 0 ? Double.parseDouble(args[0]) : 30;
        int sampleSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        int clients = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        double rate = args.length > 3 ? Double.parseDouble(args[3]) : 4;
        int pagesPerRound = args.length > 4 ? Integer.parseInt(args[4]) : 2000;
        String site = System.getProperty("peerdex.soak.site", "");
        HttpServer corpus = site.isEmpty() ? LoadCorpus.serve() : null;
        String start = site.isEmpty() ? "http://127.0.0.1:" + corpus.getAddress().getPort() + "/index.html" : site;
        boolean generated = site.isEmpty() && !Files.isDirectory(LoadCorpus.ROOT);
        String[] words = System.getProperty("peerdex.soak.words", "").isEmpty() ? null
                : System.getProperty("peerdex.soak.words").split(",");
        System.out.printf("soak: 3 peers, %.1f min, sample every %d s, %d search clients x %.1f/s, crawl %s (%s), "
                        + "%d pages a round; -Xmx %d MiB; load %s%n", minutes, sampleSeconds, clients, rate, start,
                site.isEmpty() ? LoadCorpus.describe() : "given site", pagesPerRound,
                Runtime.getRuntime().maxMemory() >> 20, loadAverage());
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong rounds = new AtomicLong();
        AtomicLong searchErrors = new AtomicLong();
        // milliseconds, up to an hour, 3 significant digits; threads record, the sampler takes each interval's histogram
        Recorder latencies = new Recorder(TimeUnit.HOURS.toMillis(1), 3);
        List<Sample> samples = new ArrayList<>();
        // the lab's seconds-fast failure detection would down a peer for a forced GC on a busy machine
        try (RealLab lab = RealLab.start(3, Map.of("peerdex.crawler.allow-loopback", true,
                "peerdex.indexer.flush-interval", "100ms",
                "pekko.cluster.failure-detector.acceptable-heartbeat-pause", "10s",
                "pekko.cluster.split-brain-resolver.stable-after", "20s"))) {
            Thread crawler = new Thread(() -> crawlRounds(lab, start, generated, pagesPerRound, running, rounds),
                    "soak-crawl");
            crawler.setDaemon(true);
            crawler.start();
            List<Thread> searchers = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                SplittableRandom r = new SplittableRandom(7 + c);
                Thread t = new Thread(() -> search(lab, r, words, generated, rate, running, latencies, searchErrors),
                        "soak-search-" + c);
                t.setDaemon(true);
                t.start();
                searchers.add(t);
            }
            long t0 = System.nanoTime();
            long end = t0 + (long) (minutes * 60e9);
            long next = t0;
            long errorsBefore = 0;
            int histograms = 0;
            printHeader();
            while (true) {
                Sample s = sample(lab, (System.nanoTime() - t0) / 60e9, latencies, searchErrors.get() - errorsBefore,
                        rounds.get());
                errorsBefore += s.errors();
                samples.add(s);
                printRow(s);
                int third = (int) Math.min(3, Math.floor(s.minutes() / minutes * 3 + 1e-9));
                if (third > histograms) { // what the heap holds at the end of each third of the run
                    histograms = third;
                    System.out.printf("live classes at %.1f min (top 12 by bytes):%n%s", s.minutes(), histogram(12));
                }
                next += TimeUnit.SECONDS.toNanos(sampleSeconds);
                if (next > end) break;
                LockSupport.parkNanos(next - System.nanoTime()); // the sampling period
            }
            running.set(false);
            for (Thread t : searchers) t.join(30_000);
            crawler.join(30_000);
        } finally {
            if (corpus != null) corpus.stop(0);
        }
        System.out.println();
        printHeader();
        for (Sample s : samples) printRow(s);
        double[] all = slope(samples, 0);
        double[] late = slope(samples, samples.size() / 3);
        System.out.printf("heap after GC: first %.1f MiB, last %.1f MiB, max %.1f MiB; slope %.1f MiB/h over all %d "
                        + "samples, %.1f MiB/h over the last %d (after warm-up); load %s%n", samples.get(0).heapMiB(),
                samples.get(samples.size() - 1).heapMiB(),
                samples.stream().mapToDouble(Sample::heapMiB).max().orElse(0), all[0], samples.size(), late[0],
                samples.size() - samples.size() / 3, loadAverage());
        // a trend shows as a rising median from third to third; what is in flight moves the maximum, not the median
        int n = samples.size();
        for (int t = 0; t < 3; t++) {
            List<Sample> part = samples.subList(t * n / 3, Math.max(t * n / 3 + 1, (t + 1) * n / 3));
            double[] h = part.stream().mapToDouble(Sample::heapMiB).sorted().toArray();
            System.out.printf("third %d (%.1f-%.1f min): heap after GC median %.1f MiB, min %.1f, max %.1f%n", t + 1,
                    part.get(0).minutes(), part.get(part.size() - 1).minutes(), h[h.length / 2], h[0], h[h.length - 1]);
        }
    }

    /** The top {@code rows} lines of this JVM's live class histogram (the jcmd GC.class_histogram command). */
    private static String histogram(int rows) {
        try {
            var server = ManagementFactory.getPlatformMBeanServer();
            var name = new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand");
            String all = (String) server.invoke(name, "gcClassHistogram", new Object[] {new String[0]},
                    new String[] {String[].class.getName()});
            StringBuilder out = new StringBuilder();
            String[] lines = all.split("\n");
            for (int i = 0; i < Math.min(lines.length, rows + 2); i++) out.append(lines[i]).append('\n');
            return out.toString();
        } catch (Exception e) {
            return "(no histogram: " + e + ")\n";
        }
    }

    /**
     * Crawl rounds until the soak ends: each from the next peer, recrawling pages older than a second; on the
     * generated site each round starts at another page, so the index also grows.
     */
    private static void crawlRounds(RealLab lab, String start, boolean generated, int pages, AtomicBoolean running,
                                    AtomicLong rounds) {
        for (int round = 0; running.get(); round++) {
            int peer = round % lab.peers();
            String url = generated && round > 0 ? start.replace("/index.html", "/" + (round * 997) % 20_000 + ".html")
                    : start;
            String id;
            try {
                JsonNode r = send(lab.node(peer), "POST", "/api/crawl", Json.write(Map.of("url", url, "depth", 50,
                        "maxPages", pages, "minDelayMs", 0, "recrawlAfter", "PT1S")));
                id = r.path("id").asText();
            } catch (Exception e) {
                System.out.println("crawl round " + round + " could not start: " + e);
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(5)); // before the next round
                continue;
            }
            // one crawl at a time: a poll that fails (a slow answer on a loaded machine) is repeated, never taken
            // for the end of the crawl, which would start the next round beside it
            while (running.get()) {
                try {
                    JsonNode p = send(lab.node(peer), "GET", "/api/crawl/" + id, null);
                    if (!p.path("state").asText().equals("running")) break;
                } catch (Exception e) {
                    System.out.println("crawl round " + round + ": progress poll failed (" + e + "); polling again");
                }
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // progress poll interval
            }
            if (!running.get()) {
                try {
                    send(lab.node(peer), "DELETE", "/api/crawl/" + id, null);
                } catch (Exception e) {
                    System.out.println("crawl round " + round + " could not be stopped: " + e);
                }
            }
            rounds.incrementAndGet();
        }
    }

    /** A closed-loop client paced to {@code rate} searches a second, each at a random peer over all peers. */
    private static void search(RealLab lab, SplittableRandom r, String[] words, boolean generated, double rate,
                               AtomicBoolean running, Recorder latencies, AtomicLong errors) {
        long period = (long) (1e9 / rate);
        long next = System.nanoTime();
        while (running.get()) {
            StringBuilder q = new StringBuilder();
            int n = 1 + r.nextInt(2);
            for (int i = 0; i < n; i++) {
                String w = words != null ? words[r.nextInt(words.length)]
                        : generated ? IndexingMemoryBenchmark.word(r.nextInt(20_000)) : DOC_WORDS[r.nextInt(DOC_WORDS.length)];
                q.append(i == 0 ? "" : " ").append(w);
            }
            PeerNode node = lab.node(r.nextInt(lab.peers()));
            long s = System.nanoTime();
            try {
                HttpResponse<String> resp = HTTP.send(HttpRequest.newBuilder(URI.create(node.baseUrl()
                        + "/api/search?resource=global&count=10&q=" + URLEncoder.encode(q.toString(),
                        StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(30)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                if (resp.statusCode() != 200) errors.incrementAndGet();
            } catch (Exception e) {
                errors.incrementAndGet();
            }
            latencies.recordValue(Math.min(TimeUnit.HOURS.toMillis(1), (System.nanoTime() - s) / 1_000_000));
            next += period;
            long wait = next - System.nanoTime();
            if (wait > 0) LockSupport.parkNanos(wait); // pacing
            else next = System.nanoTime();
        }
    }

    private static Sample sample(RealLab lab, double minutes, Recorder latencies, long errors,
                                 long rounds) {
        System.gc();
        System.gc();
        double heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1048576.0;
        long docs = 0;
        long postings = 0;
        long outbox = 0;
        long outboxHeap = 0;
        boolean paused = false;
        for (int i = 0; i < lab.peers(); i++) {
            PeerNode n = lab.node(i);
            docs += n.context().storage().stats().documents();
            postings += n.context().storage().stats().postings();
            DhtPeer dht = n.services().network().dht();
            outbox += dht.stats().outboxEntries.get();
            outboxHeap += dht.stats().outboxHeapBytes.get();
            paused |= dht.stats().outboxFull;
        }
        Histogram interval = latencies.getIntervalHistogram();
        return new Sample(minutes, heap, ManagementFactory.getThreadMXBean().getThreadCount(), docs, postings, outbox,
                outboxHeap >> 10, interval.getTotalCount(), errors, interval.getValueAtPercentile(50),
                interval.getValueAtPercentile(99), rounds, paused);
    }

    /** Least-squares slope of heap over time from sample {@code from} on, in MiB per hour. */
    private static double[] slope(List<Sample> samples, int from) {
        List<Sample> s = samples.subList(Math.min(from, Math.max(0, samples.size() - 2)), samples.size());
        if (s.size() < 2) return new double[] {0};
        double mx = s.stream().mapToDouble(Sample::minutes).average().orElse(0);
        double my = s.stream().mapToDouble(Sample::heapMiB).average().orElse(0);
        double num = 0;
        double den = 0;
        for (Sample x : s) {
            num += (x.minutes() - mx) * (x.heapMiB() - my);
            den += (x.minutes() - mx) * (x.minutes() - mx);
        }
        return new double[] {den == 0 ? 0 : num / den * 60};
    }

    private static void printHeader() {
        System.out.printf("%7s %9s %7s %9s %10s %8s %9s %8s %6s %6s %7s %6s %6s%n", "min", "heapMiB", "threads",
                "documents", "postings", "outbox", "outboxKiB", "searches", "errors", "p50ms", "p99ms", "rounds",
                "paused");
    }

    private static void printRow(Sample s) {
        System.out.printf("%7.1f %9.1f %7d %9d %10d %8d %9d %8d %6d %6d %7d %6d %6s%n", s.minutes(), s.heapMiB(),
                s.threads(), s.documents(), s.postings(), s.outboxEntries(), s.outboxHeapKiB(), s.searches(),
                s.errors(), s.p50(), s.p99(), s.crawlRounds(), s.indexingPaused() ? "yes" : "no");
    }

    private static JsonNode send(PeerNode node, String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(node.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return Json.MAPPER.readTree(r.body().isEmpty() ? "{}" : r.body());
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "?";
        }
    }
}
