package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** The console's own endpoints over real HTTP: a word's partitions on the ring, deleting a whole host. */
class ConsoleApiTest {
    @Test
    void aWordsPartitionsAreListedWithTheirHoldersAndAHostCanBeDeleted() throws Exception {
        try (SearchTestPeer peer = new SearchTestPeer()) {
            JsonNode w = Json.MAPPER.readTree(peer.get("/api/peers/word/replication").body());
            assertEquals("replication", w.get("word").asText());
            assertEquals(16, w.get("partitions").size());
            JsonNode p0 = w.get("partitions").get(0);
            assertEquals(peer.node.peerId().value(), p0.get("holders").get(0).asText(), "a peer alone holds them all");
            assertTrue(w.get("partitions").get(1).get("position").asLong() > p0.get("position").asLong());

            assertTrue(peer.search("replication", null).get("total").asLong() > 0);
            JsonNode del = Json.MAPPER.readTree(peer.send("DELETE", "/api/index/host/127.0.0.1", null).body());
            assertEquals(peer.corpus.urls().size(), del.get("deletedDocuments").asInt(), del.toString());
            assertTrue(del.get("deletedPostings").asLong() > 100);
            assertEquals(0, peer.search("replication", null).get("total").asLong());
            assertEquals(0L, peer.node.context().storage().stats().documents());
            assertEquals(404, peer.send("DELETE", "/api/index/host/127.0.0.1", null).statusCode());
        }
    }
}
