package org.peerdex.node.reliability;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.peerdex.actors.crawl.TestSite;
import org.peerdex.node.http.Json;

/**
 * Helpers for the fault tests: peer configs on 127.0.0.1 port 0, JSON over HTTP, peers in child JVMs (started,
 * awaited by the port they print, killed with SIGKILL), and a generated site whose every page carries a word of its
 * own (so a test can search for each page it was told was indexed).
 */
final class FaultPeers {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern SERVING = Pattern.compile("serving http://127\\.0\\.0\\.1:(\\d+)/ cluster [^:]+:(\\d+)");

    private FaultPeers() {}

    /** A peer config over the defaults: data directory, ports 0 on 127.0.0.1, loopback crawling allowed. */
    static Config config(Path data, Map<String, Object> more) {
        Map<String, Object> m = new HashMap<>();
        m.put("peerdex.data-dir", data.toString());
        m.put("peerdex.http.host", "127.0.0.1");
        m.put("peerdex.http.port", 0);
        m.put("peerdex.cluster.host", "127.0.0.1");
        m.put("peerdex.cluster.port", 0);
        m.put("peerdex.crawler.allow-loopback", true);
        m.put("peerdex.indexer.flush-interval", "20ms");
        m.putAll(more);
        return ConfigFactory.parseMap(m).withFallback(ConfigFactory.load()).resolve();
    }

    /** A JSON answer. */
    record Reply(int status, JsonNode json) {}

    static Reply get(String url) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).GET().build());
    }

    static Reply post(String url, String json) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    static Reply send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), r.body().isEmpty() ? Json.MAPPER.nullNode() : Json.MAPPER.readTree(r.body()));
    }

    /** Results of a local search for one word. */
    static int hits(String base, String word) throws IOException, InterruptedException {
        Reply r = get(base + "/api/search?resource=local&count=10&q=" + word);
        return r.status() == 200 ? r.json().path("results").size() : -1;
    }

    /** Polls GET /api/crawl/{id} (every 20 ms) until the condition holds; fails after {@code max}. */
    static JsonNode awaitCrawl(String base, String id, Duration max, Predicate<JsonNode> until) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        JsonNode p = null;
        while (System.nanoTime() < deadline) {
            Reply r = get(base + "/api/crawl/" + id);
            p = r.json();
            if (r.status() == 200 && until.test(p)) return p;
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000); // poll interval
        }
        fail("crawl " + id + " did not reach the expected state within " + max + ": " + p);
        return p;
    }

    /** Starts {@code main} in a child JVM with this test's class path and loopback crawling, output into {@code log}. */
    static Process startChild(String heap, Path log, String main, String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // crawls of the test's own loopback servers are allowed (as in config()); the JVM gets the same class path
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + heap, "-Dpeerdex.crawler.allow-loopback=true",
                "-Dpeerdex.indexer.flush-interval=20ms", "-cp", System.getProperty("java.class.path")));
        // cluster membership (joins, unreachable, downing) in the child's log: what a failed rejoin is read from
        java.net.URL logback = FaultPeers.class.getResource("/child-logback.xml");
        if (logback != null) cmd.add("-Dlogback.configurationFile=" + logback);
        cmd.add(main);
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        return pb.start();
    }

    /** The HTTP port a child peer prints ("serving http://127.0.0.1:PORT/"), waiting up to 90 s. */
    static int awaitPort(Path log, Process child) throws Exception {
        return awaitPorts(log, child)[0];
    }

    /** The HTTP and cluster ports a child peer prints ("serving http://127.0.0.1:P/ cluster 127.0.0.1:Q"). */
    static int[] awaitPorts(Path log, Process child) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                Matcher m = SERVING.matcher(Files.readString(log, StandardCharsets.UTF_8));
                if (m.find()) return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
            }
            if (!child.isAlive()) fail("the peer exited with " + child.exitValue() + ":\n" + tail(log));
            child.waitFor(50, TimeUnit.MILLISECONDS);
        }
        fail("the peer did not serve within 90 s:\n" + tail(log));
        return null;
    }

    /** SIGKILL (no shutdown hook, no flush, no close) and wait for the process to be gone. */
    static void kill(Process child) throws InterruptedException {
        child.destroyForcibly();
        if (!child.waitFor(30, TimeUnit.SECONDS)) fail("a SIGKILLed peer did not exit in 30 s");
    }

    /**
     * Copies the child logs ({@code *.log}) of a failed run from {@code dir} (the test's temp dir, deleted after it)
     * to {@code target/NAME-logs} of the module, and returns where they went.
     */
    static Path keepLogs(Path dir, String name) {
        Path to = Path.of("target", name + "-logs").toAbsolutePath();
        try (var logs = Files.list(dir)) {
            Files.createDirectories(to);
            for (Path log : (Iterable<Path>) logs.filter(f -> f.toString().endsWith(".log"))::iterator) {
                Files.copy(log, to.resolve(log.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            System.out.println("could not keep the child logs in " + to + ": " + e);
        }
        return to;
    }

    static String tail(Path log) {
        try {
            String s = Files.readString(log, StandardCharsets.UTF_8);
            return s.length() > 6000 ? s.substring(s.length() - 6000) : s;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** The word only page {@code n} of {@link #site} carries. */
    static String pageWord(int n) {
        return "sitepage" + n + "q";
    }

    /**
     * A generated site of {@code pages} pages /g0 .. /g(pages-1): page n links to 2n+1, 2n+2 and n+1, carries its
     * own word and {@code filler} words of its own (to make its index entry larger).
     */
    static TestSite site(int pages, int filler) throws IOException {
        TestSite site = new TestSite();
        site.fallback(path -> {
            if (!path.startsWith("/g")) return null;
            int n;
            try {
                n = Integer.parseInt(path.substring(2));
            } catch (NumberFormatException e) {
                return null;
            }
            if (n < 0 || n >= pages) return null;
            StringBuilder b = new StringBuilder("<!doctype html><html><head><title>Generated page ").append(n)
                    .append("</title></head><body><h1>Page ").append(n).append("</h1><p>").append(pageWord(n))
                    .append(" is on this page.</p><p>");
            for (int i = 0; i < filler; i++) b.append('f').append(n).append('w').append(i).append(' ');
            b.append("</p>");
            for (int c : new int[] {2 * n + 1, 2 * n + 2, n + 1}) {
                if (c < pages) b.append("<a href=\"/g").append(c).append("\">page ").append(c).append("</a> ");
            }
            return TestSite.Reply.html(b.append("</body></html>").toString());
        });
        return site;
    }
}
