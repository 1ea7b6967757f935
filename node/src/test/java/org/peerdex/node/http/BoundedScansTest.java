package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.node.PeerNode;
import org.peerdex.node.TestPeers;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.meta.UrlMetadataStore;

/**
 * The metadata scans behind {@code /suggest.json} and {@code /solr/select?q=*:*} stop reading at their bounds
 * ({@code peerdex.scan-limits.*}, set small here) on a real peer over real HTTP: the records decoded are counted by
 * the store itself.
 */
class BoundedScansTest {
    static final int DOCUMENTS = 300;
    static final int SUGGESTION_TITLES = 40;
    static final int SOLR_MATCH_ALL = 60;

    @TempDir
    static Path dir;
    static PeerNode node;
    static UrlMetadataStore metadata;

    @BeforeAll
    static void start() {
        node = PeerNode.start(TestPeers.config(dir, Map.of("peerdex.scan-limits.suggestion-titles", SUGGESTION_TITLES,
                "peerdex.scan-limits.solr-match-all", SOLR_MATCH_ALL,
                // no DHT: its repair scans would read metadata too and blur the count
                "peerdex.mode", "portal")));
        metadata = node.context().storage().metadata();
        for (int i = 0; i < DOCUMENTS; i++) {
            String url = "http://scan" + (i % 7) + ".test/page" + i + ".html";
            metadata.put(new UrlMetadata(UrlHash.of(url), url, "word" + i + " alpha", "", "", List.of(), "en", "h",
                    "text/html", 1000, 0, 1, 0, 0, 10, "", "", List.of()));
        }
    }

    @AfterAll
    static void stop() {
        if (node != null) node.close();
    }

    @Test
    void suggestionsReadAtMostTheirBoundAndConcurrentRequestsShareOneScan() throws Exception {
        long before = metadata.recordsScanned();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<TestPeers.Reply>> replies = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                replies.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return TestPeers.get(node.baseUrl() + "/suggest.json?query=word");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool));
            }
            for (CompletableFuture<TestPeers.Reply> f : replies) {
                TestPeers.Reply r = f.get();
                assertEquals(200, r.status(), r.json().toString());
                assertEquals("word", r.json().get(0).asText());
                assertTrue(r.json().get(1).size() > 0, r.json().toString());
            }
        } finally {
            pool.shutdownNow();
        }
        long decoded = metadata.recordsScanned() - before;
        System.out.printf("suggest.json: %d records decoded for 8 concurrent requests (bound %d, index %d)%n",
                decoded, SUGGESTION_TITLES, DOCUMENTS);
        assertTrue(decoded > 0 && decoded <= SUGGESTION_TITLES, decoded + " records decoded");
    }

    @Test
    void solrMatchAllReadsAtMostItsBound() throws Exception {
        long before = metadata.recordsScanned();
        TestPeers.Reply r = TestPeers.get(node.baseUrl() + "/solr/select?q=*:*&rows=5");
        long decoded = metadata.recordsScanned() - before;
        System.out.printf("solr q=*:*: %d records decoded (bound %d, index %d), numFound %s%n", decoded,
                SOLR_MATCH_ALL, DOCUMENTS, r.json().path("response").path("numFound"));
        assertEquals(200, r.status(), r.json().toString());
        assertEquals(5, r.json().get("response").get("docs").size());
        assertEquals(SOLR_MATCH_ALL, r.json().get("response").get("numFound").asInt());
        assertEquals(SOLR_MATCH_ALL, decoded);
    }
}
