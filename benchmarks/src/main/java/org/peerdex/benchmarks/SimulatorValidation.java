package org.peerdex.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.peerdex.actors.search.CorpusIndexer;
import org.peerdex.actors.search.SearchResult;
import org.peerdex.actors.search.query.Query;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.node.PeerNode;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.simulations.Simulation;
import org.peerdex.simulations.lab.VirtualLab;
import org.peerdex.simulations.report.Percentiles;
import org.peerdex.simulations.workload.Oracle;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;

/**
 * The simulator checked against the system it models: {@link NetworkBenchmark}'s workload (the same corpus pages,
 * the same two-word queries from the same seed, R = 3 and 16 partitions, every page indexed at the first peer and
 * queried from the last) on five real peers on loopback (PeerNodes over Pekko Cluster, LevelDB, HTTP/SSE) and
 * then on five virtual peers of the simulator with the same peer ids (so the same ring and the same holders),
 * the simulator's network fitted to loopback TCP (median RTT, its spread, bulk bandwidth). Prints messages and
 * bytes per query as the query coordinator counted them, recall@10 of both against the central oracle, how far
 * the two first pages agree, and first-result / complete latency.
 *
 * <p>Usage: {@code SimulatorValidation [CORPUS_DIR=/usr/share/doc/postgresql-doc-15/html] [QUERIES=200] [SEED=3]
 * [MAX_PAGES=100000] [CSV]}; CSV: one row per query with both sides' figures.
 */
public final class SimulatorValidation {
    private static final int PEERS = 5;
    private static final int WARM_UP = 20;
    private static final String BASE = "http://docs.example/pg/";

    private SimulatorValidation() {}

    /** One query's outcome on one side. */
    record Outcome(double firstMs, double doneMs, long messages, long bytes, List<String> urls) {}

    /**
     * The real run: its queries, the seconds from the ring's completion (every peer joined) to the first query, and
     * a peer's address as its serialized actor refs begin.
     */
    record RealRun(List<Outcome> outcomes, double ringToQueriesSeconds, String address) {}

    /** The loopback fit: median RTT (µs), log-normal spread of RTTs, bulk bytes per second. */
    record LoopbackFit(double rttMicros, double sigma, double bytesPerSecond) {
        String scenario() {
            return String.format(Locale.ROOT, "rtt = %dus, rtt-sigma = 0, jitter = %.3f, bandwidth = %d",
                    Math.max(1, Math.round(rttMicros)), sigma, Math.round(bytesPerSecond));
        }
    }

    public static void main(String[] args) throws Exception {
        Path corpus = Path.of(args.length > 0 ? args[0] : "/usr/share/doc/postgresql-doc-15/html");
        int queries = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 3;
        int maxPages = args.length > 3 ? Integer.parseInt(args[3]) : 100_000;
        Path csv = args.length > 4 ? Path.of(args[4]) : null;
        if (!Files.isDirectory(corpus)) {
            System.err.println("corpus " + corpus + " is missing (scripts/install-test-deps.sh installs postgresql-doc-15)");
            System.exit(2);
        }
        CorpusIndexer.Documents docs = CorpusIndexer.documents(corpus, BASE, maxPages);
        List<String[]> qs = NetworkBenchmark.twoWordQueries(docs.pages(), queries, new Random(seed));
        long postings = docs.documents().stream().mapToLong(d -> d.postings().size()).sum();
        System.out.printf(Locale.ROOT, "corpus %s: %d pages, %d postings; %d two-word queries (seed %d)%n", corpus,
                docs.documents().size(), postings, qs.size(), seed);

        LoopbackFit fit = fitLoopback();
        System.out.printf(Locale.ROOT, "loopback TCP: RTT median %.1f us, sigma %.3f, bulk %.0f MB/s -> %s%n",
                fit.rttMicros(), fit.sigma(), fit.bytesPerSecond() / 1e6, fit.scenario());

        try (VirtualLab lab = VirtualLab.start(PEERS, "redundancy = 3, partitions = 16, seed = 42, " + fit.scenario())) {
            Simulation sim = lab.simulation();
            long ringAt = sim.runtime().nowMicros();
            List<PeerId> ids = new ArrayList<>();
            for (int i = 0; i < PEERS; i++) ids.add(sim.peerId(i));

            long t0 = System.nanoTime();
            RealRun realRun = realRun(ids, docs.documents(), qs);
            List<Outcome> real = realRun.outcomes();
            System.out.printf(Locale.ROOT, "real run: %.1f s; %.1f s from the ring's completion to the first query%n",
                    (System.nanoTime() - t0) / 1e9, realRun.ringToQueriesSeconds());

            long t1 = System.nanoTime();
            List<Outcome> simulated = simulatedRun(sim, docs.documents(), qs, real,
                    ringAt + (long) (realRun.ringToQueriesSeconds() * 1e6));
            System.out.printf(Locale.ROOT, "simulated run: %.1f s wall%n", (System.nanoTime() - t1) / 1e9);

            report(sim, qs, real, simulated);
            String simAddress = sim.system().address().toString();
            System.out.printf(Locale.ROOT, "serialized refs begin with %s (%d characters) on a real peer, %s (%d) in the simulator%n",
                    realRun.address(), realRun.address().length(), simAddress, simAddress.length());
            if (csv != null) writeCsv(csv, qs, real, simulated);
        }
        System.exit(0);
    }

