package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.DhtStats;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.TestNetwork;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.PeerStorage;

/**
 * A holder whose lookup work fails (here: its LevelDB store closed under it) answers with an error at once, so the
 * asker tries another holder instead of waiting out its lookup timeout; before, a failed lookup sent nothing.
 */
class HolderFailureTest {
    static final ActorTestKit KIT = ActorTestKit.create(HolderTopKTiesTest.CONFIG);

    @TempDir
    Path dir;

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    @Test
    void aLookupThatFailsIsAnsweredWithAnError() {
        PeerStorage storage = PeerStorage.openLevelDb(dir, TestNetwork.PLACEMENT.partitions());
        DhtStats stats = new DhtStats();
        ActorRef<ShardOwner.Command> owner = KIT.spawn(ShardOwner.create(PeerId.random(new Random(3)), storage,
                TestNetwork.PLACEMENT, DhtSettings.from(HolderTopKTiesTest.CONFIG), stats));
        WordHash word = WordHash.of("closed");
        RangeKey key = new RangeKey(word, 0);
        TestProbe<ShardOwner.LookupReply> lookups = KIT.createTestProbe();
        owner.tell(new ShardOwner.LookupRequest(1, List.of(new ShardOwner.Lookup(key, null, null, 10)),
                lookups.getRef()));
        assertEquals("", lookups.receiveMessage(Duration.ofSeconds(10)).error(), "an open store answers");

        storage.close();
        owner.tell(new ShardOwner.LookupRequest(2, List.of(new ShardOwner.Lookup(key, null, null, 10)),
                lookups.getRef()));
        ShardOwner.LookupReply failed = lookups.receiveMessage(Duration.ofSeconds(10));
        assertEquals(2, failed.queryId());
        assertTrue(failed.error().startsWith("lookup failed"), failed.error());
        TestProbe<ShardOwner.MetadataReply> metadata = KIT.createTestProbe();
        owner.tell(new ShardOwner.FetchMetadata(3, List.of(UrlHash.of("https://closed.test/")), metadata.getRef()));
        assertTrue(metadata.receiveMessage(Duration.ofSeconds(10)).error().startsWith("lookup failed"));
        assertTrue(stats.failedMessages.get() >= 2);
    }
}
