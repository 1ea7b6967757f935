package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** Named ranking profiles over real HTTP: save, apply (changing the ranking), list, reset, delete. */
class RankingProfilesTest extends TarnPeerTest {
    static JsonNode json(java.net.http.HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        return Json.MAPPER.readTree(r.body());
    }

    @Test
    void aSavedProfileCanBeAppliedListedAndResetToTheDefaults() throws Exception {
        var before = SearchApiTest.urls(peer.search("backup", "count=10"));
        json(peer.send("PUT", "/api/ranking/profiles/short-urls", "{\"coefficients\":{\"urlLength\":100,\"title\":0,"
                + "\"titleExactness\":0,\"bm25\":0}}"));
        JsonNode list = json(peer.get("/api/ranking/profiles"));
        assertEquals("default", list.get("active").asText());
        assertEquals("short-urls", list.get("profiles").get(0).get("name").asText());
        assertEquals(6.0, list.get("defaults").get("coefficients").get("title").asDouble());

        JsonNode applied = json(peer.send("POST", "/api/ranking/profiles/short-urls/apply", null));
        assertEquals(100.0, applied.get("coefficients").get("urlLength").asDouble());
        assertEquals("short-urls", json(peer.get("/api/ranking")).get("name").asText());
        assertNotEquals(before, SearchApiTest.urls(peer.search("backup", "count=10")));

        assertEquals("default", json(peer.send("POST", "/api/ranking/reset", null)).get("name").asText());
        assertEquals(before, SearchApiTest.urls(peer.search("backup", "count=10")));
        json(peer.send("DELETE", "/api/ranking/profiles/short-urls", null));
        assertEquals(404, peer.send("POST", "/api/ranking/profiles/short-urls/apply", null).statusCode());
        assertEquals(400, peer.send("PUT", "/api/ranking/profiles/x", "{\"coefficients\":{\"nope\":1}}").statusCode());
    }
}