    /** Five PeerNodes with the given ids; every page indexed at peer 0, the queries streamed from peer 4. */
    static RealRun realRun(List<PeerId> ids, List<IndexedDocument> docs, List<String[]> qs) throws Exception {
        Path root = Files.createTempDirectory("peerdex-simvalid");
        List<PeerNode> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < ids.size(); i++) {
                Path dir = root.resolve("p" + i);
                NetworkBenchmark.presetId(dir, ids.get(i)); // the real ring is the simulated one
                String seed = nodes.isEmpty() ? null : "127.0.0.1:" + nodes.get(0).clusterAddress().port().get();
                nodes.add(PeerNode.start(NetworkBenchmark.config(dir, seed == null ? List.of() : List.of(seed))));
            }
            for (int i = 0; i < ids.size(); i++) {
                PeerId self = nodes.get(i).services().network().dht().self();
                if (!self.equals(ids.get(i))) throw new IllegalStateException("peer " + i + " runs as " + self + ", not " + ids.get(i));
            }
            PeerNode crawler = nodes.get(0);
            PeerNode searcher = nodes.get(ids.size() - 1);
            HttpClient http = HttpClient.newHttpClient();
            NetworkBenchmark.await(Duration.ofSeconds(60),
                    () -> NetworkBenchmark.json(http, searcher.baseUrl() + "/api/peers").get("peers").size() == ids.size());
            long ringAt = System.nanoTime();
            PeerStorage storage = crawler.context().storage();
            for (IndexedDocument d : docs) storage.writer().add(d);
            storage.writer().flush();
            crawler.services().network().dht().indexedLocally();
            NetworkBenchmark.awaitReplication(nodes);
            // a settled network, as NetworkBenchmark's: within peerdex.dht.handoff-window (60 s) of the last ring
            // change a search also asks the former holders and join lookups wait; the simulated queries start as long
            // after the ring as these
            long settled = ringAt + TimeUnit.SECONDS.toNanos(65);
            if (System.nanoTime() < settled) TimeUnit.NANOSECONDS.sleep(settled - System.nanoTime());
            double ringToQueries = (System.nanoTime() - ringAt) / 1e9;
            for (int i = 0; i < Math.min(WARM_UP, qs.size()); i++) NetworkBenchmark.stream(http, searcher.baseUrl(), qs.get(i));
            List<Outcome> out = new ArrayList<>();
            for (String[] q : qs) {
                NetworkBenchmark.Streamed r = NetworkBenchmark.stream(http, searcher.baseUrl(), q);
                out.add(new Outcome(r.firstMs(), r.doneMs(), r.messages(), r.bytes(), r.urls()));
            }
            return new RealRun(out, ringToQueries, searcher.clusterAddress().toString());
        } finally {
            BenchPeers.closeAll(nodes, root);
        }
    }

    /**
     * The same on the virtual peers: pages at peer 0 (replicated), the same warm-up and queries from peer 4, the
     * first at {@code firstQueryAt} (simulated µs: as long after the ring's completion as in the real run, since a
     * query within {@code handoff-window} of a ring change also asks the keys' former holders), each after the
     * previous one as the real one came after its predecessor.
     */
    static List<Outcome> simulatedRun(Simulation sim, List<IndexedDocument> docs, List<String[]> qs, List<Outcome> real,
                                      long firstQueryAt) {
        sim.indexDocuments(0, docs);
        sim.settle();
        if (!sim.replicationIdle()) throw new IllegalStateException("replication did not finish within settle-max");
        sim.runFor(Math.max(0, firstQueryAt - sim.runtime().nowMicros()));
        int searcher = sim.size() - 1;
        for (int i = 0; i < Math.min(WARM_UP, qs.size()); i++) sim.queryAndWait(searcher, parse(qs.get(i)));
        List<Outcome> out = new ArrayList<>();
        for (int i = 0; i < qs.size(); i++) {
            Simulation.Answer a = sim.queryAndWait(searcher, parse(qs.get(i)));
            List<String> urls = new ArrayList<>();
            for (SearchResult r : a.done().results()) urls.add(r.url());
            out.add(new Outcome(a.firstResultMicros() < 0 ? -1 : a.firstResultMicros() / 1000.0, a.latencyMicros() / 1000.0,
                    a.done().network().messages(), a.done().network().bytes(), urls));
            sim.runFor(Math.max(0, (long) (real.get(i).doneMs() * 1000) - a.latencyMicros()));
        }
        return out;
    }

    private static Query parse(String[] q) {
        return QueryParser.parse(q[0] + " " + q[1]);
    }

    private static void report(Simulation sim, List<String[]> qs, List<Outcome> real, List<Outcome> simulated) {
        Oracle oracle = sim.oracle();
        long n = sim.estimatedDocuments(sim.size() - 1);
        double[] recallReal = new double[qs.size()];
        double[] recallSim = new double[qs.size()];
        double[] agree = new double[qs.size()];
        int sameMessages = 0;
        for (int i = 0; i < qs.size(); i++) {
            List<UrlHash> truth = oracle.top(parse(qs.get(i)), 10, n);
            recallReal[i] = recall(real.get(i).urls(), truth);
            recallSim[i] = recall(simulated.get(i).urls(), truth);
            Set<String> a = new HashSet<>(real.get(i).urls());
            List<String> b = simulated.get(i).urls();
            int both = (int) b.stream().filter(a::contains).count();
            int most = Math.max(a.size(), b.size());
            agree[i] = most == 0 ? 1 : both / (double) most;
            if (real.get(i).messages() == simulated.get(i).messages()) sameMessages++;
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "%d queries from peer %d (indexed nothing), after %d warm-up queries; N estimate %d%n",
                qs.size(), sim.size() - 1, WARM_UP, n);
        System.out.printf(Locale.ROOT, "| | real (5 PeerNodes, loopback) | simulator (5 virtual peers) | sim / real |%n");
        System.out.printf(Locale.ROOT, "| --- | --- | --- | --- |%n");
        row("messages per query", mean(real, Outcome::messages), mean(simulated, Outcome::messages), "%.2f");
        row("bytes per query", mean(real, Outcome::bytes), mean(simulated, Outcome::bytes), "%.0f");
        row("recall@10 vs oracle", avg(recallReal), avg(recallSim), "%.3f");
        row("first result ms p50", pct(real, Outcome::firstMs, 50), pct(simulated, Outcome::firstMs, 50), "%.2f");
        row("first result ms p95", pct(real, Outcome::firstMs, 95), pct(simulated, Outcome::firstMs, 95), "%.2f");
        row("complete ms p50", pct(real, Outcome::doneMs, 50), pct(simulated, Outcome::doneMs, 50), "%.2f");
        row("complete ms p95", pct(real, Outcome::doneMs, 95), pct(simulated, Outcome::doneMs, 95), "%.2f");
        System.out.printf(Locale.ROOT, "same first page (mean overlap of the two pages): %.3f; queries with equal message counts: %d of %d%n",
                avg(agree), sameMessages, qs.size());
        System.out.printf(Locale.ROOT, "queries with results: real %d, simulator %d%n",
                real.stream().filter(o -> !o.urls().isEmpty()).count(), simulated.stream().filter(o -> !o.urls().isEmpty()).count());
    }

    private static void writeCsv(Path csv, List<String[]> qs, List<Outcome> real, List<Outcome> sim) throws IOException {
        StringBuilder b = new StringBuilder("query,real_messages,sim_messages,real_bytes,sim_bytes,real_results,sim_results,"
                + "real_first_ms,sim_first_ms,real_done_ms,sim_done_ms\n");
        for (int i = 0; i < qs.size(); i++) {
            Outcome r = real.get(i);
            Outcome s = sim.get(i);
            b.append(String.format(Locale.ROOT, "%s %s,%d,%d,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.2f%n", qs.get(i)[0], qs.get(i)[1],
                    r.messages(), s.messages(), r.bytes(), s.bytes(), r.urls().size(), s.urls().size(), r.firstMs(),
                    s.firstMs(), r.doneMs(), s.doneMs()));
        }
        Files.writeString(csv, b);
    }

    interface Figure {
        double of(Outcome o);
    }

    private static double mean(List<Outcome> os, Figure f) {
        return os.stream().mapToDouble(f::of).average().orElse(0);
    }

    private static double pct(List<Outcome> os, Figure f, double p) {
        double[] xs = os.stream().mapToDouble(f::of).filter(x -> x >= 0).toArray();
        return xs.length == 0 ? -1 : Percentiles.of(xs, p);
    }

    private static double avg(double[] xs) {
        return Arrays.stream(xs).average().orElse(0);
    }

    private static void row(String name, double real, double sim, String fmt) {
        System.out.printf(Locale.ROOT, "| %s | " + fmt + " | " + fmt + " | %.3f |%n", name, real, sim, real == 0 ? 0 : sim / real);
    }

    private static double recall(List<String> page, List<UrlHash> truth) {
        if (truth.isEmpty()) return 1;
        Set<UrlHash> got = new HashSet<>();
        for (String u : page) got.add(UrlHash.ofNormalized(u));
        return truth.stream().filter(got::contains).count() / (double) truth.size();
    }

    /**
     * Loopback TCP as the simulator's network model sees a link: the median round trip of a 256-byte ping-pong
     * (TCP_NODELAY, 2,000 after 500 to warm up), the log-normal spread ln(p84 / p50) of those round trips, and
     * the bulk rate of 256 MiB written through one connection.
     */
    static LoopbackFit fitLoopback() throws IOException, InterruptedException {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        double[] rtts = new double[2000];
        try (ServerSocket server = new ServerSocket(0, 1, lo)) {
            Thread echo = new Thread(() -> {
                try (Socket s = server.accept()) {
                    s.setTcpNoDelay(true);
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    byte[] b = new byte[256];
                    while (in.readNBytes(b, 0, b.length) == b.length) out.write(b);
                } catch (IOException ignored) {
                    // the client closed
                }
            });
            echo.start();
            try (Socket c = new Socket(lo, server.getLocalPort())) {
                c.setTcpNoDelay(true);
                byte[] b = new byte[256];
                for (int i = -500; i < rtts.length; i++) {
                    long t = System.nanoTime();
                    c.getOutputStream().write(b);
                    c.getInputStream().readNBytes(b, 0, b.length);
                    if (i >= 0) rtts[i] = (System.nanoTime() - t) / 1e3;
                }
            }
            echo.join();
        }
        double p50 = Percentiles.of(rtts, 50);
        double p84 = Percentiles.of(rtts, 84);
        long total = 256L << 20;
        double rate;
        try (ServerSocket server = new ServerSocket(0, 1, lo)) {
            Thread sink = new Thread(() -> {
                try (Socket s = server.accept()) {
                    s.getInputStream().transferTo(OutputStream.nullOutputStream());
                } catch (IOException ignored) {
                    // the client closed
                }
            });
            sink.start();
            long t;
            try (Socket c = new Socket(lo, server.getLocalPort())) {
                byte[] chunk = new byte[64 << 10];
                t = System.nanoTime();
                for (long sent = 0; sent < total; sent += chunk.length) c.getOutputStream().write(chunk);
            }
            sink.join();
            rate = total / ((System.nanoTime() - t) / 1e9);
        }
        return new LoopbackFit(p50, Math.log(p84 / p50), rate);
    }
}
