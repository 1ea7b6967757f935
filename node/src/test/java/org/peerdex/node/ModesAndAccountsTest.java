package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.node.accounts.Accounts;

/** Modes and accounts over real HTTP: who gets 401, who gets 403, and what a portal answers. */
class ModesAndAccountsTest {
    @TempDir
    Path dir;

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    static HttpResponse<String> call(String method, String url, String auth, String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (auth != null) b.header("Authorization", auth);
        return TestPeers.HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anIntranetPeerWithAccountsAnswers401WithoutAndForbidsSearchersAdminWork() throws Exception {
        try (PeerNode n = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("i")), Map.of(
                "peerdex.mode", "intranet", "peerdex.network", "acme-intranet",
                "peerdex.accounts.required-for-search", true,
                "peerdex.accounts.loopback-admin", false,
                "peerdex.admin.password-hash", Passwords.hash("root-secret"))))) {
            String base = n.baseUrl();
            String root = basic("admin", "root-secret");
            HttpResponse<String> anonymous = call("GET", base + "/api/search?q=peer", null, null);
            assertEquals(401, anonymous.statusCode(), anonymous.body());
            assertTrue(anonymous.headers().firstValue("www-authenticate").orElse("").startsWith("Basic"));
            assertEquals(401, call("GET", base + "/yacysearch.json?query=peer", null, null).statusCode());
            assertEquals(401, call("GET", base + "/solr/select?q=peer", null, null).statusCode());
            assertEquals(200, call("GET", base + "/api/status", null, null).statusCode(), "status stays public");
            assertEquals(200, call("GET", base + "/", null, null).statusCode(), "the UI page loads, its calls ask");
            assertEquals(401, call("PUT", base + "/api/blacklist", null, "{\"rules\":[]}").statusCode(),
                    "loopback alone is not admin here");

            assertEquals(200, call("PUT", base + "/api/accounts/alice", root,
                    "{\"password\":\"alice-pass\",\"role\":\"searcher\"}").statusCode());
            assertEquals(200, call("PUT", base + "/api/accounts/bob", root,
                    "{\"password\":\"bob-password\",\"role\":\"admin\"}").statusCode());
            assertEquals(400, call("PUT", base + "/api/accounts/carol", root,
                    "{\"password\":\"short\",\"role\":\"searcher\"}").statusCode());
            assertEquals(400, call("PUT", base + "/api/accounts/carol", root,
                    "{\"password\":\"long-enough\",\"role\":\"king\"}").statusCode());

            String alice = basic("alice", "alice-pass");
            assertEquals(200, call("GET", base + "/api/search?q=peer", alice, null).statusCode());
            assertEquals(200, call("GET", base + "/solr/select?q=peer", alice, null).statusCode());
            assertEquals(401, call("GET", base + "/api/search?q=peer", basic("alice", "wrong-pass"), null).statusCode());
            HttpResponse<String> forbidden = call("PUT", base + "/api/blacklist", alice, "{\"rules\":[]}");
            assertEquals(403, forbidden.statusCode(), forbidden.body());
            assertTrue(forbidden.body().contains("not an admin"), forbidden.body());
            assertEquals(403, call("GET", base + "/api/accounts", alice, null).statusCode());

            String bob = basic("bob", "bob-password");
            assertEquals(200, call("PUT", base + "/api/blacklist", bob, "{\"rules\":[]}").statusCode());
            assertEquals(200, call("GET", base + "/api/search?q=peer", bob, null).statusCode());
            HttpResponse<String> list = call("GET", base + "/api/accounts", bob, null);
            assertTrue(list.body().contains("\"alice\"") && !list.body().contains("pbkdf2"), list.body());
            assertEquals(200, call("DELETE", base + "/api/accounts/alice", bob, null).statusCode());
            assertEquals(401, call("GET", base + "/api/search?q=peer", alice, null).statusCode());
        }
    }

    @Test
    void accountsAreStoredHashedAndSurviveARestart() throws Exception {
        Path data = Files.createDirectories(dir.resolve("s"));
        try (PeerNode n = PeerNode.start(TestPeers.config(data))) {
            assertEquals(200, call("PUT", n.baseUrl() + "/api/accounts/dana", null,
                    "{\"password\":\"dana-password\",\"role\":\"admin\"}").statusCode(), "loopback is admin by default");
        }
        try (PeerNode n = PeerNode.start(TestPeers.config(data))) {
            Accounts accounts = new Accounts(n.context().storage().store());
            assertEquals("admin", accounts.get("dana").orElseThrow().role().key());
            assertTrue(accounts.get("dana").orElseThrow().passwordHash().startsWith("pbkdf2$"));
            assertFalse(accounts.get("dana").orElseThrow().passwordHash().contains("dana-password"));
            assertEquals(200, call("GET", n.baseUrl() + "/api/search?q=peer", null, null).statusCode(),
                    "p2p mode: search needs no account");
        }
    }

    @Test
    void aPortalRunsNoDhtAndAnswersGlobalSearchesFromItsOwnIndex() throws Exception {
        try (PeerNode n = PeerNode.start(TestPeers.config(Files.createDirectories(dir.resolve("p")), Map.of(
                "peerdex.mode", "portal", "peerdex.portal.sites", List.of("docs.example.org"))))) {
            String base = n.baseUrl();
            assertEquals("portal", TestPeers.get(base + "/api/status").json().get("mode").asText());
            assertEquals(200, call("POST", base + "/api/index/manual", null, null).statusCode());
            var r = TestPeers.get(base + "/api/search?q=peer&resource=global").json();
            assertTrue(r.get("results").size() > 0, r.toString());
            assertEquals(1, r.get("network").get("peersAsked").asInt(), r.get("network").toString());
            assertEquals(0, TestPeers.get(base + "/api/peers").json().get("peers").size());
            assertEquals(null, n.services().network().dht());
            ModePolicy policy = ModePolicy.of(n.context().config());
            assertTrue(policy.crawlAllowed("https://docs.example.org/a.html"));
            assertTrue(policy.crawlAllowed("https://www.docs.example.org/a.html"));
            assertFalse(policy.crawlAllowed("https://example.org/a.html"));
            assertEquals(200, call("GET", base + "/search.html", null, null).statusCode(), "the embeddable widget");
        }
    }
}
