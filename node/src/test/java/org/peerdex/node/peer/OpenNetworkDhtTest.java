package org.peerdex.node.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.replication.Replicator;
import org.peerdex.node.PeerNode;
import org.peerdex.node.TestPeers;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.rwi.Posting;

/**
 * The DHT's placement, repair, hand-off and loss of a holder, on the open network's transport: real peers on
 * 127.0.0.0/8 talking the signed peer protocol, no Pekko Cluster. Each peer has an address of its own
 * (127.0.0.21, .22, ...) and prefixes are /32 here, so a hand-off's quorum of distinct address prefixes can be met
 * and holders really delete what they handed off.
 */
class OpenNetworkDhtTest {
    @TempDir
    Path dir;

    private final List<PeerNode> nodes = new ArrayList<>();

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void placementRepairHandOffAndALostHolderOverThePeerProtocol() throws Exception {
        try {
            for (int i = 0; i < 4; i++) start(i);
            awaitRing(4);
            PeerNode origin = nodes.get(0);
            TestPeers.Reply indexed = TestPeers.send(HttpRequest.newBuilder(URI.create(origin.baseUrl() + "/api/index/manual"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build());
            assertEquals(200, indexed.status(), indexed.json().toString());
            List<Posting> own = new ArrayList<>();
            origin.context().storage().rwi().scanAll(p -> {
                if (p.holder() == null) own.add(p);
            });
            assertTrue(own.size() > 100, "the manual gives postings: " + own.size());

            // placement: every posting reaches each of its R holders on the ring, and nobody else keeps one
            awaitPlaced(own, "placement on 4 peers");
            awaitNoCopiesOutsideHolders(own, "placement on 4 peers");

            // repair: a holder loses every posting of one page; anti-entropy brings them back
            PeerNode lossy = nodes.get(2);
            // a page of which the ring gives this holder postings (ids come from fresh keys, so a fixed page may
            // have none there)
            Ring four = ring(origin);
            List<UrlHash> held = own.stream().filter(p -> holders(p, four).contains(lossy.peerId()))
                    .map(Posting::url).distinct().toList();
            assertFalse(held.isEmpty(), "the ring gives " + lossy.peerId() + " postings of the manual");
            UrlHash page = held.get(held.size() / 2);
            int lost = lossy.context().storage().rwi().deleteUrl(page);
            assertTrue(lost > 0, "the chosen holder held postings of the page");
            awaitPlaced(own, "repair after a holder lost " + lost + " postings");

            // hand-off: a fifth peer joins; it receives its share, and peers that are no longer holders delete theirs
            start(4);
            awaitRing(5);
            Ring five = ring(origin);
            long forNewcomer = own.stream().filter(p -> holders(p, five).contains(nodes.get(4).peerId())).count();
            assertTrue(forNewcomer > 0, "the newcomer holds part of the ring");
            awaitPlaced(own, "hand-off to a fifth peer (" + forNewcomer + " postings are now its)");
            awaitNoCopiesOutsideHolders(own, "hand-off deletes");

            // a lost holder: a holder that is not the origin dies; probes take it out, and its postings get R copies again
            PeerNode dead = nodes.get(1);
            PeerId deadId = dead.peerId();
            dead.close();
            nodes.remove(dead);
            OpenPeers.await(Duration.ofSeconds(40), () -> {
                for (PeerNode n : nodes) if (ring(n).contains(deadId)) return false;
                return true;
            });
            awaitPlaced(own, "re-replication after losing holder " + deadId);
            OpenPeers.await(Duration.ofSeconds(30), () -> TestPeers.get(nodes.get(3).baseUrl()
                    + "/api/search?q=peer&resource=global").json().get("results").size() > 0);
        } finally {
            for (PeerNode n : nodes) n.close();
        }
    }

    private void start(int i) throws Exception {
        Map<String, Object> more = new HashMap<>();
        more.put("peerdex.peer.host", "127.0.0." + (21 + i));
        more.put("peerdex.dht.repair-interval", "3s");
        more.put("peerdex.dht.rebalance-delay", "500ms");
        List<String> seeds = nodes.isEmpty() ? List.of() : List.of(OpenPeers.address(nodes.get(0)));
        nodes.add(PeerNode.start(OpenPeers.config(Files.createDirectories(dir.resolve("p" + i)), seeds, more)));
    }

    private void awaitRing(int n) throws Exception {
        OpenPeers.await(Duration.ofSeconds(40), () -> {
            for (PeerNode p : nodes) if (ring(p).size() != n) return false;
            return true;
        });
    }

    private static Ring ring(PeerNode n) {
        return n.services().network().dht().view().get().ring();
    }

    private List<PeerId> holders(Posting p, Ring ring) {
        DhtPeer dht = nodes.get(0).services().network().dht();
        return dht.placement().holders(p.word(), p.url(), ring);
    }

    private PeerNode node(PeerId id) {
        return nodes.stream().filter(n -> n.peerId().equals(id)).findFirst().orElse(null);
    }

    /**
     * Every posting is on each of its holders by every live peer's ring (all rings equal). Replication need not be
     * idle: with a 2 s repair interval on a loaded machine some peer is nearly always planning a round.
     */
    private void awaitPlaced(List<Posting> own, String what) throws Exception {
        String[] missing = {""};
        try {
            OpenPeers.await(Duration.ofSeconds(60), () -> {
                Ring ring = ring(nodes.get(0));
                for (PeerNode n : nodes) {
                    if (!ring(n).equals(ring)) {
                        missing[0] = "rings differ: " + ring + " on the origin, " + ring(n) + " on " + n.peerId();
                        return false;
                    }
                }
                int absent = 0;
                String example = "";
                for (Posting p : own) {
                    for (PeerId h : holders(p, ring)) {
                        PeerNode holder = node(h);
                        if (holder == null || holder.context().storage().rwi().get(p.word(), p.url()).isEmpty()) {
                            if (absent++ == 0) example = p.word() + "/" + p.url() + " on " + h;
                        }
                    }
                }
                String busy = busy();
                missing[0] = absent + " missing, e.g. " + example + "; busy: " + busy;
                return absent == 0;
            });
        } catch (AssertionError e) {
            throw new AssertionError(what + ": " + missing[0], e);
        }
    }

    /** The replicators that are not idle, with their progress ("" when all are). */
    private String busy() throws Exception {
        StringBuilder busy = new StringBuilder();
        for (PeerNode n : nodes) {
            DhtPeer dht = n.services().network().dht();
            Replicator.Progress p = AskPattern.<Replicator.Command, Replicator.Progress>ask(dht.replicator(),
                    Replicator.GetProgress::new, Duration.ofSeconds(2), n.context().system().scheduler())
                    .toCompletableFuture().get(3, TimeUnit.SECONDS);
            if (!p.idle()) busy.append(n.peerId()).append(' ').append(p).append("; ");
        }
        return busy.toString();
    }

    private void awaitNoCopiesOutsideHolders(List<Posting> own, String what) throws Exception {
        String[] last = {""};
        try {
            OpenPeers.await(Duration.ofSeconds(40), () -> (last[0] = copiesOutsideHolders(own)).isEmpty());
        } catch (AssertionError e) {
            throw new AssertionError(what + ": " + last[0], e);
        }
    }

    /** Copies of the origin's postings on peers that are neither the origin nor a holder ("" when there are none). */
    private String copiesOutsideHolders(List<Posting> own) {
        Ring ring = ring(nodes.get(0));
        int extra = 0;
        String example = "";
        for (PeerNode n : nodes.subList(1, nodes.size())) {
            for (Posting p : own) {
                if (holders(p, ring).contains(n.peerId())) continue;
                if (n.context().storage().rwi().get(p.word(), p.url()).isPresent()) {
                    if (extra++ == 0) example = p.word() + "/" + p.url() + " on " + n.peerId();
                }
            }
        }
        return extra == 0 ? "" : extra + " copies outside the holders, e.g. " + example;
    }
}
