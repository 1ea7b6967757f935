package org.peerdex.simulations.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.simulations.Scenario;
import org.peerdex.simulations.Simulation;

/**
 * Exact replay: one seed and one scenario give the same files, byte for byte, apart from the fields that measure
 * the host (wall time, heap). The scenario has churn, loss and hostile peers, so every source of randomness the
 * simulator has is exercised.
 */
class ExactReplayTest {
    /**
     * Fields of summary.json that measure the machine, not the simulated network. {@code time.tasks} is not among
     * them: it once differed by 2-4 in 40,000 between runs, from the system's start, when a helper thread submits
     * the guardians' and loggers' first runs while the driver drains; it is now counted from the system's start on.
     */
    private static final Map<String, List<String>> HOST_FIELDS = Map.of(
            "time", List.of("wallSeconds", "wallSecondsToBootstrapped", "wallSecondsToSettled", "wallSecondsCounting"),
            "memory", List.of("peakHeapBytes", "peakHeapMiB", "heapPerPeerKiB", "heapAfterGcBytes", "heapAfterGcMiB"));

    @TempDir
    Path dir;

    @Test
    void twoRunsOfOneSeedWriteTheSameSummaryAndCsvs() throws Exception {
        String hocon = "peers = 24, docs = 200, queries = 40, duration = 6m, samples = 3, seed = 11,"
                + " churn = \"weibull:0.5,4m\", loss = 0.01, hostile.share = 0.1, dht.rebalance-delay = 10s,"
                + " index-window = 1m, repair-tail = 1m, doc-length-median = 40, vocabulary = 5000";
        Path a = run(hocon, "a");
        Path b = run(hocon, "b");
        for (String csv : List.of("timeseries.csv", "peers.csv", "queries.csv")) {
            String first = Files.readString(a.resolve(csv));
            assertTrue(first.lines().count() > 2, csv + " has rows");
            assertEquals(first, Files.readString(b.resolve(csv)), csv + " differs between two runs of one seed");
        }
        String summaryA = withoutHostFields(a.resolve("summary.json"));
        String summaryB = withoutHostFields(b.resolve("summary.json"));
        assertEquals(List.of(), differingLines(summaryA, summaryB), "summary.json differs");
        assertTrue(summaryA.contains("\"events\""), "simulated events are compared, not dropped");
        assertTrue(summaryA.contains("\"tasks\""), "the tasks run are compared, not dropped");
        assertTrue(summaryA.contains("\"foreignTasks\" : 0"), "no thread but the driver submitted a task");
    }

    private Path run(String hocon, String name) throws Exception {
        Path out = Files.createDirectories(dir.resolve(name));
        try (Simulation sim = new Simulation(Scenario.load(ConfigFactory.parseString(hocon)))) {
            ReportWriter.write(out, sim, sim.run());
        }
        return out;
    }

    /** The lines of two texts that differ, as "a | b" (both pretty-printed the same way). */
    private static List<String> differingLines(String a, String b) {
        List<String> la = a.lines().toList();
        List<String> lb = b.lines().toList();
        List<String> out = new java.util.ArrayList<>();
        for (int i = 0; i < Math.max(la.size(), lb.size()); i++) {
            String x = i < la.size() ? la.get(i) : "";
            String y = i < lb.size() ? lb.get(i) : "";
            if (!x.equals(y)) out.add(x.strip() + " | " + y.strip());
        }
        return out;
    }

    private static String withoutHostFields(Path summary) throws Exception {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = (ObjectNode) json.readTree(summary.toFile());
        HOST_FIELDS.forEach((section, fields) -> {
            if (root.get(section) instanceof ObjectNode o) fields.forEach(o::remove);
        });
        return json.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    }
}
