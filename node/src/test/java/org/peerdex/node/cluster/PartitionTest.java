package org.peerdex.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.node.PeerNode;
import org.peerdex.node.RejoiningPeer;

/**
 * A network partition of a real 5-peer network (5 PeerNodes: ActorSystems over Artery on 127.0.0.1, LevelDB,
 * HTTP), R = 3: Artery's test-mode blackholes split it into {a, b} and {c, d, e}; documents are indexed on both
 * sides while split; the split-brain resolver (keep-majority) downs the smaller side, whose peers start again
 * ({@link RejoiningPeer}) and keep trying to join; the partition heals: one ring of 5 again, every document found
 * from every peer, every posting on its R holders, none lost.
 */
class PartitionTest {
    /**
     * The periodic repair of held ranges at 15 s instead of 5 min. The heal's ring changes start repairs at once and
     * nearly always restore R copies by themselves, but one quiet CI run saw a posting short of a copy 60 s after the
     * heal (not traced yet; docs/reliability.md, "Partitions"); the periodic repair is the guarantee the peer gives,
     * and this is it at a pace a test can wait for.
     */
    private static final Map<String, Object> REPAIR = Map.of("peerdex.dht.repair-interval", "15s");

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void documentsIndexedOnBothSidesOfAPartitionAreFoundEverywhereAfterItHeals() throws Exception {
        List<RejoiningPeer> peers = new ArrayList<>();
        try {
            RejoiningPeer a = RejoiningPeer.start(ClusterLab.config(Files.createDirectories(dir.resolve("a")),
                    List.of(), REPAIR));
            peers.add(a);
            for (String n : List.of("b", "c", "d", "e")) {
                peers.add(RejoiningPeer.start(ClusterLab.config(Files.createDirectories(dir.resolve(n)),
                        List.of(ClusterLab.seed(a.node())), REPAIR)));
            }
            ClusterLab.await(Duration.ofSeconds(60), "one ring of 5",
                    () -> peers.stream().allMatch(p -> ClusterLab.ringSize(p.node()) == 5));
            List<Map<String, Object>> before = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                Map<String, Object> d = ClusterLab.document("http://before.test/doc-" + i,
                        "baseline document number b" + i + " of the partition story");
                assertTrue(ClusterLab.index(peers.get(i % 2 == 0 ? 0 : 3).node(), d), "acknowledged");
                before.add(d);
            }
            Set<String> beforeUrls = urls(before);
            ClusterLab.await(Duration.ofSeconds(60), "baseline found from every peer",
                    () -> peers.stream().allMatch(p -> ClusterLab.search(p.node(), "baseline").equals(beforeUrls)));

            List<RejoiningPeer> small = peers.subList(0, 2);
            List<RejoiningPeer> large = peers.subList(2, 5);
            for (RejoiningPeer s : small) {
                for (RejoiningPeer l : large) {
                    ClusterLab.blackhole(s.node(), l.node(), true);
                    ClusterLab.blackhole(l.node(), s.node(), true);
                }
            }
            long splitAt = System.nanoTime();
            ClusterLab.await(Duration.ofSeconds(30), "each side sees only itself",
                    () -> small.stream().allMatch(p -> ClusterLab.ringSize(p.node()) == 2)
                            && large.stream().allMatch(p -> ClusterLab.ringSize(p.node()) == 3));
            List<Map<String, Object>> split = new ArrayList<>();
            int acknowledged = 0;
            for (int i = 0; i < 10; i++) {
                RejoiningPeer at = i % 2 == 0 ? small.get(0) : large.get(0);
                Map<String, Object> d = ClusterLab.document("http://split.test/" + (i % 2 == 0 ? "small" : "large")
                        + "-" + i, "partitioned document number s" + i + " indexed while split");
                if (ClusterLab.index(at.node(), d)) {
                    acknowledged++;
                    split.add(d);
                }
            }
            // the smaller side is downed by the split-brain resolver and starts again
            ClusterLab.await(Duration.ofSeconds(40), "the smaller side downed and started again",
                    () -> small.stream().allMatch(p -> p.restarts() >= 1 && p.node() != null));
            long downedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - splitAt);
            for (RejoiningPeer l : large) {
                for (RejoiningPeer s : small) ClusterLab.blackhole(l.node(), s.node(), false);
            }
            long healedAt = System.nanoTime();
            ClusterLab.await(Duration.ofSeconds(60), "one ring of 5 after the heal",
                    () -> peers.stream().allMatch(p -> ClusterLab.ringSize(p.node()) == 5));
            long rejoinedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healedAt);
            Set<String> splitUrls = urls(split);
            ClusterLab.await(Duration.ofSeconds(60), "every document found from every peer",
                    () -> peers.stream().allMatch(p -> ClusterLab.search(p.node(), "partitioned").equals(splitUrls)
                            && ClusterLab.search(p.node(), "baseline").equals(beforeUrls)));
            List<PeerNode> nodes = peers.stream().map(RejoiningPeer::node).toList();
            List<Map<String, Object>> all = new ArrayList<>(before);
            all.addAll(split);
            ClusterLab.await(Duration.ofSeconds(60), "R copies of every posting",
                    () -> ClusterLab.onAllHolders(nodes, all));
            int fewest = ClusterLab.fewestCopies(nodes, all);
            System.out.printf("partition {a,b}|{c,d,e}: indexed while split %d, acknowledged %d, lost 0; smaller "
                            + "side downed and restarted after %d ms; one ring again %d ms after the heal; fewest "
                            + "copies of a posting %d; restarts a=%d b=%d%n", 10, acknowledged, downedAfter,
                    rejoinedAfter, fewest, small.get(0).restarts(), small.get(1).restarts());
            assertEquals(10, acknowledged, "both sides index while split");
            assertTrue(fewest >= 3, "R copies");
        } finally {
            for (RejoiningPeer p : peers) p.close();
        }
    }

    private static Set<String> urls(List<Map<String, Object>> docs) {
        Set<String> out = new HashSet<>();
        for (Map<String, Object> d : docs) out.add((String) d.get("url"));
        return out;
    }
}
