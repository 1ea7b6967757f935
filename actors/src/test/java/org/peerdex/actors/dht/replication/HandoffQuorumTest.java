package org.peerdex.actors.dht.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerInfo;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;

class HandoffQuorumTest {
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final ActorRef<ShardOwner.Command> OWNER = KIT.spawn(Behaviors.ignore());
    private static final ActorRef<PeerDirectory.Command> DIRECTORY = KIT.spawn(Behaviors.ignore());
    private final Random random = new Random(7);

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    private PeerInfo at(String address) {
        return new PeerInfo(PeerId.random(random), address, true, "", OWNER, DIRECTORY);
    }

    @Test
    void holdersOfOnePrefixCannotMakeAnOpenPeerDropItsCopies() {
        HandoffQuorum q = new HandoffQuorum(3, 24);
        assertFalse(q.satisfied(List.of(at("peer://203.0.113.5:8070"), at("peer://203.0.113.6:8070"),
                at("peer://203.0.113.7:8070"))), "three Sybils of one /24");
        assertFalse(q.satisfied(List.of(at("peer://203.0.113.5:8070"), at("peer://203.0.113.6:8070"),
                at("peer://198.51.100.1:8070"))), "two of three on one /24");
        assertTrue(q.satisfied(List.of(at("peer://203.0.113.5:8070"), at("peer://198.51.100.1:8070"),
                at("peer://192.0.2.1:8070"))));
        assertTrue(q.satisfied(List.of(at("peer://203.0.113.5:8070"), at("peer://198.51.100.1:8070"))),
                "a ring of fewer holders: each on its own prefix");
        assertFalse(q.satisfied(List.of(at("peer://[2001:db8:1:2::1]:8070"), at("peer://[2001:db8:1:3::1]:8070"))),
                "one IPv6 /48");
    }

    @Test
    void aTrustDomainAndVirtualPeersCountEveryAcknowledgement() {
        HandoffQuorum q = new HandoffQuorum(3, 24);
        assertTrue(q.satisfied(List.of(at("pekko://peerdex@127.0.0.1:1"), at("pekko://peerdex@127.0.0.1:2"))));
        assertTrue(q.satisfied(List.of(at("v17"), at("v18"))));
        assertEquals("v4:cb007100", q.prefix("peer://203.0.113.200:1"));
    }
}
