package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** /api/blacklist over real HTTP: rules, the test box, import/export, and search hiding what the rules block. */
class BlacklistApiTest extends TarnPeerTest {
    @BeforeEach
    void clear() throws Exception {
        assertEquals(200, peer.send("PUT", "/api/blacklist", "{\"rules\":[]}").statusCode());
    }

    @Test
    void aSearchRuleHidesTheResultAndTheTestBoxNamesTheRule() throws Exception {
        assertTrue(SearchApiTest.urls(peer.search("backup", "count=20")).stream().anyMatch(u -> u.endsWith("/backup.html")));
        HttpResponse<String> put = peer.send("PUT", "/api/blacklist",
                "{\"rules\":[{\"scope\":\"search\",\"host\":\"127\\\\.0\\\\.0\\\\.1\",\"path\":\"tarn/backup\\\\.html\"}]}");
        assertEquals(200, put.statusCode(), put.body());
        JsonNode rules = Json.MAPPER.readTree(peer.get("/api/blacklist").body()).get("rules");
        assertEquals(1, rules.size());
        assertEquals("search", rules.get(0).get("scope").asText());

        List<String> after = SearchApiTest.urls(peer.search("backup", "count=20"));
        assertFalse(after.isEmpty(), "other pages still match");
        assertFalse(after.stream().anyMatch(u -> u.endsWith("/backup.html")), after.toString());
        JsonNode solr = Json.MAPPER.readTree(peer.get("/solr/select?q=*:*&rows=100").body());
        assertEquals(peer.corpus.urls().size() - 1, solr.get("response").get("numFound").asInt());

        JsonNode test = Json.MAPPER.readTree(peer.get("/api/blacklist/test?url="
                + SearchTestPeer.enc(peer.siteBase + "backup.html")).body());
        assertTrue(test.get("blocked").asBoolean());
        assertEquals("tarn/backup\\.html", test.get("scopes").get("search").get("path").asText());
        assertTrue(test.get("scopes").get("crawler").isNull());
        JsonNode other = Json.MAPPER.readTree(peer.get("/api/blacklist/test?url="
                + SearchTestPeer.enc(peer.siteBase + "faq.html")).body());
        assertFalse(other.get("blocked").asBoolean());
    }

    @Test
    void aSearchRuleWrittenWithTheLeadingSlashHidesTheResultToo() throws Exception {
        // "/tarn/.*" used to block nothing: paths were matched only without their leading slash
        HttpResponse<String> put = peer.send("PUT", "/api/blacklist",
                "{\"rules\":[{\"scope\":\"search\",\"host\":\"127.0.0.1\",\"path\":\"/tarn/backup\\\\.html\"}]}");
        assertEquals(200, put.statusCode(), put.body());
        List<String> after = SearchApiTest.urls(peer.search("backup", "count=20"));
        assertFalse(after.isEmpty(), "other pages still match");
        assertFalse(after.stream().anyMatch(u -> u.endsWith("/backup.html")), after.toString());
        JsonNode yacy = Json.MAPPER.readTree(peer.get("/yacysearch.json?query=backup&maximumRecords=20").body());
        yacy.get("channels").get(0).get("items").forEach(i ->
                assertFalse(i.get("link").asText().endsWith("/backup.html"), i.toString()));
        JsonNode test = Json.MAPPER.readTree(peer.get("/api/blacklist/test?url="
                + SearchTestPeer.enc(peer.siteBase + "backup.html")).body());
        assertTrue(test.get("blocked").asBoolean(), test.toString());
        assertEquals("/tarn/backup\\.html", test.get("scopes").get("search").get("path").asText());
    }

    @Test
    void aSharedFileImportsIntoScopesAndExportsBack() throws Exception {
        HttpResponse<String> imp = peer.http.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(peer.base() + "/api/blacklist/import?scopes=search,crawler"))
                .header("Content-Type", "text/plain")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("# list\nspam.test/.*\n*.ads.test\n")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, imp.statusCode(), imp.body());
        assertEquals(4, Json.MAPPER.readTree(imp.body()).get("imported").asInt());
        String exported = peer.get("/api/blacklist/export?scope=crawler").body();
        assertTrue(exported.contains("spam.test/.*\n") && exported.contains("*.ads.test/.*\n"), exported);
        assertTrue(Json.MAPPER.readTree(peer.get("/api/blacklist/test?url=http://www.ads.test/x").body())
                .get("blocked").asBoolean());
    }

    @Test
    void badRulesAreRefusedWithAClearError() throws Exception {
        HttpResponse<String> r = peer.send("PUT", "/api/blacklist",
                "{\"rules\":[{\"scope\":\"search\",\"host\":\"x\",\"path\":\"(\"}]}");
        assertEquals(400, r.statusCode());
        assertTrue(Json.MAPPER.readTree(r.body()).get("error").asText().contains("rule 0"), r.body());
        assertEquals(400, peer.send("PUT", "/api/blacklist", "{\"rules\":[{\"scope\":\"mail\",\"host\":\"x\"}]}")
                .statusCode());
        assertEquals(400, peer.send("PUT", "/api/blacklist", "{\"nope\":1}").statusCode());
        assertEquals(400, peer.get("/api/blacklist/test?url=ftp://x").statusCode());
    }

    @Test
    void crossOriginAdminWritesAreRefused() throws Exception {
        HttpResponse<String> r = peer.http.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(peer.base() + "/api/blacklist")).header("Content-Type", "application/json")
                .header("Origin", "http://evil.example").PUT(java.net.http.HttpRequest.BodyPublishers.ofString(
                        "{\"rules\":[{\"scope\":\"search\",\"host\":\"127\\\\.0\\\\.0\\\\.1\"}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(403, r.statusCode(), r.body());
        assertTrue(Json.MAPPER.readTree(peer.get("/api/blacklist").body()).get("rules").isEmpty());
        HttpResponse<String> same = peer.http.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(peer.base() + "/api/blacklist")).header("Content-Type", "application/json")
                .header("Origin", peer.base()).PUT(java.net.http.HttpRequest.BodyPublishers.ofString(
                        "{\"rules\":[]}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, same.statusCode(), same.body());
    }
}
