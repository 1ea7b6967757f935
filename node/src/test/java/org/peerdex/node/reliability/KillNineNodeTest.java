package org.peerdex.node.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.node.Main;
import org.peerdex.node.PeerNode;
import org.peerdex.node.http.Json;

/**
 * kill -9 of a whole peer while it indexes: a child JVM runs the real node, clients POST documents to
 * /api/index/document (a 200 is the acknowledgement of a durable write), the child is killed with SIGKILL when a
 * random number of acknowledgements has come in; after restart every acknowledged document is searchable and the
 * index reads back whole. 3 rounds in CI; {@code -Dpeerdex.kill9.rounds=20} for the longer run.
 */
@Tag("reliability")
class KillNineNodeTest {
    private static final Pattern SERVING = Pattern.compile("serving http://127\\.0\\.0\\.1:(\\d+)/");
    static final int ROUNDS = Integer.getInteger("peerdex.kill9.rounds", 3);
    static final long SEED = Long.getLong("peerdex.kill9.seed", 9L);

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedDocumentIsSearchableAfterSigkillOfThePeer() throws Exception {
        Path data = dir.resolve("data");
        Random random = new Random(SEED);
        Set<Integer> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicInteger nextId = new AtomicInteger();
        int sentTotal = 0;
        int unansweredTotal = 0;
        for (int round = 0; round < ROUNDS; round++) {
            int killAfter = acknowledged.size() + 5 + random.nextInt(40);
            long t0 = System.nanoTime();
            Path log = dir.resolve("peer-" + round + ".log");
            Process child = startChild(data, log);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger sent = new AtomicInteger();
            try {
                int port = awaitPort(log, child);
                HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
                List<Thread> clients = new ArrayList<>();
                for (int c = 0; c < 3; c++) {
                    Thread t = new Thread(() -> {
                        while (!stop.get()) {
                            int id = nextId.getAndIncrement();
                            sent.incrementAndGet();
                            try {
                                HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                                        URI.create("http://127.0.0.1:" + port + "/api/index/document"))
                                        .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                                        .POST(HttpRequest.BodyPublishers.ofString(body(id))).build(),
                                        HttpResponse.BodyHandlers.ofString());
                                if (r.statusCode() == 200) acknowledged.add(id);
                            } catch (Exception e) {
                                return; // killed: this one is in doubt, not acknowledged
                            }
                        }
                    }, "indexing-client-" + c);
                    t.setDaemon(true);
                    t.start();
                    clients.add(t);
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (acknowledged.size() < killAfter) {
                    if (System.nanoTime() > deadline) fail("only " + acknowledged.size() + " acknowledged in 60 s:\n" + Files.readString(log));
                    if (!child.isAlive()) fail("the peer died by itself:\n" + Files.readString(log));
                    child.waitFor(5, TimeUnit.MILLISECONDS); // poll; returns at once if the child dies
                }
                child.destroyForcibly(); // SIGKILL: no shutdown hook, no flush, no close
                assertTrue(child.waitFor(30, TimeUnit.SECONDS));
                stop.set(true);
                for (Thread t : clients) t.join(30_000);
            } finally {
                stop.set(true);
                if (child.isAlive()) child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
            sentTotal += sent.get();
            long t1 = System.nanoTime();
            int lost = verify(data, acknowledged);
            System.out.printf("kill -9 node round %d: child ran %d ms, restart and check %d ms%n", round,
                    (t1 - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000);
            unansweredTotal = sentTotal - acknowledged.size();
            System.out.printf("kill -9 node round %d: killed after %d acknowledgements; %d sent in all, %d acknowledged,"
                    + " %d in doubt (no answer before the kill), %d acknowledged lost%n", round, killAfter, sentTotal,
                    acknowledged.size(), unansweredTotal, lost);
            assertEquals(0, lost, "acknowledged documents lost");
        }
    }

    static String body(int id) {
        return Json.write(java.util.Map.of("url", "http://kill.test/doc/" + id, "title", "Document " + id,
                "text", "kninedoc" + id + " survives a hard kill of its peer; words words words " + id));
    }

    /** Restarts the peer in this JVM on the data left behind; returns how many acknowledged documents it lacks. */
    private static int verify(Path data, Set<Integer> acknowledged) throws Exception {
        try (PeerNode node = PeerNode.start(ConfigFactory.parseMap(java.util.Map.of(
                "peerdex.data-dir", data.toString(), "peerdex.http.port", 0, "peerdex.cluster.port", 0))
                .withFallback(ConfigFactory.load()).resolve())) {
            // the store reads back whole: every posting and metadata record decodes and the counters agree
            long[] postings = {0};
            node.context().storage().rwi().scanAll(p -> postings[0]++);
            long[] docs = {0};
            node.context().storage().metadata().scanAll(m -> docs[0]++);
            assertEquals(node.context().storage().stats().postings(), postings[0]);
            assertEquals(node.context().storage().stats().documents(), docs[0]);
            assertTrue(docs[0] >= acknowledged.size(), docs[0] + " documents < " + acknowledged.size() + " acknowledged");
            HttpClient http = HttpClient.newHttpClient();
            int lost = 0;
            for (int id : acknowledged) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(node.baseUrl()
                        + "/api/search?resource=local&q=kninedoc" + id)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200 || Json.MAPPER.readTree(r.body()).path("results").size() != 1) lost++;
            }
            return lost;
        }
    }

    private static Process startChild(Path data, Path log) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx384m", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "--data", data.toString(), "--http", "127.0.0.1:0", "--cluster", "127.0.0.1:0");
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        return pb.start();
    }

    private static int awaitPort(Path log, Process child) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                Matcher m = SERVING.matcher(Files.readString(log));
                if (m.find()) return Integer.parseInt(m.group(1));
            }
            if (!child.isAlive()) fail("the peer exited with " + child.exitValue() + ":\n" + Files.readString(log));
            child.waitFor(50, TimeUnit.MILLISECONDS);
        }
        fail("the peer did not serve within 60 s:\n" + Files.readString(log));
        return -1;
    }
}
