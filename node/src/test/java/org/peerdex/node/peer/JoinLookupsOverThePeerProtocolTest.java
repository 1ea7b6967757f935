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
                long joinsBefore = joinLookups(nodes);
                // replication runs in the background: wait until the network gives the searcher a full page
                String[] last = {""};
                try {
                    OpenPeers.await(Duration.ofSeconds(60), () -> {
                        Set<String> found = urls(searcher, q, "global", 10);
                        last[0] = found.toString();
                        return found.size() >= wanted;
                    });
                } catch (AssertionError e) {
                    throw new AssertionError("'" + q + "': the network gave " + last[0] + ", the index has "
                            + everyMatch.size() + " matches", e);
                }
                Set<String> found = urls(searcher, q, "global", 10);
                for (String u : found) assertTrue(everyMatch.contains(u), "'" + q + "': " + u + " does not hold every word");
                assertTrue(joinLookups(nodes) > joinsBefore, "'" + q + "' was answered by join lookups");
            }
            assertTrue(queried >= 2, "queries with matches in the manual: " + queried);
            // the searcher itself indexed nothing: what it found came over the peer protocol
            JsonNode s = TestPeers.get(searcher.baseUrl() + "/api/status").json();
            assertTrue(s.get("peerProtocol").get("requestsAccepted").asLong() > 0, s.toString());
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
