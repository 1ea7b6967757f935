package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.crawl.TestSite;

/** The crawler-scope blacklist and a portal's site limit, applied to crawls started over the API. */
class CrawlBlacklistAndPortalTest {
    @TempDir
    Path dir;

    static TestPeers.Reply put(String url, String json) throws Exception {
        return TestPeers.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    @Test
    void theCrawlerSkipsBlacklistedLinksAndRefusesABlacklistedStart() throws Exception {
        try (TestSite site = CrawlApiTest.serve(CrawlApiTest::tarn);
             PeerNode node = CrawlApiTest.start(Files.createDirectories(dir.resolve("c")), true)) {
            assertEquals(200, put(node.baseUrl() + "/api/blacklist", "{\"rules\":[{\"scope\":\"crawler\","
                    + "\"host\":\"127\\\\.0\\\\.0\\\\.1\",\"path\":\"(backup|faq)\\\\.html\"}]}").status());
            TestPeers.Reply refused = CrawlApiTest.post(node.baseUrl() + "/api/crawl", "{\"url\": \""
                    + site.url("/faq.html") + "\"}");
            assertEquals(400, refused.status());
            assertTrue(refused.json().get("error").asText().contains("blacklisted"), refused.json().toString());

            TestPeers.Reply r = CrawlApiTest.post(node.baseUrl() + "/api/crawl", "{\"url\": \"" + site.url("/index.html")
                    + "\", \"minDelayMs\": 0, \"depth\": 5}");
            assertEquals(200, r.status(), r.json().toString());
            JsonNode p = CrawlApiTest.awaitEnd(node, r.json().get("id").asText(), Duration.ofSeconds(30));
            assertEquals("finished", p.get("state").asText(), p.toString());
            List<String> urls = new ArrayList<>();
            node.context().storage().metadata().scanAll(m -> urls.add(m.url()));
            assertTrue(urls.size() > 5, urls.toString());
            assertFalse(urls.stream().anyMatch(u -> u.endsWith("/backup.html") || u.endsWith("/faq.html")), urls.toString());
            assertEquals(0, site.count("/backup.html"), "never fetched");
        }
    }

    @Test
    void aPortalCrawlsOnlyItsSites() throws Exception {
        try (PeerNode node = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("p")), Map.of(
                "peerdex.mode", "portal", "peerdex.portal.sites", List.of("docs.example.org"),
                "peerdex.crawler.allow-loopback", true)))) {
            TestPeers.Reply other = CrawlApiTest.post(node.baseUrl() + "/api/crawl", "{\"url\": \"http://127.0.0.1:9/\"}");
            assertEquals(400, other.status());
            assertTrue(other.json().get("error").asText().contains("portal"), other.json().toString());
            TestPeers.Reply wide = CrawlApiTest.post(node.baseUrl() + "/api/crawl",
                    "{\"url\": \"https://docs.example.org/\", \"range\": \"wide\"}");
            assertEquals(400, wide.status());
        }
    }
}
