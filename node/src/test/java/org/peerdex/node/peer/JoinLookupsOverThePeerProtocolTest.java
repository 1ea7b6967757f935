package org.peerdex.node.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
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
import org.peerdex.node.TestPeers;

/**
 * Several-word searches between real open-network peers (signed peer protocol on 127.0.0.1, no Pekko Cluster) go
 * to the holders as join lookups: one request per holder covering its partitions, the holder joining the words'
 * postings itself. A peer that indexed nothing finds, through the network alone, only pages that hold every word
 * (each one among the indexing peer's own matches), and as many as the indexing peer finds in its own index up to
 * a page of results; the holders count the join lookups they answered.
 */
class JoinLookupsOverThePeerProtocolTest {
    static final List<String> QUERIES = List.of("peer index", "search results", "crawl depth", "the network");

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void severalWordSearchesJoinAtTheHolders() throws Exception {
        // join lookups go to holders that held their keys under every ring of the hand-off window: a short window,
        // so that the network that has just formed is settled within the test
        List<PeerNode> nodes = OpenPeers.network(dir, 4, Map.of("peerdex.dht.handoff-window", "2s"));
        try {
            PeerNode origin = nodes.get(0);
            PeerNode searcher = nodes.get(3);
            TestPeers.Reply indexed = TestPeers.send(HttpRequest.newBuilder(URI.create(origin.baseUrl() + "/api/index/manual"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build());
            assertEquals(200, indexed.status(), indexed.json().toString());
            int queried = 0;
            for (String q : QUERIES) {
                Set<String> everyMatch = urls(origin, q, "local", 100);
                // a query with more matches than one answer lists cannot be checked against them all
                if (everyMatch.isEmpty() || everyMatch.size() >= 100) continue;
                queried++;
                int wanted = Math.min(10, everyMatch.size());
                // replication runs in the background, and join lookups go only to holders that held their keys under
                // every ring of the hand-off window: ask until a search that was answered by join lookups gives the
                // searcher a full page
                List<Set<String>> last = new ArrayList<>(List.of(Set.of()));
                long[] joins = {0};
                try {
                    OpenPeers.await(Duration.ofSeconds(60), () -> {
                        long before = joinLookups(nodes);
                        Set<String> found = urls(searcher, q, "global", 10);
                        joins[0] = joinLookups(nodes) - before;
                        last.set(0, found);
                        return found.size() >= wanted && joins[0] > 0;
                    });
                } catch (AssertionError e) {
                    throw new AssertionError("'" + q + "': the network gave " + last.get(0) + " (" + joins[0]
                            + " join lookups answered), the index has " + everyMatch.size() + " matches", e);
                }
                for (String u : last.get(0)) {
                    assertTrue(everyMatch.contains(u), "'" + q + "': " + u + " does not hold every word");
                }
            }
            assertTrue(queried >= 2, "queries with matches in the manual: " + queried);
            // the searcher itself indexed nothing: what it found came over the peer protocol
            JsonNode s = TestPeers.get(searcher.baseUrl() + "/api/status").json();
            assertTrue(s.get("peerProtocol").get("requestsAccepted").asLong() > 0, s.toString());
            // and the holders' join answers came as join tables
            assertTrue(s.get("peerProtocol").get("joinTablesRead").asLong() > 0, s.toString());
        } finally {
            for (PeerNode n : nodes) n.close();
        }
    }

    private static Set<String> urls(PeerNode n, String q, String resource, int count) throws Exception {
        JsonNode r = TestPeers.get(n.baseUrl() + "/api/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8)
                + "&resource=" + resource + "&count=" + count).json();
        Set<String> out = new HashSet<>();
        for (JsonNode x : r.get("results")) out.add(x.get("url").asText());
        return out;
    }

    private static long joinLookups(List<PeerNode> nodes) {
        long n = 0;
        for (PeerNode p : nodes) n += p.services().network().dht().stats().joinLookupsAnswered.get();
        return n;
    }
}
