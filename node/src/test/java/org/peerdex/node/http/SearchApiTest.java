package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** /api/search over real HTTP against a real peer with the Tarn corpus indexed. */
class SearchApiTest extends TarnPeerTest {
    static List<String> urls(JsonNode response) {
        List<String> out = new ArrayList<>();
        response.get("results").forEach(r -> out.add(r.get("url").asText()));
        return out;
    }

    @Test
    void searchAnswersInTheDesignedJsonShape() throws Exception {
        JsonNode r = peer.search("backup", null);
        assertEquals("backup", r.get("query").asText());
        assertTrue(r.get("total").asLong() >= 2, r.toString());
        JsonNode first = r.get("results").get(0);
        for (String f : List.of("url", "urlHash", "title", "snippet", "score", "host", "filetype", "language", "date")) {
            assertTrue(first.has(f), "result lacks " + f + ": " + first);
        }
        assertTrue(first.get("url").asText().endsWith("/backup.html"), r.toString());
        assertTrue(first.get("snippet").asText().toLowerCase().contains("backup"), first.toString());
        assertEquals("2026-01-20", first.get("date").asText());
        assertTrue(r.get("navigators").has("host"));
        assertTrue(r.get("timing").has("total"));
        assertEquals(1, r.get("network").get("peersAnswered").asInt());
    }

    @Test
    void identifierQueriesFindThePageWholeAndInParts() throws Exception {
        assertTrue(urls(peer.search("tarn_dump", null)).get(0).endsWith("/backup.html"));
        assertTrue(urls(peer.search("min_wal_size", null)).stream().anyMatch(u -> u.endsWith("/configuration.html")));
        JsonNode parts = peer.search("wal sync method", null);
        assertEquals("wal sync method", parts.get("query").asText());
        assertTrue(urls(parts).get(0).endsWith("/configuration.html"));
    }

    @Test
    void exclusionsPhrasesAndFiltersNarrowTheResults() throws Exception {
        List<String> all = urls(peer.search("replica", "count=20"));
        List<String> without = urls(peer.search("replica -lag", "count=20"));
        assertTrue(all.stream().anyMatch(u -> u.endsWith("/monitoring.html")), all.toString());
        assertFalse(without.stream().anyMatch(u -> u.endsWith("/monitoring.html")), without.toString());
        assertTrue(without.size() < all.size());

        List<String> phrase = urls(peer.search("\"write-ahead log\"", "count=20"));
        assertFalse(phrase.isEmpty());
        List<String> wrongOrder = urls(peer.search("\"log write-ahead\"", "count=20"));
        assertTrue(wrongOrder.isEmpty(), wrongOrder.toString());

        assertTrue(urls(peer.search("backup site:example.org", null)).isEmpty());
        assertFalse(urls(peer.search("backup site:127.0.0.1", null)).isEmpty());
        assertTrue(urls(peer.search("backup filetype:pdf", null)).isEmpty());
        assertTrue(urls(peer.search("backup inurl:replication", null)).stream().allMatch(u -> u.contains("replication")));
        assertTrue(urls(peer.search("backup lang:de", null)).isEmpty());
        assertFalse(urls(peer.search("backup /language/en", null)).isEmpty());
    }

    @Test
    void malformedQueriesAreAnsweredWith400AndAMessage() throws Exception {
        for (String q : List.of("-only -exclusions", "x".repeat(600))) {
            HttpResponse<String> r = peer.get("/api/search?q=" + SearchTestPeer.enc(q));
            assertEquals(400, r.statusCode(), q + " -> " + r.body());
            assertTrue(Json.MAPPER.readTree(r.body()).get("error").asText().length() > 5);
        }
        assertEquals(400, peer.get("/api/search").statusCode());
        assertEquals(400, peer.get("/api/search?q=backup&count=abc").statusCode());
        assertEquals(400, peer.get("/api/search?q=backup&verify=maybe").statusCode());
    }

    @Test
    void explainBreaksTheScoreDownIntoFactorsThatSumToIt() throws Exception {
        JsonNode r = peer.search("compaction threads", "explain=true");
        assertFalse(r.get("results").isEmpty());
        for (JsonNode res : r.get("results")) {
            JsonNode ex = res.get("explain");
            double sum = 0;
            var it = ex.get("factors").fields();
            int n = 0;
            while (it.hasNext()) {
                var f = it.next().getValue();
                assertEquals(f.get("coefficient").asDouble() * f.get("normalized").asDouble(),
                        f.get("contribution").asDouble(), 1e-9);
                sum += f.get("contribution").asDouble();
                n++;
            }
            assertTrue(n >= 20, "expected every factor, got " + n);
            assertEquals(ex.get("score").asDouble(), sum, 1e-6);
            assertEquals(res.get("score").asDouble(), sum, 1e-3);
        }
        assertTrue(r.get("results").get(0).get("explain").get("factors").has("bm25"));
    }

