package org.peerdex.actors.dht.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Random;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;

/** Directories that find each other through the receptionist: a Hello that is not answered goes out again. */
class PeerDirectoryGreetingTest {
    static final ActorTestKit KIT = ActorTestKit.create("directory-greeting", ConfigFactory.parseString("""
            pekko.actor.provider = local
            peerdex.dht.use-receptionist = on
            peerdex.dht.view-publish-interval = 0ms
            peerdex.dht.directory-tick = 200ms
            """).withFallback(ConfigFactory.load()));

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    @Test
    void aListedDirectoryThatDoesNotAnswerIsGreetedAgainUntilItDoesAndThenNoMore() {
        Random r = new Random(3);
        TestProbe<ShardOwner.Command> owner = KIT.createTestProbe();
        PeerId selfId = PeerId.random(r);
        ActorRef<PeerDirectory.Command> directory = KIT.spawn(PeerDirectory.create(ref -> new PeerInfo(selfId,
                "peer-a", true, "", owner.getRef(), ref), null));
        TestProbe<PeerView> views = KIT.createTestProbe();
        directory.tell(new PeerDirectory.SubscribeView(views.getRef()));
        assertEquals(1, views.receiveMessage().ring().size());

        // another peer's directory, listed by the receptionist, that drops the first Hello (lost on the way)
        TestProbe<PeerDirectory.Command> other = KIT.createTestProbe();
        TestProbe<Receptionist.Registered> registered = KIT.createTestProbe();
        KIT.system().receptionist().tell(Receptionist.register(PeerDirectory.KEY, other.getRef(), registered.getRef()));
        registered.receiveMessage();
        PeerDirectory.Hello first = other.expectMessageClass(PeerDirectory.Hello.class, Duration.ofSeconds(5));
        assertEquals(selfId, first.info().peerId());
        PeerDirectory.Hello again = other.expectMessageClass(PeerDirectory.Hello.class, Duration.ofSeconds(5));
        assertEquals(selfId, again.info().peerId());

        PeerId otherId = PeerId.random(r);
        directory.tell(new PeerDirectory.HelloReply(new PeerInfo(otherId, "peer-b", true, "", owner.getRef(),
                other.getRef())));
        PeerView joined = views.receiveMessage(Duration.ofSeconds(5));
        assertEquals(2, joined.ring().size());
        assertTrue(joined.peers().containsKey(otherId));
        // answered: over five ticks at most the one Hello that was already on its way when the answer came
        assertTrue(hellosWithin(other, Duration.ofSeconds(1)) <= 1);
    }

    private static int hellosWithin(TestProbe<PeerDirectory.Command> probe, Duration window) {
        long end = System.nanoTime() + window.toNanos();
        int n = 0;
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0) return n;
            try {
                probe.expectMessageClass(PeerDirectory.Hello.class, Duration.ofNanos(left));
                n++;
            } catch (AssertionError none) {
                return n;
            }
        }
    }
}
