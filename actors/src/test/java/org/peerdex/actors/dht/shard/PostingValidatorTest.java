package org.peerdex.actors.dht.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.dht.TestCorpus;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.storage.meta.UrlMetadata;

/** What a holder refuses of the metadata records another peer sends. */
class PostingValidatorTest {
    private final UrlMetadata record = TestCorpus.documents(1, 3).get(0).metadata();

    @Test
    void aRecordNamesItsHolderByPeerIdOrNotAtAll() {
        assertEquals(Optional.empty(), PostingValidator.problem(ShardOwner.withHolder(record, null)));
        String crawler = PeerId.random(new Random(5)).value();
        assertEquals(Optional.empty(), PostingValidator.problem(ShardOwner.withHolder(record, crawler)));
        for (String bad : List.of("", "not a peer", crawler + crawler, crawler.substring(1), "<b>" + crawler.substring(3))) {
            Optional<String> problem = PostingValidator.problem(ShardOwner.withHolder(record, bad));
            assertTrue(problem.isPresent() && problem.get().contains("not a peer id"), bad + ": " + problem);
            assertEquals(problem, PostingValidator.firstProblem(List.of(), List.of(ShardOwner.withHolder(record, bad))));
        }
    }
}