    @Test
    void promotingAResultMovesItUpInLaterSearches() throws Exception {
        JsonNode before = peer.search("replication", "count=20");
        List<String> order = urls(before);
        assertTrue(order.size() >= 3, order.toString());
        String last = order.get(order.size() - 1);
        String hash = before.get("results").get(order.size() - 1).get("urlHash").asText();
        for (int i = 0; i < 3; i++) {
            assertEquals(200, peer.send("POST", "/api/feedback",
                    "{\"urlHash\":\"" + hash + "\",\"action\":\"promote\"}").statusCode());
        }
        List<String> after = urls(peer.search("replication", "count=20"));
        assertTrue(after.indexOf(last) < order.indexOf(last), "before " + order + " after " + after);
        assertTrue(after.indexOf(last) <= 1, "three promotes lift it to the top two: " + after);
        // demote it again: it falls back
        peer.send("POST", "/api/feedback", "{\"urlHash\":\"" + hash + "\",\"action\":\"clear\"}");
        peer.send("POST", "/api/feedback", "{\"urlHash\":\"" + hash + "\",\"action\":\"demote\"}");
        List<String> demoted = urls(peer.search("replication", "count=20"));
        assertEquals(last, demoted.get(demoted.size() - 1));
        peer.send("POST", "/api/feedback", "{\"urlHash\":\"" + hash + "\",\"action\":\"clear\"}");
        assertEquals(400, peer.send("POST", "/api/feedback", "{\"urlHash\":\"" + hash + "\",\"action\":\"love\"}")
                .statusCode());
    }

    @Test
    void rankingProfileCanBeReadAndChanged() throws Exception {
        JsonNode p = Json.MAPPER.readTree(peer.get("/api/ranking").body());
        assertTrue(p.get("coefficients").has("bm25"));
        assertTrue(p.get("factors").size() >= 25);
        HttpResponse<String> bad = peer.send("PUT", "/api/ranking", "{\"coefficients\":{\"nosuch\":1}}");
        assertEquals(400, bad.statusCode());
        double old = p.get("coefficients").get("date").asDouble();
        HttpResponse<String> ok = peer.send("PUT", "/api/ranking", "{\"coefficients\":{\"date\":2.5}}");
        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals(2.5, Json.MAPPER.readTree(peer.get("/api/ranking").body()).get("coefficients").get("date")
                .asDouble());
        peer.send("PUT", "/api/ranking", "{\"coefficients\":{\"date\":" + old + "}}");
    }

    @Test
    void navigatorsCountHostsFiletypesDatesAndTopics() throws Exception {
        JsonNode nav = peer.search("tarn", "count=20").get("navigators");
        assertEquals("127.0.0.1", nav.get("host").get(0).get("value").asText());
        assertEquals("site:127.0.0.1", nav.get("host").get(0).get("modifier").asText());
        assertEquals("html", nav.get("filetype").get(0).get("value").asText());
        assertEquals("en", nav.get("language").get(0).get("value").asText());
        assertTrue(nav.get("date").size() >= 2, nav.toString());
        assertFalse(nav.get("topics").isEmpty());
        nav.get("topics").forEach(t -> assertFalse(t.get("value").asText().equals("tarn")));
    }

    @Test
    void verifyRefetchesThePageAndCacheOnlyUsesStoredText() throws Exception {
        JsonNode v = peer.search("restore", "verify=true");
        assertFalse(v.get("results").isEmpty());
        assertTrue(v.get("results").get(0).get("snippet").asText().toLowerCase().contains("restore"));
        for (JsonNode x : v.get("results")) assertEquals("verified", x.get("verification").asText());
        JsonNode c = peer.search("restore", "verify=cacheonly");
        assertEquals(urls(v), urls(c));
    }

    @Test
    void indexBrowserShowsPostingsAndUrlMetadataWithHistory() throws Exception {
        JsonNode w = Json.MAPPER.readTree(peer.get("/api/index/word/compaction").body());
        assertTrue(w.get("count").asInt() >= 3);
        JsonNode first = w.get("postings").get(0);
        String hash = first.get("urlHash").asText();
        JsonNode byHash = Json.MAPPER.readTree(peer.get("/api/index/word/" + w.get("wordHash").asText()).body());
        assertEquals(w.get("count").asInt(), byHash.get("count").asInt());
        JsonNode u = Json.MAPPER.readTree(peer.get("/api/index/url/" + hash).body());
        assertEquals(hash, u.get("metadata").get("urlHash").asText());
        assertEquals("indexed", u.get("history").get(0).get("event").asText());
        assertEquals(404, peer.get("/api/index/url/AAAAAAAAAAAA").statusCode());
        assertEquals(400, peer.get("/api/index/url/short").statusCode());
    }

    @Test
    void deletingAUrlRemovesItFromSearch() throws Exception {
        JsonNode r = peer.search("encryption", null);
        String hash = r.get("results").get(0).get("urlHash").asText();
        assertEquals(200, peer.send("DELETE", "/api/index/url/" + hash, null).statusCode());
        assertTrue(urls(peer.search("encryption", null)).isEmpty());
        JsonNode u = Json.MAPPER.readTree(peer.get("/api/index/url/" + hash).body());
        assertEquals("deleted", u.get("history").get(u.get("history").size() - 1).get("event").asText());
    }
}
