package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The peer as its own process: it serves, stops on SIGTERM within seconds, and leaves no lock behind. */
class SigtermTest {
    private static final Pattern SERVING = Pattern.compile("peer (\\S+) .*serving http://127\\.0\\.0\\.1:(\\d+)/");

    @TempDir
    Path dir;

    @Test
    void aPeerStopsCleanlyOnSigtermAndReleasesItsDataDirectory() throws Exception {
        Path data = dir.resolve("data");
        Path out = dir.resolve("peer.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "--data", data.toString(), "--http", "127.0.0.1:0", "--cluster", "127.0.0.1:0");
        pb.redirectErrorStream(true);
        pb.redirectOutput(out.toFile());
        Process child = pb.start();
        try {
            Matcher serving = awaitLine(out, SERVING, child);
            String peerId = serving.group(1);
            int port = Integer.parseInt(serving.group(2));
            TestPeers.Reply status = TestPeers.get("http://127.0.0.1:" + port + "/api/status");
            assertEquals(200, status.status());
            assertEquals(peerId, status.json().get("peerId").asText());

            long t0 = System.nanoTime();
            child.destroy(); // SIGTERM
            assertTrue(child.waitFor(30, TimeUnit.SECONDS),
                    "the peer did not exit within 30 s of SIGTERM:\n" + Files.readString(out));
            System.out.printf("peer stopped %d ms after SIGTERM, exit code %d%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), child.exitValue());
            String log = Files.readString(out);
            assertFalse(log.contains("Exception"), "a clean stop logs no exception:\n" + log);
            assertTrue(log.contains("index closed"), "LevelDB was closed by the shutdown:\n" + log);

            // the lock is released: a new peer opens the same directory and is the same peer
            try (PeerNode again = PeerNode.start(TestPeers.config(data))) {
                assertEquals(peerId, again.peerId().value());
            }
        } finally {
            if (child.isAlive()) child.destroyForcibly();
        }
    }

    /** Polls the child's log until a line matches, for at most 60 s. */
    private static Matcher awaitLine(Path log, Pattern pattern, Process child) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                for (String line : Files.readAllLines(log)) {
                    Matcher m = pattern.matcher(line);
                    if (m.find()) return m;
                }
            }
            if (!child.isAlive()) fail("the peer exited with " + child.exitValue() + ":\n" + Files.readString(log));
            child.waitFor(50, TimeUnit.MILLISECONDS);
        }
        fail("no line matching " + pattern + " within 60 s:\n" + Files.readString(log));
        return null;
    }
}
