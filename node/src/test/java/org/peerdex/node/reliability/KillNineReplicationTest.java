package org.peerdex.node.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.node.http.Json;

/**
 * kill -9 during replication: three peers in child JVMs form one network on 127.0.0.1 (redundancy 3, so every peer
 * is to hold every posting); clients index documents at one peer through {@code POST /api/index/document}; while
 * that peer's replication outbox is not empty, the sender or one of the holders (seeded choice) is killed with
 * SIGKILL and restarted on its directory. After the rounds every acknowledged document is found from every peer
 * (global search) and is held by all 3 peers (local search on each). 3 rounds in CI;
 * {@code -Dpeerdex.kill9repl.rounds=20} for the longer run.
 */
@Tag("reliability")
class KillNineReplicationTest {
    static final int ROUNDS = Integer.getInteger("peerdex.kill9repl.rounds", 3);
    static final long SEED = Long.getLong("peerdex.kill9repl.seed", 5L);
    static final int PEERS = 3;

    @TempDir
    Path dir;
    /** Restarted peers that exited again before they served as members (and were started once more). */
    int exitedAfterRestart;
    final List<ChildPeer> peers = new ArrayList<>();

    @Test
    void everyAcknowledgedDocumentHasAllItsCopiesAfterSigkillOfSenderOrHolder() throws Exception {
        Random random = new Random(SEED);
        Set<Integer> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicInteger nextId = new AtomicInteger();
        int senderKills = 0;
        int holderKills = 0;
        int killsWithOutbox = 0;
        try {
            for (int i = 0; i < PEERS; i++) {
                ChildPeer p = new ChildPeer(dir, i);
                p.start(i == 0 ? List.of() : List.of("127.0.0.1:" + peers.get(0).cluster));
                peers.add(p);
            }
            awaitMembers(peers, PEERS);
            for (int round = 0; round < ROUNDS; round++) {
                ChildPeer sender = peers.get(random.nextInt(PEERS));
                boolean killSender = random.nextBoolean();
                ChildPeer victim = killSender ? sender : peers.get((sender.index + 1 + random.nextInt(PEERS - 1)) % PEERS);
                int killAfter = acknowledged.size() + 5 + random.nextInt(30);
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> clients = new ArrayList<>();
                String base = sender.base();
                for (int c = 0; c < 2; c++) {
                    Thread t = new Thread(() -> {
                        while (!stop.get()) {
                            int id = nextId.getAndIncrement();
                            try {
                                FaultPeers.Reply r = FaultPeers.post(base + "/api/index/document", body(id));
                                if (r.status() == 200) acknowledged.add(id);
                            } catch (Exception e) {
                                return; // the sender was killed: this one is in doubt
                            }
                        }
                    }, "replication-client-" + c);
                    t.setDaemon(true);
                    t.start();
                    clients.add(t);
                }
                // kill when enough is acknowledged and the sender still owes replicas (its outbox is not empty)
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                boolean outboxFull = false;
                while (System.nanoTime() < deadline) {
                    if (acknowledged.size() >= killAfter) {
                        JsonNode repl = FaultPeers.get(base + "/api/status").json().path("dht").path("replication");
                        outboxFull = repl.path("outboxEntries").asLong() > 0;
                        if (outboxFull || acknowledged.size() >= killAfter + 60) break;
                    }
                    LockSupport.parkNanos(2_000_000); // poll interval
                }
                if (outboxFull) killsWithOutbox++;
                FaultPeers.kill(victim.process);
                if (killSender) senderKills++;
                else holderKills++;
                stop.set(true);
                for (Thread t : clients) t.join(30_000);
                System.out.printf("kill -9 replication round %d: killed the %s (peer %d) after %d acknowledged, outbox"
                        + " %s%n", round, killSender ? "sender" : "holder", victim.index, acknowledged.size(),
                        outboxFull ? "not empty" : "empty (not caught in time)");
                ChildPeer seed = peers.get((victim.index + 1) % PEERS);
                victim.start(List.of("127.0.0.1:" + seed.cluster));
                awaitMembers(List.of(victim), PEERS);
            }
            // every acknowledged document: found from every peer, and held by all of them (R = 3 copies)
            long t0 = System.nanoTime();
            int[] missingCopies = {0};
            int[] notFound = {0};
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (true) {
                missingCopies[0] = 0;
                notFound[0] = 0;
                for (int id : acknowledged) {
                    for (ChildPeer p : peers) {
                        if (FaultPeers.hits(p.base(), "replicadoc" + id + "z") != 1) missingCopies[0]++;
                    }
                }
                if (missingCopies[0] == 0 || System.nanoTime() > deadline) break;
                LockSupport.parkNanos(1_000_000_000); // let repair rounds run between checks
            }
            for (int id : acknowledged) {
                for (ChildPeer p : peers) {
                    FaultPeers.Reply r = FaultPeers.get(p.base() + "/api/search?resource=global&q=replicadoc" + id + "z");
                    if (r.status() != 200 || r.json().path("results").size() != 1) notFound[0]++;
                }
            }
            System.out.printf("kill -9 replication: %d rounds (%d senders, %d holders killed, %d with a non-empty"
                    + " outbox), %d sent, %d acknowledged, %d copies missing of %d, %d global searches without the"
                    + " document; converged in %d ms; %d restarted peers exited again and were restarted%n", ROUNDS,
                    senderKills, holderKills, killsWithOutbox, nextId.get(), acknowledged.size(), missingCopies[0],
                    acknowledged.size() * PEERS, notFound[0], (System.nanoTime() - t0) / 1_000_000, exitedAfterRestart);
            assertTrue(acknowledged.size() > 0);
            assertEquals(0, missingCopies[0], "acknowledged documents without all their copies");
            assertEquals(0, notFound[0], "acknowledged documents not found from some peer");
        } catch (Throwable e) {
            // the temp dir (and the child logs in it) goes with the test: keep them for the diagnosis
            System.out.println("kill -9 replication failed; child logs kept in " + FaultPeers.keepLogs(dir, "kill9repl"));
            throw e;
        } finally {
            for (ChildPeer p : peers) if (p.process != null && p.process.isAlive()) FaultPeers.kill(p.process);
        }
    }

