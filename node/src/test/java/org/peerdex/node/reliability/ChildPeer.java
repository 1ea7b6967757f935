package org.peerdex.node.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.peerdex.node.Main;

/** A peer in a child JVM on its own data directory under a test's temp dir: its process, ports and log per start. */
final class ChildPeer {
    final Path dir;
    final int index;
    Process process;
    int http;
    int cluster;
    int starts;
    Path log;

    ChildPeer(Path dir, int index) {
        this.dir = dir;
        this.index = index;
    }

    String base() {
        return "http://127.0.0.1:" + http;
    }

    /** Starts (or restarts) the peer on data-INDEX with HTTP and cluster on port 0, joining {@code seeds}. */
    void start(List<String> seeds) throws Exception {
        log = dir.resolve("peer-" + index + "-" + starts++ + ".log");
        List<String> args = new ArrayList<>(List.of("--data", dir.resolve("data-" + index).toString(), "--http",
                "127.0.0.1:0", "--cluster", "127.0.0.1:0"));
        for (String s : seeds) args.addAll(List.of("--seed", s));
        process = FaultPeers.startChild("320m", log, Main.class.getName(), args.toArray(new String[0]));
        int[] ports = FaultPeers.awaitPorts(log, process);
        http = ports[0];
        cluster = ports[1];
    }

    /** Its cluster address as a seed for others. */
    String seed() {
        return "127.0.0.1:" + cluster;
    }

    /** How many peers its {@code GET /api/peers} lists as active (itself included). */
    static long active(JsonNode peers) {
        long n = 0;
        for (JsonNode x : peers) if (x.path("role").asText().equals("active")) n++;
        return n;
    }
}
