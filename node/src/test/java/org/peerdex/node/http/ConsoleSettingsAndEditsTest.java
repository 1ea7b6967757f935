package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.node.PeerNode;

/**
 * The console's settings, URL metadata edits, unsaved ranking previews and status figures over real HTTP against
 * a real peer with the Tarn corpus.
 */
class ConsoleSettingsAndEditsTest extends TarnPeerTest {
    static JsonNode ok(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        return Json.MAPPER.readTree(r.body());
    }

    static void assertBadRequest(HttpResponse<String> r, String mentions) throws Exception {
        assertEquals(400, r.statusCode(), r.body());
        String error = Json.MAPPER.readTree(r.body()).get("error").asText();
        assertTrue(error.contains(mentions), "'" + error + "' does not mention " + mentions);
    }

    static HttpResponse<String> send(String base, String method, String path, String json) throws Exception {
        return peer.http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    static PeerNode peerAt(Path data) {
        return ConsoleBrowserTest.peerAt(data, "peerdex.crawler.allow-loopback = on\npeerdex.indexer.flush-interval = 20ms\n");
    }

    @Test
    void settingsAreValidatedPersistedInTheDataDirAndAppliedToCrawlsSuggestionsAndTheNextStart(@TempDir Path data)
            throws Exception {
        try (PeerNode node = peerAt(data)) {
            String base = node.baseUrl();
            JsonNode s = ok(send(base, "GET", "/api/settings", null));
            assertEquals(3, s.get("crawl").get("depth").asInt());
            assertTrue(s.get("contentTypes").toString().contains("text/html"), s.toString());
            assertEquals(0, s.get("restartRequired").size());

            assertBadRequest(send(base, "PUT", "/api/settings", "{\"crawl\":{\"depth\":-1}}"), "crawl.depth");
            assertBadRequest(send(base, "PUT", "/api/settings", "{\"nope\":1}"), "unknown setting 'nope'");
            assertBadRequest(send(base, "PUT", "/api/settings", "{\"crawl\":{\"speed\":1}}"), "crawl.speed");
            assertBadRequest(send(base, "PUT", "/api/settings", "{\"contentTypes\":[\"html\"]}"), "media type");
            assertBadRequest(send(base, "PUT", "/api/settings", "{\"memory\":{\"cacheBytes\":\"big\"}}"), "memory.cacheBytes");
            assertBadRequest(send(base, "PUT", "/api/settings", "{\"memory\":{\"writeBufferBytes\":10}}"), "memory.writeBufferBytes");
            assertEquals(400, send(base, "PUT", "/api/settings", "[1,2]").statusCode());
            assertFalse(Files.exists(data.resolve("settings.json")), "nothing saved by refused requests");

            // the word list completes at once; the index's title words stay
            assertFalse(send(base, "GET", "/suggest.json?query=zyzz", null).body().contains("zyzzyva"));
            JsonNode saved = ok(send(base, "PUT", "/api/settings", "{\"crawl\":{\"depth\":0,\"maxPages\":5},"
                    + "\"contentTypes\":[\"text/html\",\"text/*\"],\"suggestions\":{\"words\":[\"Zyzzyva\",\"zyzzyvas\"]},"
                    + "\"memory\":{\"writeBufferBytes\":" + (16 << 20) + "}}"));
            assertEquals(0, saved.get("crawl").get("depth").asInt());
            assertEquals(List.of("memory.writeBufferBytes"), texts(saved.get("restartRequired")));
            assertTrue(send(base, "GET", "/suggest.json?query=zyzz", null).body().contains("zyzzyva"));
            assertTrue(Files.readString(data.resolve("settings.json")).contains("16777216"));

            // a crawl that names no depth, page limit or content types gets the saved defaults
            JsonNode started = ok(send(base, "POST", "/api/crawl", "{\"url\":\"" + peer.siteBase + "index.html\","
                    + "\"minDelayMs\":0}"));
            String id = started.get("id").asText();
            JsonNode progress = awaitFinished(base, id);
            assertEquals(0, progress.get("profile").get("depth").asInt());
            assertEquals(5, progress.get("profile").get("maxPages").asInt());
            assertEquals(List.of("text/html", "text/*"), texts(progress.get("profile").get("contentTypes")));
            assertEquals(1, progress.get("fetched").asInt(), "depth 0 fetches the start page only: " + progress);
            // what the profile says wins over the defaults
            JsonNode deep = ok(send(base, "POST", "/api/crawl", "{\"url\":\"" + peer.siteBase + "faq.html\","
                    + "\"depth\":2,\"minDelayMs\":0}"));
            assertEquals(2, awaitFinished(base, deep.get("id").asText()).get("profile").get("depth").asInt());
        }
        // the next start reads the file: the memory bound is in use, nothing waits for a restart any more
        try (PeerNode again = peerAt(data)) {
            JsonNode s = ok(send(again.baseUrl(), "GET", "/api/settings", null));
            assertEquals(0, s.get("crawl").get("depth").asInt());
            assertEquals(16 << 20, s.get("running").get("writeBufferBytes").asInt());
            assertEquals(0, s.get("restartRequired").size(), s.toString());
            assertEquals(16L << 20, again.context().config().writeBufferBytes());
        }
    }

    static JsonNode awaitFinished(String base, String id) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            JsonNode p = ok(send(base, "GET", "/api/crawl/" + id, null));
            if (!p.get("state").asText().equals("running")) return p;
            if (System.nanoTime() > deadline) throw new AssertionError("crawl still running: " + p);
            java.util.concurrent.TimeUnit.MILLISECONDS.sleep(100); // polling interval of a deadline-bounded wait
        }
    }

    static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void anEditedTitleIsWhatTheSearchResultShows() throws Exception {
        JsonNode first = peer.search("backup", null).get("results").get(0);
        String hash = first.get("urlHash").asText();
        JsonNode edited = ok(peer.send("PUT", "/api/index/url/" + hash,
                "{\"title\":\"Edited in the console\",\"description\":\"hand-written\",\"language\":\"de\",\"keywords\":[\"ops\"]}"));
        assertEquals("Edited in the console", edited.get("metadata").get("title").asText());
        JsonNode again = null;
        for (JsonNode r : peer.search("backup", null).get("results")) if (r.get("urlHash").asText().equals(hash)) again = r;
        assertTrue(again != null, "the edited URL is still found");
        assertEquals("Edited in the console", again.get("title").asText());
        assertEquals("de", again.get("language").asText());
        JsonNode url = ok(peer.get("/api/index/url/" + hash));
        assertEquals("hand-written", url.get("metadata").get("description").asText());
        JsonNode history = url.get("history");
        assertEquals("edited", history.get(history.size() - 1).get("event").asText());

        assertBadRequest(peer.send("PUT", "/api/index/url/" + hash, "{\"url\":\"http://elsewhere/\"}"), "'url' cannot be edited");
        assertBadRequest(peer.send("PUT", "/api/index/url/" + hash, "{\"language\":\"english\"}"), "language");
        assertBadRequest(peer.send("PUT", "/api/index/url/" + hash, "{\"title\":7}"), "title must be a string");
        assertBadRequest(peer.send("PUT", "/api/index/url/" + hash, "{}"), "nothing to edit");
        assertBadRequest(peer.send("PUT", "/api/index/url/short", "{\"title\":\"x\"}"), "URL hash");
        assertEquals(404, peer.send("PUT", "/api/index/url/AAAAAAAAAAAA", "{\"title\":\"x\"}").statusCode());
    }

    @Test
    void aRankingPreviewRanksWithUnsavedCoefficientsAndExplainsEachFactor() throws Exception {
        String active = peer.get("/api/ranking").body();
        // "backup": four pages say it in their own text
        JsonNode plain = ok(peer.send("POST", "/api/ranking/preview", "{\"q\":\"backup\"}"));
        JsonNode shortUrls = ok(peer.send("POST", "/api/ranking/preview", "{\"q\":\"backup\",\"profile\":"
                + "{\"coefficients\":{\"urlLength\":100,\"title\":0,\"titleExactness\":0,\"bm25\":0}}}"));
        List<String> before = urls(plain);
        List<String> after = urls(shortUrls);
        assertTrue(before.size() >= 4, plain.toString());
        assertEquals(before.size(), after.size());
        assertNotEquals(before, after);
        assertEquals(SearchApiTest.urls(peer.search("backup", "nav=none")), before,
                "without a profile the preview ranks like the active profile");
        JsonNode top = shortUrls.get("results").get(0);
        JsonNode factor = top.get("explain").get("factors").get("urlLength");
        assertEquals(100.0, factor.get("coefficient").asDouble());
        assertEquals(top.get("score").asDouble(), top.get("explain").get("score").asDouble(), 1e-3);
        assertEquals(active, peer.get("/api/ranking").body(), "the active profile is untouched");

        assertBadRequest(peer.send("POST", "/api/ranking/preview", "{\"profile\":{}}"), "'q'");
        assertBadRequest(peer.send("POST", "/api/ranking/preview", "{\"q\":\"x\",\"profile\":{\"coefficients\":{\"nope\":1}}}"), "nope");
        assertBadRequest(peer.send("POST", "/api/ranking/preview", "{\"q\":\"x\",\"count\":1000}"), "count");
    }

    static List<String> urls(JsonNode answer) {
        List<String> out = new ArrayList<>();
        answer.get("results").forEach(r -> out.add(r.get("url").asText()));
        return out;
    }

    @Test
    void theStatusCountsDiskQueriesAndTheReplicationBacklog() throws Exception {
        for (int i = 0; i < 3; i++) peer.search("replication", null);
        JsonNode s = ok(peer.get("/api/status"));
        assertTrue(s.get("diskUsedBytes").asLong() > 10_000, s.toString());
        assertTrue(s.get("queriesPerMinute").asDouble() >= 3, s.toString());
        assertTrue(s.get("dht").get("replication").has("outboxPostings"), s.toString());
        assertTrue(s.get("heapUsedBytes").asLong() > 0);
    }
}
