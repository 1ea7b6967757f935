package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.rwi.Posting;

/**
 * A holder's answer to a lookup keeps the best {@code limit} postings of a key by partial score, ties by URL hash as
 * the querying peer's ranking breaks them: of postings scoring alike, the smaller hashes stay, whichever came first
 * in the scan. (The heap used to drop the smallest hash among the tied worst when a better posting came later.)
 */
class HolderTopKTiesTest {
    static final Config CONFIG = ConfigFactory.parseString("pekko.actor.provider = local\n"
            + "peerdex.dht.use-receptionist = off").withFallback(ConfigFactory.load());
    static final ActorTestKit KIT = ActorTestKit.create(CONFIG);

    @TempDir
    Path dir;

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    static Posting posting(WordHash word, UrlHash url, int flags) {
        return new Posting(word, url, null, flags, 2, new int[] {3, 40}, 300, 5, 20_000, "en", 'h', 4, 2, 30, 2, 0);
    }

    @Test
    void amongEqualScoresTheHolderKeepsTheSmallestUrlHashes() {
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, TestNetwork.PLACEMENT.partitions())) {
            WordHash word = WordHash.of("ties");
            // URLs of one partition whose hashes give the same domain-length class: their postings score alike
            List<UrlHash> urls = new ArrayList<>();
            for (int i = 0; urls.size() < 7; i++) {
                UrlHash u = UrlHash.of("http://ties.test/page-" + i);
                if (storage.rwi().partitions().partitionOf(u) == 0 && (Base64Order.value(u.value().charAt(11)) & 3) == 0) {
                    urls.add(u);
                }
            }
            urls.sort(null);
            List<Posting> postings = new ArrayList<>();
            for (int i = 0; i < urls.size() - 1; i++) postings.add(posting(word, urls.get(i), 0));
            // the best posting has the largest hash: the scan meets it after every tied one
            UrlHash best = urls.get(urls.size() - 1);
            postings.add(posting(word, best, Posting.IN_TITLE));
            storage.rwi().add(postings, true);
            assertEquals(PartialScore.of(postings.get(0)), PartialScore.of(postings.get(1)));

            ActorRef<ShardOwner.Command> owner = KIT.spawn(ShardOwner.create(PeerId.random(new java.util.Random(1)),
                    storage, TestNetwork.PLACEMENT, DhtSettings.from(CONFIG), new DhtStats()));
            TestProbe<ShardOwner.LookupReply> probe = KIT.createTestProbe();
            owner.tell(new ShardOwner.LookupRequest(1, List.of(new ShardOwner.Lookup(new RangeKey(word, 0), null, null, 3)),
                    probe.getRef()));
            ShardOwner.LookupReply reply = probe.receiveMessage(Duration.ofSeconds(10));
            assertEquals("", reply.error());
            assertEquals(List.of(best, urls.get(0), urls.get(1)),
                    reply.results().get(0).postings().postings().stream().map(Posting::url).toList());
            assertEquals(7, reply.results().get(0).matched());
            KIT.stop(owner);
        }
    }
}
