package org.peerdex.actors.dht.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;

/** Directories told of their peers at once (virtual peers' membership), the views they share and their tables. */
class PeerDirectoryMembershipTest {
    static final ActorTestKit KIT = ActorTestKit.create("directory-membership", ConfigFactory.parseString(
            "pekko.actor.provider = local\npeerdex.dht.use-receptionist = off\npeerdex.dht.view-publish-interval = 0ms")
            .withFallback(ConfigFactory.load()));

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    private record Started(ActorRef<PeerDirectory.Command> directory, TestProbe<PeerView> views, PeerInfo[] self) {}

    private Started start(PeerId id) {
        TestProbe<ShardOwner.Command> owner = KIT.createTestProbe();
        PeerInfo[] self = new PeerInfo[1];
        ActorRef<PeerDirectory.Command> d = KIT.spawn(PeerDirectory.create(ref -> self[0] = new PeerInfo(id,
                "peer-" + id.value(), true, "", owner.getRef(), ref), null));
        TestProbe<PeerView> views = KIT.createTestProbe();
        d.tell(new PeerDirectory.SubscribeView(views.getRef()));
        views.receiveMessage();
        return new Started(d, views, self);
    }

    @Test
    void directoriesToldOfTheSamePeersPublishViewsSharingOnePeerMapAndOneRing() {
        Random r = new Random(7);
        List<Started> dirs = new ArrayList<>();
        for (int i = 0; i < 3; i++) dirs.add(start(PeerId.random(r)));
        List<PeerInfo> all = dirs.stream().map(s -> s.self()[0]).toList();
        for (Started s : dirs) s.directory().tell(new PeerDirectory.Learn(all));
        List<PeerView> views = new ArrayList<>();
        for (Started s : dirs) views.add(s.views().receiveMessage(Duration.ofSeconds(5)));
        for (PeerView v : views) {
            assertEquals(3, v.ring().size());
            assertEquals(3, v.peers().size());
            assertEquals(2, v.others().size());
        }
        assertSame(views.get(0).peers(), views.get(1).peers());
        assertSame(views.get(0).peers(), views.get(2).peers());
        assertSame(views.get(0).ring(), views.get(2).ring());
    }

    @Test
    void aPeerForgottenByOneDirectoryLeavesItsViewOnlyAndStaysInItsTableAsOffline() {
        Random r = new Random(11);
        Started a = start(PeerId.random(r));
        Started b = start(PeerId.random(r));
        Started c = start(PeerId.random(r));
        PeerInfo gone = c.self()[0];
        PeerDirectory.Learn learn = new PeerDirectory.Learn(List.of(a.self()[0], b.self()[0], gone));
        a.directory().tell(learn);
        b.directory().tell(learn);
        assertEquals(3, a.views().receiveMessage(Duration.ofSeconds(5)).ring().size());
        assertEquals(3, b.views().receiveMessage(Duration.ofSeconds(5)).ring().size());
        a.directory().tell(new PeerDirectory.Forget(gone.peerId()));
        PeerView after = a.views().receiveMessage(Duration.ofSeconds(5));
        assertEquals(2, after.ring().size());
        // the table b shares with a until a's change is b's own still
        TestProbe<PeerView> bView = KIT.createTestProbe();
        b.directory().tell(new PeerDirectory.GetView(bView.getRef()));
        assertEquals(3, bView.receiveMessage().peers().size());
        TestProbe<List<PeerRecord>> table = KIT.createTestProbe();
        a.directory().tell(new PeerDirectory.GetPeerTable(table.getRef()));
        Map<String, String> roles = table.receiveMessage().stream()
                .collect(Collectors.toMap(PeerRecord::peerId, PeerRecord::role));
        assertEquals(Map.of(a.self()[0].peerId().value(), "active", b.self()[0].peerId().value(), "active",
                gone.peerId().value(), "offline"), roles);
    }

