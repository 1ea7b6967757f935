package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.peerdex.node.http.Json;

/**
 * Every query operator applies to every source's candidates, on three real peers (own ActorSystem, LevelDB and
 * HTTP each, clustered on 127.0.0.1): pages indexed on the first peer are searched from the third, a passive peer
 * that holds no postings but the cached copies of what it searched, so an excluded word's postings are only in
 * the DHT; plus a federated source (a real HTTP
 * server on loopback answering YaCy's JSON) that ignores the operators, as outside engines may.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class OperatorsOnEverySourceTest {
    private static final String DIET = "http://one.example/quokka-diet.html";
    private static final String ISLAND = "http://two.example/quokka-island.html";
    private static final String SMILE = "http://one.example/notes/quokka-smile.txt";
    private final List<PeerNode> nodes = new ArrayList<>();
    private Path dir;
    private PeerNode searcher;
    private HttpServer engine;

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("peerdex-operators");
        PeerNode first = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("a"))));
        nodes.add(first);
        List<String> seeds = List.of("127.0.0.1:" + first.clusterAddress().port().get());
        nodes.add(PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("b")),
                Map.of("peerdex.cluster.seeds", seeds))));
        searcher = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("c")),
                Map.of("peerdex.cluster.seeds", seeds, "peerdex.dht.accept-remote-index", false)));
        nodes.add(searcher);
        NetworkTest.await(Duration.ofSeconds(40), () -> TestPeers.get(searcher.baseUrl() + "/api/peers").json()
                .get("peers").size() == 3);
        index(first, DIET, "Quokka diet", "The quokka eats leaves and grasses at night, like other small wallabies.");
        // "predators" only in the body: neither the title nor anything the searching peer stores names it
        index(first, ISLAND, "Quokka island", "The quokka lives on Rottnest with few predators and many tourists.");
        index(first, SMILE, "Quokka smile", "Why the quokka seems to smile at tourists on the island ferry.");
        // an outside engine that answers every query with the same hits, whatever its operators say
        engine = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        engine.createContext("/yacysearch.json", ex -> {
            byte[] body = Json.write(Map.of("channels", List.of(Map.of("items", List.of(
                    Map.of("link", "http://fed.example/quokka-predators", "title", "Quokka predators",
                            "description", "foxes and cats hunt the quokka on the mainland"),
                    Map.of("link", "http://fed.example/quokka-facts", "title", "Quokka facts",
                            "description", "the quokka is a small marsupial of western australia"))))))
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        engine.start();
        String sources = Json.write(Map.of("sources", List.of(Map.of("name", "outside", "kind", "yacy-json", "url",
                "http://127.0.0.1:" + engine.getAddress().getPort() + "/yacysearch.json?query={query}&maximumRecords={count}"))));
        TestPeers.Reply put = TestPeers.send(HttpRequest.newBuilder(URI.create(searcher.baseUrl() + "/api/federation"))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(sources)).build());
        assertEquals(200, put.status(), put.json().toString());
        // the postings reach the two active peers; the passive one finds all three through the DHT only
        NetworkTest.await(Duration.ofSeconds(60), () -> urls(search("quokka", false)).containsAll(Set.of(DIET, ISLAND, SMILE)));
        // the excluded words' postings are on both holders too (exclusion lookups may ask either; the await above
        // saw only the word 'quokka' arrive), checked on each holder's own index so the searcher caches nothing
        for (PeerNode holder : nodes.subList(0, 2)) {
            NetworkTest.await(Duration.ofSeconds(60), () -> localUrls(holder, "quokka island").equals(Set.of(ISLAND, SMILE))
                    && localUrls(holder, "quokka predators").equals(Set.of(ISLAND)));
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (engine != null) engine.stop(0);
        for (PeerNode n : nodes) n.close();
    }

    private static void index(PeerNode n, String url, String title, String text) throws Exception {
        TestPeers.Reply r = TestPeers.send(HttpRequest.newBuilder(URI.create(n.baseUrl() + "/api/index/document"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        Json.write(Map.of("url", url, "title", title, "text", text)))).build());
        assertEquals(200, r.status(), r.json().toString());
    }

    private JsonNode search(String q, boolean federated) throws Exception {
        TestPeers.Reply r = TestPeers.get(searcher.baseUrl() + "/api/search?resource=global&count=20&federated="
                + federated + "&q=" + URLEncoder.encode(q, StandardCharsets.UTF_8));
        assertEquals(200, r.status(), r.json().toString());
        return r.json();
    }

    private static Set<String> localUrls(PeerNode n, String q) throws Exception {
        return urls(TestPeers.get(n.baseUrl() + "/api/search?resource=local&count=20&q="
                + URLEncoder.encode(q, StandardCharsets.UTF_8)).json());
    }

    private static Set<String> urls(JsonNode search) {
        Set<String> out = new HashSet<>();
        for (JsonNode n : search.get("results")) out.add(n.get("url").asText());
        return out;
    }

    @Test
    void theSearchingPeerHoldsNoPostingOfTheBodyWordItExcludes() throws Exception {
        // it keeps the postings of what it searched as cached copies, but nothing else of these pages
        assertEquals(0, TestPeers.get(searcher.baseUrl() + "/api/search?resource=local&q=predators").json()
                .get("results").size(), "the passive peer's own index holds no 'predators'");
        // (no global search for it here: the peer would keep its postings as cached copies)
    }

    @Test
    void anExcludedWordOfTheBodyDropsADhtResult() throws Exception {
        JsonNode r = search("quokka -predators", false);
        assertEquals(Set.of(DIET, SMILE), urls(r), r.toString());
        assertFalse(r.get("results").toString().contains("predators"), r.toString());
    }

    @Test
    void anExcludedWordDropsDhtResultsByTitleAndByBody() throws Exception {
        // the island page by its title, the smile page by its body ("on the island ferry")
        assertEquals(Set.of(DIET), urls(search("quokka -island", false)));
    }

    @Test
    void phrasesAndFiltersApplyToDhtResults() throws Exception {
        // the passive peer stores no text of these pages: the postings' word positions decide a phrase of the body
        assertEquals(Set.of(DIET), urls(search("\"leaves and grasses\"", false)));
        assertEquals(Set.of(), urls(search("\"grasses and leaves\"", false)));
        assertEquals(Set.of(ISLAND), urls(search("quokka site:two.example", false)));
        assertEquals(Set.of(SMILE), urls(search("quokka filetype:txt", false)));
        assertEquals(Set.of(SMILE), urls(search("quokka inurl:notes", false)));
    }

    @Test
    void federatedHitsObeyExclusionsPhrasesAndFiltersToo() throws Exception {
        Set<String> all = urls(search("quokka", true));
        assertTrue(all.containsAll(Set.of("http://fed.example/quokka-predators", "http://fed.example/quokka-facts")),
                all.toString());
        Set<String> excluded = urls(search("quokka -predators", true));
        assertFalse(excluded.contains("http://fed.example/quokka-predators"), excluded.toString());
        assertFalse(excluded.contains(ISLAND), excluded.toString());
        assertTrue(excluded.contains("http://fed.example/quokka-facts"), excluded.toString());
        Set<String> phrase = urls(search("\"small marsupial\" quokka", true));
        assertEquals(Set.of("http://fed.example/quokka-facts"), phrase);
        assertEquals(Set.of(ISLAND), urls(search("quokka site:two.example", true)));
        // a page of another language is left out; one whose language is unknown (a federated hit) may stay
        for (JsonNode n : search("quokka lang:de", true).get("results")) {
            String lang = n.get("language").asText();
            assertTrue(lang.isEmpty() || lang.equals("de"), n.toString());
        }
    }
}
