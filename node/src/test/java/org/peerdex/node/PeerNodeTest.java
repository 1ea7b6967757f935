package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.storage.StoreLayout;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.kv.LevelDbStore;
import org.peerdex.storage.testing.TestPostings;

/** A real peer: LevelDB in a temp dir, a one-member cluster and HTTP on 127.0.0.1 with free ports. */
class PeerNodeTest {
    @TempDir
    Path dir;

    @Test
    void statusOverHttpTellsWhoThePeerIsAndWhatItHolds() throws Exception {
        try (PeerNode node = PeerNode.start(TestPeers.config(dir, Map.of("peerdex.network", "testnet")))) {
            long postings = 0;
            for (int i = 0; i < 5; i++) {
                IndexedDocument d = TestPostings.document(i);
                node.context().storage().writer().add(d);
                postings += d.postings().size();
            }
            node.context().storage().writer().flush();

            TestPeers.Reply r = TestPeers.get(node.baseUrl() + "/api/status");
            assertEquals(200, r.status());
            assertTrue(r.contentType().startsWith("application/json"), r.contentType());
            JsonNode s = r.json();
            assertEquals(node.peerId().value(), s.get("peerId").asText());
            assertEquals(PeerId.parse(s.get("peerId").asText()).position(), s.get("position").asLong());
            assertEquals("testnet", s.get("network").asText());
            assertEquals("p2p", s.get("mode").asText());
            assertEquals(5, s.get("documents").asLong());
            assertEquals(postings, s.get("postings").asLong());
            assertEquals(1, s.get("peers").asInt());
            assertEquals(16, s.get("partitions").asInt());
            assertEquals(3, s.get("redundancy").asInt());
            assertTrue(s.get("uptime").asLong() >= 0);
            assertTrue(s.has("pagesPerMinute"));
            assertTrue(!s.get("version").asText().isBlank());
            assertNotEquals(8090, node.httpPort(), "port 0 picks a free port");
        }
    }

    @Test
    void aRestartOnTheSameDataDirectoryKeepsThePeerIdAndTheIndex() throws Exception {
        PeerId first;
        try (PeerNode node = PeerNode.start(TestPeers.config(dir))) {
            first = node.peerId();
            node.context().storage().writer().add(TestPostings.document(1));
        }
        try (PeerNode node = PeerNode.start(TestPeers.config(dir))) {
            assertEquals(first, node.peerId());
            assertEquals(1, node.context().storage().stats().documents(), "the buffered document was flushed on stop");
            assertEquals(first.value(), TestPeers.get(node.baseUrl() + "/api/status").json().get("peerId").asText());
        }
    }

    @Test
    void anIndexOfAnotherStoreLayoutIsRefusedWithAClearMessageAndNotTouched() throws Exception {
        try (PeerNode node = PeerNode.start(TestPeers.config(dir))) {
            node.context().storage().writer().add(TestPostings.document(1));
        }
        // as a newer version would leave it
        try (var raw = LevelDbStore.open(dir.resolve("index"), 1 << 20)) {
            var b = raw.newBatch();
            b.put(Keys.of(Keyspace.SETTINGS,
                    "layout".getBytes(StandardCharsets.US_ASCII)), "9".getBytes(StandardCharsets.US_ASCII));
            raw.write(b, true);
        }
        StartupException e = assertThrows(StartupException.class, () -> PeerNode.start(TestPeers.config(dir)));
        assertTrue(e.getMessage().contains("store layout 9"), e.getMessage());
        assertEquals(2, Main.run("--data", dir.toString(), "--http", "127.0.0.1:0", "--cluster", "127.0.0.1:0"));
        try (var raw = LevelDbStore.open(dir.resolve("index"), 1 << 20)) {
            assertEquals(Optional.of(9), StoreLayout.of(raw), "left as it was");
        }
    }

    @Test
    void aSecondPeerOnADataDirectoryInUseFailsWithAClearMessage() {
        try (PeerNode node = PeerNode.start(TestPeers.config(dir))) {
            StartupException e = assertThrows(StartupException.class, () -> PeerNode.start(TestPeers.config(dir)));
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
            assertTrue(!e.getMessage().contains("\n"), "one line");
            // the first peer is unharmed
            assertEquals(200, TestPeers.get(node.baseUrl() + "/api/status").status());
            // and the command line turns the same failure into exit code 2
            assertEquals(2, Main.run("--data", dir.toString(), "--http", "127.0.0.1:0", "--cluster", "127.0.0.1:0"));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void unknownPathsAndWrongMethodsGetJsonErrors() throws Exception {
        try (PeerNode node = PeerNode.start(TestPeers.config(dir))) {
            TestPeers.Reply missing = TestPeers.get(node.baseUrl() + "/api/no-such-thing");
            assertEquals(404, missing.status());
            assertTrue(missing.contentType().startsWith("application/json"), missing.contentType());
            assertTrue(missing.json().get("error").asText().contains("not found"));

            TestPeers.Reply post = TestPeers.send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/status"))
                    .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString("{}")).build());
            assertEquals(405, post.status());
            assertTrue(post.json().has("error"));
        }
    }

    @Test
    void aBadConfigurationIsAStartupException() {
        StartupException e = assertThrows(StartupException.class,
                () -> PeerNode.start(TestPeers.config(dir, Map.of("peerdex.mode", "sideways"))));
        assertTrue(e.getMessage().contains("mode"), e.getMessage());
    }
}