    @Test
    void aMembershipRoundReplacesTheTableSharedAndForgetsThePeersThatLeft() {
        Random r = new Random(13);
        Started a = start(PeerId.random(r));
        Started b = start(PeerId.random(r));
        Started c = start(PeerId.random(r));
        PeerInfo gone = c.self()[0];
        PeerDirectory.Membership first = PeerDirectory.Membership.of(List.of(a.self()[0], b.self()[0], gone), List.of());
        a.directory().tell(first);
        b.directory().tell(first);
        PeerView a1 = a.views().receiveMessage(Duration.ofSeconds(5));
        assertEquals(3, a1.ring().size());
        assertSame(a1.peers(), b.views().receiveMessage(Duration.ofSeconds(5)).peers());
        // the next round without c: both drop it, and share the new map and ring
        PeerDirectory.Membership second = PeerDirectory.Membership.of(List.of(a.self()[0], b.self()[0]), List.of(gone));
        a.directory().tell(second);
        b.directory().tell(second);
        PeerView a2 = a.views().receiveMessage(Duration.ofSeconds(5));
        PeerView b2 = b.views().receiveMessage(Duration.ofSeconds(5));
        assertEquals(2, a2.ring().size());
        assertEquals(Set.of(a.self()[0].peerId(), b.self()[0].peerId()), a2.peers().keySet());
        assertSame(a2.peers(), b2.peers());
        assertSame(a2.ring(), b2.ring());
        TestProbe<List<PeerRecord>> table = KIT.createTestProbe();
        a.directory().tell(new PeerDirectory.GetPeerTable(table.getRef()));
        Map<String, String> roles = table.receiveMessage().stream()
                .collect(Collectors.toMap(PeerRecord::peerId, PeerRecord::role));
        assertEquals("offline", roles.get(gone.peerId().value()), "the peer that left is remembered: " + roles);
        // a round that does not name the directory's own peer (one made before it joined, say) is learnt peer by
        // peer: b takes c back and keeps itself, though the round says b left
        PeerDirectory.Membership stale = PeerDirectory.Membership.of(List.of(a.self()[0], gone), List.of(b.self()[0]));
        b.directory().tell(stale);
        PeerView b3 = b.views().receiveMessage(Duration.ofSeconds(5));
        assertEquals(Set.of(a.self()[0].peerId(), b.self()[0].peerId(), gone.peerId()), b3.peers().keySet());
    }

    /**
     * A round in which more peers left than a directory without a store remembers: each of two directories sharing
     * the table drops them all from its view and lists the last 256 of them as offline, and no others.
     */
    @Test
    void aRoundWithManyDeparturesIsRememberedUpToTheBoundAtEveryDirectory() {
        Random r = new Random(17);
        Started a = start(PeerId.random(r));
        Started b = start(PeerId.random(r));
        TestProbe<ShardOwner.Command> owner = KIT.createTestProbe();
        TestProbe<PeerDirectory.Command> directory = KIT.createTestProbe();
        List<PeerInfo> leaving = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            PeerId id = PeerId.random(r);
            leaving.add(new PeerInfo(id, "peer-" + id.value(), true, "", owner.getRef(), directory.getRef()));
        }
        List<PeerInfo> all = new ArrayList<>(List.of(a.self()[0], b.self()[0]));
        all.addAll(leaving);
        PeerDirectory.Membership first = PeerDirectory.Membership.of(all, List.of());
        a.directory().tell(first);
        b.directory().tell(first);
        assertEquals(302, a.views().receiveMessage(Duration.ofSeconds(5)).peers().size());
        assertEquals(302, b.views().receiveMessage(Duration.ofSeconds(5)).peers().size());
        PeerDirectory.Membership second = PeerDirectory.Membership.of(List.of(a.self()[0], b.self()[0]), leaving);
        a.directory().tell(second);
        b.directory().tell(second);
        Set<String> lastLeft = leaving.subList(300 - 256, 300).stream().map(i -> i.peerId().value())
                .collect(Collectors.toSet());
        for (Started s : List.of(a, b)) {
            assertEquals(2, s.views().receiveMessage(Duration.ofSeconds(5)).peers().size());
            TestProbe<List<PeerRecord>> table = KIT.createTestProbe();
            s.directory().tell(new PeerDirectory.GetPeerTable(table.getRef()));
            Map<String, String> roles = table.receiveMessage().stream()
                    .collect(Collectors.toMap(PeerRecord::peerId, PeerRecord::role));
            Set<String> offline = roles.entrySet().stream().filter(e -> e.getValue().equals("offline"))
                    .map(Map.Entry::getKey).collect(Collectors.toSet());
            assertEquals(lastLeft, offline);
            assertEquals(258, roles.size());
        }
    }
}
