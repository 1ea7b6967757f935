package org.peerdex.node.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 7: peers killed with SIGKILL one after the other, faster than the split-brain resolver downs a dead member
 * (stable-after 20 s), and restarted on their data directories with "--cluster 127.0.0.1:0". Each restart binds
 * the cluster port of its last run, so the cluster takes it for a new incarnation of the member and downs the old
 * one at once; the dead incarnations do not pile up into a majority that makes the resolver down every live peer
 * (which is what left a restarted peer alone with every other peer "offline" in the 20-round kill -9 run).
 */
@Tag("reliability")
class RestartedPeerRejoinTest {
    @TempDir
    Path dir;

    @Test
    void peersKilledInQuickSuccessionRejoinAsNewIncarnationsAndNoLivePeerIsDowned() throws Exception {
        List<ChildPeer> peers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                ChildPeer p = new ChildPeer(dir, i);
                p.start(i == 0 ? List.of() : List.of(peers.get(0).seed()));
                peers.add(p);
            }
            for (ChildPeer p : peers) awaitActive(p, 3);
            // kill 2, restart it, and as soon as it is back kill 1: both within one stable-after window
            for (int victim : new int[] {2, 1}) {
                ChildPeer p = peers.get(victim);
                int before = p.cluster;
                FaultPeers.kill(p.process);
                p.start(List.of(peers.get(0).seed()));
                assertEquals(before, p.cluster, "peer " + victim + " restarted on another cluster port");
                awaitActive(p, 3);
            }
            for (ChildPeer p : peers) awaitActive(p, 3);
            // each old incarnation was downed on its successor's join (not 20 s later by the resolver)
            String survivor = logs(peers.get(0));
            assertTrue(survivor.contains("New incarnation of existing member"), "no new incarnation seen by peer 0");
            // past the resolver's stable-after (20 s) from the second kill: nobody was downed, all still see 3
            long hold = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
            while (System.nanoTime() < hold) {
                for (ChildPeer p : peers) {
                    assertTrue(p.process.isAlive(), "peer " + p.index + " exited");
                    JsonNode ps = FaultPeers.get(p.base() + "/api/peers").json().path("peers");
                    assertEquals(3, ChildPeer.active(ps), "peer " + p.index + " sees " + ps);
                }
                LockSupport.parkNanos(500_000_000); // poll interval
            }
            for (ChildPeer p : peers) {
                String all = logs(p);
                assertTrue(!all.contains("SBR took decision") && !all.contains("was downed by the cluster"),
                        "the split-brain resolver downed peer " + p.index);
            }
        } catch (Throwable e) {
            System.out.println("rejoin test failed; child logs kept in " + FaultPeers.keepLogs(dir, "rejoin"));
            throw e;
        } finally {
            for (ChildPeer p : peers) if (p.process != null && p.process.isAlive()) FaultPeers.kill(p.process);
        }
    }

    /** Polls until the peer lists {@code n} active peers (60 s at most). */
    private static void awaitActive(ChildPeer p, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        JsonNode ps = null;
        while (System.nanoTime() < deadline) {
            try {
                ps = FaultPeers.get(p.base() + "/api/peers").json().path("peers");
                if (ChildPeer.active(ps) >= n) return;
            } catch (java.io.IOException e) {
                assertTrue(p.process.isAlive(), "peer " + p.index + " exited:\n" + FaultPeers.tail(p.log));
            }
            LockSupport.parkNanos(100_000_000); // poll interval
        }
        throw new AssertionError("peer " + p.index + " sees " + ps + "; log tail:\n" + FaultPeers.tail(p.log));
    }

    /** Every log of the peer's starts so far. */
    private static String logs(ChildPeer p) throws Exception {
        StringBuilder b = new StringBuilder();
        for (int s = 0; s < p.starts; s++) {
            b.append(Files.readString(p.dir.resolve("peer-" + p.index + "-" + s + ".log"), StandardCharsets.UTF_8));
        }
        return b.toString();
    }
}
