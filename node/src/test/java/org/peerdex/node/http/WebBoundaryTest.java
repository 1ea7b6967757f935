package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.peerdex.node.Passwords;
import org.peerdex.node.PeerNode;
import org.peerdex.node.TestPeers;

/**
 * The web boundary over real HTTP on 127.0.0.1, with raw sockets so that Host, Origin and the client's own address
 * (127.0.0.2 plays a reverse proxy on this machine) are the test's to choose: a Host the peer does not answer to,
 * a DNS-rebinding Origin, framing, the security headers on every page and answer, a password that loopback must
 * give too, and a proxied client that is neither admin nor exempt from the search rate limit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebBoundaryTest {
    private Path dir;
    /** defaults: loopback only, no password */
    private PeerNode plain;
    /** an admin password, 127.0.0.2 a trusted proxy, a small search burst */
    private PeerNode proxied;
    /** 127.0.0.2 a trusted proxy, no admin password */
    private PeerNode noPassword;

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("peerdex-web-boundary");
        plain = PeerNode.start(TestPeers.config(dir.resolve("plain"), Map.of("peerdex.mode", "portal")));
        proxied = PeerNode.start(TestPeers.config(dir.resolve("proxied"), Map.of(
                "peerdex.mode", "portal",
                "peerdex.admin.password-hash", Passwords.hash("s3cret-admin"),
                "peerdex.http.trusted-proxies", List.of("127.0.0.2"),
                "peerdex.http.search-rate-limit.per-second", 0.01,
                "peerdex.http.search-rate-limit.burst", 3)));
        noPassword = PeerNode.start(TestPeers.config(dir.resolve("nopw"), Map.of(
                "peerdex.mode", "portal",
                "peerdex.http.trusted-proxies", List.of("127.0.0.2/32"))));
    }

    @AfterAll
    void stop() throws Exception {
        for (PeerNode n : new PeerNode[] {plain, proxied, noPassword}) if (n != null) n.close();
    }

    record Reply(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.getOrDefault(name.toLowerCase(Locale.ROOT), "");
        }
    }

    static Reply exchange(String from, int port, String method, String target, String... headers) throws IOException {
        String body = method.equals("PUT") || method.equals("POST") ? "{}" : "";
        StringBuilder b = new StringBuilder(method + " " + target + " HTTP/1.1\r\nConnection: close\r\n");
        boolean host = false;
        for (String h : headers) {
            if (h.toLowerCase(Locale.ROOT).startsWith("host:")) host = true;
            b.append(h).append("\r\n");
        }
        if (!host) b.append("Host: 127.0.0.1:").append(port).append("\r\n");
        if (!body.isEmpty()) b.append("Content-Type: application/json\r\nContent-Length: ").append(body.length()).append("\r\n");
        b.append("\r\n").append(body);
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(15_000);
            s.getOutputStream().write(b.toString().getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            return parse(s.getInputStream().readAllBytes());
        }
    }

    static Reply get(int port, String target, String... headers) throws IOException {
        return exchange("127.0.0.1", port, "GET", target, headers);
    }

    static Reply parse(byte[] raw) {
        String all = new String(raw, StandardCharsets.UTF_8);
        int end = all.indexOf("\r\n\r\n");
        String head = end < 0 ? all : all.substring(0, end);
        String[] lines = head.split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> h = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) h.merge(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).trim(), (a, x) -> a + ", " + x);
        }
        return new Reply(status, h, end < 0 ? "" : all.substring(end + 4));
    }

    static String basic(String user, String password) {
        return "Authorization: Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aRequestForAnotherHostNameIsRefused() throws Exception {
        int port = plain.httpPort();
        assertEquals(200, get(port, "/api/status").status());
        assertEquals(200, get(port, "/api/status", "Host: localhost:" + port).status());
        assertEquals(200, get(port, "/api/status", "Host: [::1]:" + port).status());
        for (String host : List.of("evil.example:" + port, "evil.example", "localhost.evil.example:" + port,
                "127.0.0.1.nip.io:" + port, "localhost:" + (port == 65535 ? 1 : port + 1))) {
            Reply r = get(port, "/api/status", "Host: " + host);
            System.out.println("Host: " + host + " -> " + r.status() + " " + r.body());
            assertEquals(421, r.status(), host + ": " + r.body());
            assertTrue(r.body().contains("\"error\""), r.body());
            assertTrue(r.header("content-security-policy").contains("frame-ancestors 'none'"), "headers on the refusal too");
        }
        Reply admin = exchange("127.0.0.1", port, "PUT", "/api/ranking", "Host: evil.example:" + port);
        assertEquals(421, admin.status(), admin.body());
    }

    @Test
    void aDnsRebindingOriginIsRefused() throws Exception {
        int port = plain.httpPort();
        // the rebinding shape: a hostile page's name resolved to 127.0.0.1, so its Host and Origin are that name
        Reply rebound = exchange("127.0.0.1", port, "PUT", "/api/ranking", "Host: rebind.evil.example:" + port,
                "Origin: http://rebind.evil.example:" + port);
        System.out.println("rebinding Host+Origin -> " + rebound.status() + " " + rebound.body());
        assertNotEquals(200, rebound.status(), rebound.body());
        // the Origin alone (a proxy that rewrote Host): checked against the peer's names, not against Host
        Reply origin = exchange("127.0.0.1", port, "PUT", "/api/ranking", "Origin: http://rebind.evil.example:" + port);
        System.out.println("rebinding Origin -> " + origin.status() + " " + origin.body());
        assertEquals(403, origin.status(), origin.body());
        Reply feedback = exchange("127.0.0.1", port, "POST", "/api/feedback", "Origin: http://evil.example");
        assertEquals(403, feedback.status(), "a cross-origin write to a non-admin route: " + feedback.body());
        // the console itself, under either default name
        assertEquals(200, exchange("127.0.0.1", port, "PUT", "/api/ranking", "Origin: http://127.0.0.1:" + port).status());
        assertEquals(200, exchange("127.0.0.1", port, "PUT", "/api/ranking", "Host: localhost:" + port,
                "Origin: http://localhost:" + port).status());
    }

    @Test
    void pagesCannotBeFramedExceptTheWidget() throws Exception {
        int port = plain.httpPort();
        for (String page : List.of("/", "/admin/", "/admin/federation.html", "/import.html", "/docs/")) {
            Reply r = get(port, page);
            assertEquals(200, r.status(), page);
            assertEquals("DENY", r.header("x-frame-options"), page);
            assertTrue(r.header("content-security-policy").contains("frame-ancestors 'none'"), page);
        }
        Reply widget = get(port, "/search.html");
        assertEquals(200, widget.status());
        assertEquals("", widget.header("x-frame-options"), "the embeddable widget may be framed");
        assertTrue(widget.header("content-security-policy").contains("frame-ancestors *"), widget.headers().toString());
    }

    static final List<String> PAGES = List.of("/", "/admin/", "/admin/federation.html", "/import.html", "/search.html",
            "/docs/", "/app.js", "/dom.js", "/style.css", "/admin/admin.js", "/api/status", "/api/search?q=peer&resource=local",
            "/api/search/stream?q=peer&resource=local", "/yacysearch.json?query=peer", "/yacysearch.rss?query=peer",
            "/solr/select?q=peer", "/suggest.json?query=pe", "/opensearchdescription.xml", "/api/peers",
            "/api/no-such-route", "/api/search", "/api/crawl");

    @Test
    void everyPageAndAnswerCarriesTheContentSecurityPolicy() throws Exception {
        int port = plain.httpPort();
        List<String> missing = new ArrayList<>();
        for (String page : PAGES) {
            Reply r = get(port, page);
            String csp = r.header("content-security-policy");
            boolean ok = csp.contains("script-src 'self'") && csp.contains("object-src 'none'")
                    && csp.contains("base-uri 'none'") && csp.contains("frame-ancestors")
                    && !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval")
                    && r.header("x-content-type-options").equals("nosniff")
                    && r.header("referrer-policy").equals("same-origin");
            if (!ok) missing.add(page + " (" + r.status() + ": " + r.headers() + ")");
        }
        System.out.println("security headers checked on " + PAGES.size() + " paths; missing on " + missing.size());
        assertEquals(List.of(), missing);
    }

    /**
     * Requests too malformed to reach the routes (invalid percent-encoding, an oversized URI) are answered by the
     * server's parsing error handler, outside the routes and their boundary: those answers carry the headers too.
     */
    @Test
    void answersToMalformedRequestsCarryTheSecurityHeaders() throws Exception {
        int port = plain.httpPort();
        for (String target : List.of("/api/%zz/search", "/api/search?q=" + "a".repeat(20_000))) {
            Reply r = get(port, target);
            assertTrue(r.status() == 400 || r.status() == 414 || r.status() == 431, r.status() + " " + r.body());
            assertTrue(r.header("content-security-policy").contains("frame-ancestors"), r.headers().toString());
            assertEquals("DENY", r.header("x-frame-options"), r.headers().toString());
            assertEquals("nosniff", r.header("x-content-type-options"), r.headers().toString());
        }
    }

    /** Under script-src 'self' and style-src 'self' an inline script, handler or style would not run: none is left. */
    @Test
    void servedPagesHaveNoInlineScriptsHandlersOrStyles() throws Exception {
        int port = plain.httpPort();
        Pattern inlineScript = Pattern.compile("<script(?![^>]*\\bsrc=)[^>]*>", Pattern.CASE_INSENSITIVE);
        Pattern handler = Pattern.compile("<[^>]+\\son[a-z]+\\s*=", Pattern.CASE_INSENSITIVE);
        Pattern style = Pattern.compile("<style\\b|<[^>]+\\sstyle\\s*=", Pattern.CASE_INSENSITIVE);
        Pattern jsUrl = Pattern.compile("(href|src|action)\\s*=\\s*[\"']?\\s*javascript:", Pattern.CASE_INSENSITIVE);
        List<String> found = new ArrayList<>();
        for (String page : List.of("/", "/admin/", "/admin/federation.html", "/import.html", "/search.html", "/docs/")) {
            String html = get(port, page).body().replaceAll("(?s)<!--.*?-->", "");
            for (Pattern p : List.of(inlineScript, handler, style, jsUrl)) {
                Matcher m = p.matcher(html);
                if (m.find()) found.add(page + ": " + m.group());
            }
        }
        assertEquals(List.of(), found);
    }

    @Test
    void withAPasswordSetLoopbackNeedsItToo() throws Exception {
        int port = proxied.httpPort();
        Reply anonymous = exchange("127.0.0.1", port, "PUT", "/api/ranking");
        System.out.println("password set, loopback without credentials -> " + anonymous.status() + " " + anonymous.body());
        assertEquals(401, anonymous.status(), anonymous.body());
        assertEquals(401, get(port, "/api/blacklist").status());
        assertEquals(200, exchange("127.0.0.1", port, "PUT", "/api/ranking", basic("admin", "s3cret-admin")).status());
        assertEquals(401, exchange("127.0.0.1", port, "PUT", "/api/ranking", basic("admin", "wrong")).status());
    }

    @Test
    void aProxiedClientIsNoAdminAndIsRateLimitedLikeARemoteOne() throws Exception {
        int port = proxied.httpPort();
        // nginx on this machine (127.0.0.2) passing on a request of 203.0.113.7
        Reply admin = exchange("127.0.0.2", port, "PUT", "/api/ranking", "X-Forwarded-For: 203.0.113.7");
        System.out.println("proxied admin request -> " + admin.status() + " " + admin.body());
        assertEquals(401, admin.status(), admin.body());
        Reply forwarded = exchange("127.0.0.2", port, "PUT", "/api/ranking", "Forwarded: for=\"[2001:db8::7]:4711\"");
        assertEquals(401, forwarded.status(), forwarded.body());
        int ok = 0;
        int limited = 0;
        for (int i = 0; i < 8; i++) {
            // the proxy's hop list: what the client claimed first, then what the proxy saw
            Reply r = exchange("127.0.0.2", port, "GET", "/api/search?q=peer&resource=local",
                    "X-Forwarded-For: 127.0.0.1, 203.0.113.7");
            if (r.status() == 200) ok++;
            else if (r.status() == 429) limited++;
            else throw new AssertionError(r.status() + " " + r.body());
        }
        System.out.printf("proxied searches from 203.0.113.7 (burst 3): %d answered, %d got 429%n", ok, limited);
        assertEquals(3, ok);
        assertEquals(5, limited);
        // another forwarded client has its own bucket, and a direct loopback user stays exempt
        assertEquals(200, exchange("127.0.0.2", port, "GET", "/api/search?q=peer&resource=local",
                "X-Forwarded-For: 198.51.100.9").status());
        for (int i = 0; i < 5; i++) assertEquals(200, get(port, "/api/search?q=peer&resource=local").status());
    }

    @Test
    void everySolrSelectPathIsASearchPathForTheRateLimit() throws Exception {
        int port = proxied.httpPort();
        // pysolr's select/ with a core name, SolrJ's select without: one bucket per client for all of them
        List<String> paths = List.of("/solr/peerdex/select/?q=peer&wt=json", "/solr/select?q=peer",
                "/solr/other/select?q=peer", "/solr/select/?q=peer&wt=json", "/solr/peerdex/select/?q=peer");
        List<Integer> statuses = new ArrayList<>();
        for (String path : paths) {
            statuses.add(exchange("127.0.0.2", port, "GET", path, "X-Forwarded-For: 192.0.2.44").status());
        }
        assertEquals(List.of(200, 200, 200, 429, 429), statuses);
    }

    @Test
    void behindAProxyWithoutAPasswordAdminIsClosedWithAMessage() throws Exception {
        int port = noPassword.httpPort();
        for (String from : List.of("127.0.0.1", "127.0.0.2")) {
            Reply r = exchange(from, port, "PUT", "/api/ranking");
            System.out.println("no password, trusted proxy configured, from " + from + " -> " + r.status() + " " + r.body());
            assertEquals(403, r.status(), r.body());
            assertTrue(r.body().contains("admin-password"), r.body());
        }
        assertEquals(200, get(port, "/api/search?q=peer&resource=local").status(), "search stays open");
    }

    @Test
    void theBoundAddressDecidesWhetherAdminNeedsAPassword() {
        assertTrue(WebBoundary.from(TestPeers.config(dir.resolve("x"), Map.of("peerdex.http.host", "0.0.0.0")))
                .adminNeedsCredentials().isPresent());
        assertFalse(WebBoundary.from(TestPeers.config(dir.resolve("x"), Map.of("peerdex.http.host", "127.0.0.1")))
                .adminNeedsCredentials().isPresent());
        assertFalse(WebBoundary.from(TestPeers.config(dir.resolve("x"), Map.of("peerdex.http.host", "localhost")))
                .adminNeedsCredentials().isPresent());
    }
}
