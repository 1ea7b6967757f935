package org.peerdex.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.peerdex.node.PeerNode;
import org.peerdex.node.http.Json;

/**
 * What the benchmarks share: the config of a peer on 127.0.0.1 with free ports, removing its data, a JSON call to
 * its API, a free port for a corpus server, and running a helper script.
 */
public final class BenchPeers {
    private BenchPeers() {}

    /** A peer over the defaults: this data directory, HTTP and cluster on 127.0.0.1 port 0, plus {@code more}. */
    public static Config config(Path dataDir, Map<String, Object> more) {
        Map<String, Object> m = new HashMap<>();
        m.put("peerdex.data-dir", dataDir.toString());
        m.put("peerdex.http.host", "127.0.0.1");
        m.put("peerdex.http.port", 0);
        m.put("peerdex.cluster.host", "127.0.0.1");
        m.put("peerdex.cluster.port", 0);
        m.putAll(more);
        return ConfigFactory.parseMap(m).withFallback(ConfigFactory.load()).resolve();
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** Sends a request to a peer's API (30 s timeout) and reads its JSON answer; anything but 200 throws. */
    public static JsonNode send(HttpRequest.Builder b) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IOException("HTTP " + r.statusCode() + ": " + r.body());
        return Json.MAPPER.readTree(r.body());
    }

    /** Runs a command with this process's terminal; a non-zero exit throws. */
    public static void run(String... cmd) throws IOException, InterruptedException {
        int rc = new ProcessBuilder(cmd).inheritIO().start().waitFor();
        if (rc != 0) throw new IOException(String.join(" ", cmd) + " exited with " + rc);
    }

    /** A port in 20000-49999 that was free a moment ago (for a corpus server started by a script). */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return 20000 + (s.getLocalPort() % 30000);
        }
    }

    /** Closes the benchmark's peers (a failure to close one does not keep the others open) and deletes their data. */
    public static void closeAll(List<PeerNode> nodes, Path root) {
        for (PeerNode n : nodes) {
            try {
                n.close();
            } catch (Exception ignored) {
                // shutting down the benchmark's peers
            }
        }
        deleteTree(root);
    }

    /** Deletes a directory tree, deepest first. */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) return;
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
