package org.peerdex.node.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the README's three-peer script against the packaged jar: three peer processes share one index (crawl on one,
 * search from another, kill -9 a third, still found, restart, R copies again).
 */
class ThreePeersScriptIT {
    @TempDir
    Path work;

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }

    @Test
    void threePeerJarsShareOneIndexThroughAKill() throws Exception {
        Path root = Path.of("").toAbsolutePath().getParent();
        Path script = root.resolve("scripts/three-peers.sh");
        assumeTrue(Files.isRegularFile(root.resolve("node/target/peerdex-node.jar")), "the packaged jar is missing");
        for (String tool : List.of("bash", "curl", "python3")) assumeTrue(onPath(tool), tool + " is not installed");
        Path log = work.resolve("script.log");
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), work.resolve("peers").toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("PEERDEX_NO_BUILD", "1"); // the jar under test is the one this build packaged
        Process p = pb.start();
        boolean ended = p.waitFor(8, TimeUnit.MINUTES);
        if (!ended) {
            p.destroy(); // SIGTERM: the script's trap stops the peers it started
            p.waitFor(30, TimeUnit.SECONDS);
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        System.out.println(out);
        assertTrue(ended, "the script did not end in 8 minutes:\n" + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("[three-peers] ok:"), out);
        assertTrue(out.contains("still found with B down"), out);
    }
}
