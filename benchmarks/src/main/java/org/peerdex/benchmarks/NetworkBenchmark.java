package org.peerdex.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.search.CorpusIndexer;
import org.peerdex.actors.search.HtmlText;
import org.peerdex.node.PeerNode;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.simulations.report.Percentiles;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;
import org.peerdex.storage.text.Tokenizer;

/**
 * Global search on a real 5-peer network on loopback (five PeerNodes, each its own ActorSystem, Artery, LevelDB and
 * HTTP port): a real corpus is indexed on the first peer and replicated; then two-word queries are streamed over SSE
 * from the last peer, which indexed nothing. Figures: time to the first {@code result} event and to {@code done}
 * (p50/p95), and the messages and bytes the query coordinator counted, next to what shipping both words' whole
 * posting lists to the searcher would cost (the naive protocol).
 *
 * <p>Usage: {@code NetworkBenchmark [CORPUS_DIR=/usr/share/doc/postgresql-doc-15/html] [QUERIES=200] [PEERS=5] [SEED=3]
 * [TRANSPORT=cluster|peer] [nojoin]}: {@code peer} runs the open network's peer protocol (signed HTTP) instead of
 * Pekko Cluster; {@code nojoin} turns join lookups off (peerdex.dht.join-lookups), for the protocol before them.
 * Queries start once the hand-off window after the last join has passed (a settled network).
 */