    private void awaitMembers(List<ChildPeer> waiting, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        for (ChildPeer p : waiting) {
            while (true) {
                JsonNode ps;
                try {
                    ps = FaultPeers.get(p.base() + "/api/peers").json().path("peers");
                } catch (java.io.IOException e) {
                    if (p.process.isAlive()) {
                        if (System.nanoTime() > deadline) throw new AssertionError("peer " + p.index + " not serving");
                        LockSupport.parkNanos(100_000_000); // poll interval
                        continue;
                    }
                    // a restarted peer can leave again before it is up (the cluster downs it): log it, start it again
                    exitedAfterRestart++;
                    String tail = FaultPeers.tail(p.log);
                    System.out.println("peer " + p.index + " exited with " + p.process.exitValue() + " after its restart;"
                            + " log tail:\n" + tail.substring(Math.max(0, tail.length() - 1500)));
                    if (exitedAfterRestart > 10) throw new AssertionError("restarted peers keep exiting", e);
                    ChildPeer seed = peers.get((p.index + 1) % PEERS);
                    p.start(List.of("127.0.0.1:" + seed.cluster));
                    continue;
                }
                if (ChildPeer.active(ps) >= n) break;
                if (System.nanoTime() > deadline) {
                    String tail = FaultPeers.tail(p.log);
                    throw new AssertionError("peer " + p.index + " sees " + ps + "; its log tail:\n"
                            + tail.substring(Math.max(0, tail.length() - 3000)));
                }
                LockSupport.parkNanos(100_000_000); // poll interval
            }
        }
    }

    static String body(int id) {
        return Json.write(Map.of("url", "http://replica.test/doc/" + id, "title", "Replicated " + id,
                "text", "replicadoc" + id + "z must reach every holder even when peers die; id " + id));
    }
}
