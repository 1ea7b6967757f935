package org.peerdex.benchmarks;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/** What the benchmarks share: the config of a peer on 127.0.0.1 with free ports, and removing its data. */
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