public final class NetworkBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        Path corpus = Path.of(args.length > 0 ? args[0] : "/usr/share/doc/postgresql-doc-15/html");
        int queries = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int peers = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        long seed = args.length > 3 ? Long.parseLong(args[3]) : 3;
        transport = args.length > 4 ? args[4] : "cluster";
        joinLookups = args.length <= 5 || !args[5].equals("nojoin");
        System.out.printf(Locale.ROOT, "transport %s, join lookups %s%n", transport, joinLookups ? "on" : "off");
        if (!Files.isDirectory(corpus)) {
            System.err.println("corpus " + corpus + " is missing (scripts/install-test-deps.sh installs postgresql-doc-15)");
            System.exit(2);
        }
        Path root = Files.createTempDirectory("peerdex-netbench");
        List<PeerNode> nodes = new ArrayList<>();
        try {
            nodes.add(PeerNode.start(config(root.resolve("p0"), List.of(), seed, 0)));
            String seedAddress = transport.equals("peer") ? nodes.get(0).openNetwork().orElseThrow().address()
                    : "127.0.0.1:" + nodes.get(0).clusterAddress().port().get();
            for (int i = 1; i < peers; i++) {
                nodes.add(PeerNode.start(config(root.resolve("p" + i), List.of(seedAddress), seed, i)));
            }
            PeerNode crawler = nodes.get(0);
            PeerNode searcher = nodes.get(peers - 1);
            HttpClient http = HttpClient.newHttpClient();
            await(Duration.ofSeconds(60), () -> json(http, searcher.baseUrl() + "/api/peers").get("peers").size() == peers);
            System.out.printf(Locale.ROOT, "%d peers joined%n", peers);
            long joined = System.nanoTime();

            long t0 = System.nanoTime();
            CorpusIndexer.Result indexed = CorpusIndexer.index(crawler.context().storage(), corpus, "http://docs.example/pg/", 100_000);
            DhtPeer dht = crawler.services().network().dht();
            dht.indexedLocally();
            long postings = crawler.context().storage().stats().postings();
            System.out.printf(Locale.ROOT, "indexed %d pages (%d postings) on the first peer in %.1f s; replicating...%n",
                    indexed.pages().size(), postings, (System.nanoTime() - t0) / 1e9);
            long t1 = System.nanoTime();
            awaitReplication(nodes);
            System.out.printf(Locale.ROOT, "replication settled after %.1f s%n", (System.nanoTime() - t1) / 1e9);

            // a settled network: a search right after a ring change also asks the holders of the earlier rings (the
            // new ones may not have their copies yet) for as long as peerdex.dht.handoff-window (60 s) lasts
            long settled = joined + TimeUnit.SECONDS.toNanos(65);
            if (System.nanoTime() < settled) TimeUnit.NANOSECONDS.sleep(settled - System.nanoTime());
            System.out.printf(Locale.ROOT, "queries start %.0f s after the last peer joined (hand-off window 60 s)%n",
                    (System.nanoTime() - joined) / 1e9);
            List<String[]> qs = twoWordQueries(indexed.pages(), queries, new Random(seed));
            for (int i = 0; i < Math.min(20, qs.size()); i++) stream(http, searcher.baseUrl(), qs.get(i)); // warm-up
            Map<String, long[]> trafficBefore = copy(searcher.services().network().dht().stats().searchTraffic);
            List<List<String>> global = new ArrayList<>();
            double[] first = new double[qs.size()];
            double[] done = new double[qs.size()];
            long messages = 0;
            long bytes = 0;
            long naive = 0;
            int withResults = 0;
            for (int i = 0; i < qs.size(); i++) {
                Streamed r = stream(http, searcher.baseUrl(), qs.get(i));
                first[i] = r.firstMs();
                done[i] = r.doneMs();
                messages += r.messages();
                bytes += r.bytes();
                if (!r.urls().isEmpty()) withResults++;
                global.add(r.urls());
                naive += naiveBytes(crawler, qs.get(i));
            }
            Map<String, long[]> trafficAfter = copy(searcher.services().network().dht().stats().searchTraffic);
            // the central oracle: the same query over the crawler's own index, which holds every page
            long inBoth = 0;
            long oracle = 0;
            for (int i = 0; i < qs.size(); i++) {
                List<String> central = stream(http, crawler.baseUrl(), qs.get(i), "local").urls();
                oracle += central.size();
                for (String u : central) if (global.get(i).contains(u)) inBoth++;
            }
            double[] firstAnswered = Arrays.stream(first).filter(x -> x >= 0).toArray();
            System.out.printf(Locale.ROOT, "%d two-word queries from a peer that indexed nothing (%d with results)%n", qs.size(), withResults);
            System.out.printf(Locale.ROOT, "first result ms  p50 %.1f  p95 %.1f%n", Percentiles.of(firstAnswered, 50),
                    Percentiles.of(firstAnswered, 95));
            System.out.printf(Locale.ROOT, "complete ms      p50 %.1f  p95 %.1f%n", Percentiles.of(done, 50),
                    Percentiles.of(done, 95));
            System.out.printf(Locale.ROOT, "per query: %.1f messages, %.0f bytes; naive (both posting lists shipped) %.0f bytes; ratio %.3f%n",
                    (double) messages / qs.size(), (double) bytes / qs.size(), (double) naive / qs.size(), (double) bytes / naive);
            for (var e : trafficAfter.entrySet()) {
                long[] before = trafficBefore.getOrDefault(e.getKey(), new long[2]);
                System.out.printf(Locale.ROOT, "  %-16s %6.1f messages %8.0f bytes per query%n", e.getKey(),
                        (double) (e.getValue()[0] - before[0]) / qs.size(), (double) (e.getValue()[1] - before[1]) / qs.size());
            }
            System.out.printf(Locale.ROOT, "recall@10 against the crawler's local search (the central index): %.4f (%d of %d)%n",
                    oracle == 0 ? 1.0 : (double) inBoth / oracle, inBoth, oracle);
            // -Dnetbench.dump=FILE: each query's first page, one line a query, to compare two runs (same seed)
            String dump = System.getProperty("netbench.dump");
            if (dump != null) {
                List<String> lines = new ArrayList<>();
                for (int i = 0; i < qs.size(); i++) lines.add(qs.get(i)[0] + " " + qs.get(i)[1] + "\t" + String.join(" ", global.get(i)));
                Files.write(Path.of(dump), lines);
            }
        } finally {
            BenchPeers.closeAll(nodes, root);
        }
        System.exit(0);
    }

    private static String transport = "cluster";
    private static boolean joinLookups = true;

    /**
     * Waits (at most 10 minutes) until the first peer's outbox is empty and the postings stored on the others have not
     * changed for 5 s, printing progress.
     */
    static void awaitReplication(List<PeerNode> nodes) throws InterruptedException {
        DhtPeer dht = nodes.get(0).services().network().dht();
        long t1 = System.nanoTime();
        long lastStored = -1;
        long stableSince = System.nanoTime();
        while (System.nanoTime() - t1 < TimeUnit.MINUTES.toNanos(10)) {
            long stored = 0;
            for (PeerNode n : nodes.subList(1, nodes.size())) stored += n.services().network().dht().stats().storedPostings.get();
            long backlog = dht.stats().outboxPostings.get();
            if (stored != lastStored) {
                lastStored = stored;
                stableSince = System.nanoTime();
                System.out.printf(Locale.ROOT, "  %.0f s: %d postings stored on other peers, outbox %d%n",
                        (System.nanoTime() - t1) / 1e9, stored, backlog);
            }
            if (backlog == 0 && stored > 0 && System.nanoTime() - stableSince > TimeUnit.SECONDS.toNanos(5)) return;
            TimeUnit.MILLISECONDS.sleep(500);
        }
    }

    /**
     * A peer's settings, and its identity drawn from {@code seed} and its index, so that one seed gives the same peer
     * ids, the same ring and the same holders every run: in the open network a key pair (keys a node must never
     * have), in the cluster the id setting the node takes its id from.
     */
    static Config config(Path dir, List<String> seeds, long seed, int index) throws Exception {
        SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
        random.setSeed(seed * 1_000_003L + index); // seeded before its first use: the same bytes every run
        PeerKeys keys = PeerKeys.generate(0, random);
        if (transport.equals("peer")) keys.save(dir.resolve("peer.key"));
        else presetId(dir, keys.id());
        return config(dir, seeds);
    }

    /** Sets the id a cluster node in {@code dir} starts as (the node takes it from this setting when present). */
    static void presetId(Path dir, PeerId id) throws IOException {
        Files.createDirectories(dir);
        try (PeerStorage s = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            s.putSetting("peer.id", id.value());
        }
    }

    static Config config(Path dir, List<String> seeds) throws Exception {
        Map<String, Object> m = new HashMap<>();
        if (!joinLookups) m.put("peerdex.dht.join-lookups", false);
        if (transport.equals("peer")) {
            m.put("peerdex.transport", "peer");
            m.put("peerdex.peer.host", "127.0.0.1");
            m.put("peerdex.peer.port", 0);
            m.put("peerdex.peer.seeds", seeds);
            m.put("peerdex.peer.identity-work-bits", 0);
            m.put("peerdex.peer.min-work-bits", 0);
            m.put("peerdex.peer.probe-interval", "1s");
            m.put("peerdex.peer.max-per-prefix", 64); // every peer of this benchmark is at 127.0.0.1
            return BenchPeers.config(dir, m);
        }
        Files.createDirectories(dir);
        if (!seeds.isEmpty()) m.put("peerdex.cluster.seeds", seeds);
        return BenchPeers.config(dir, m);
    }

    /** Bytes of both words' whole posting lists as stored (key + encoded posting): the naive protocol's cost. */
    static long naiveBytes(PeerNode crawler, String[] q) {
        long b = 0;
        for (String w : q) {
            for (Posting p : crawler.context().storage().rwi().postings(WordHash.of(w))) b += 21 + PostingCodec.encode(p).length;
        }
        return b;
    }

    /** Pairs of words that occur together in some page, drawn from pages at random. */
    static List<String[]> twoWordQueries(Map<String, HtmlText.Page> pages, int n, Random random) {
        List<String> urls = new ArrayList<>(pages.keySet());
        Collections.shuffle(urls, random);
        List<String[]> out = new ArrayList<>();
        for (String u : urls) {
            if (out.size() >= n) break;
            List<String> words = Tokenizer.plainWords(pages.get(u).text().body()).stream()
                    .filter(w -> w.length() >= 4 && w.chars().allMatch(Character::isLetter)).distinct().toList();
            if (words.size() < 2) continue;
            out.add(new String[] {words.get(random.nextInt(words.size())), words.get(random.nextInt(words.size()))});
        }
        return out;
    }

    /** One streamed query: first result ms (-1 if none), done ms, the coordinator's messages and bytes, the page's URLs. */
    record Streamed(double firstMs, double doneMs, long messages, long bytes, List<String> urls) {}

    static Streamed stream(HttpClient http, String base, String[] q) throws Exception {
        return stream(http, base, q, "global");
    }

    static Map<String, long[]> copy(Map<String, long[]> m) {
        Map<String, long[]> out = new java.util.TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.clone()));
        return out;
    }

    static Streamed stream(HttpClient http, String base, String[] q, String resource) throws Exception {
        long t = System.nanoTime();
        HttpResponse<InputStream> resp = http.send(HttpRequest.newBuilder(URI.create(base + "/api/search/stream?resource=" + resource + "&q="
                + URLEncoder.encode(q[0] + " " + q[1], StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(30))
                .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        double first = -1;
        String event = null;
        StringBuilder data = new StringBuilder();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                // an event's fields may come in any order; it is complete at the blank line
                if (line.startsWith("event:")) event = line.substring(6).trim();
                else if (line.startsWith("data:")) data.append(line.substring(5).trim());
                else if (line.isEmpty() && event != null) {
                    if (event.equals("result") && first < 0) first = (System.nanoTime() - t) / 1e6;
                    if (event.equals("done")) {
                        double doneMs = (System.nanoTime() - t) / 1e6;
                        JsonNode d = JSON.readTree(data.toString());
                        JsonNode net = d.get("network");
                        List<String> urls = new ArrayList<>();
                        for (JsonNode r : d.get("results")) urls.add(r.get("url").asText());
                        return new Streamed(first, doneMs, net == null ? 0 : net.get("messages").asLong(),
                                net == null ? 0 : net.get("bytes").asLong(), urls);
                    }
                    event = null;
                    data.setLength(0);
                }
            }
        }
        throw new IllegalStateException("stream of '" + q[0] + " " + q[1] + "' ended without done (HTTP " + resp.statusCode() + ")");
    }

    static JsonNode json(HttpClient http, String url) throws Exception {
        return JSON.readTree(http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void await(Duration timeout, Check c) throws Exception {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            if (c.ok()) return;
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new IllegalStateException("not met within " + timeout);
    }
}
