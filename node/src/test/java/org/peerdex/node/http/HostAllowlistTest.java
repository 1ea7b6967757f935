package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostAllowlistTest {
    @Test
    void theDefaultNamesAnswerOnTheBoundPortOnly() {
        HostAllowlist h = HostAllowlist.of("127.0.0.1", 8090, List.of());
        for (String ok : List.of("127.0.0.1:8090", "localhost:8090", "LOCALHOST:8090", "localhost.:8090", "[::1]:8090",
                "[0:0:0:0:0:0:0:1]:8090", "127.0.0.1", "")) {
            assertTrue(h.allowsHost(ok), ok);
        }
        for (String bad : List.of("evil.example:8090", "127.0.0.1:8091", "localhost.evil.example:8090", "::1:8090",
                "127.0.0.1:8090@evil", "[::2]:8090", "127.0.0.2:8090", "localhost:99999")) {
            assertFalse(h.allowsHost(bad), bad);
        }
        assertTrue(h.allowsOrigin("http://localhost:8090"));
        assertTrue(h.allowsOrigin("http://127.0.0.1:8090/admin/"));
        assertFalse(h.allowsOrigin("http://localhost"), "port 80 is another origin");
        assertFalse(h.allowsOrigin("http://evil.example:8090"));
        assertFalse(h.allowsOrigin("null"));
        assertFalse(h.allowsOrigin("file:///x"));
        assertFalse(h.allowsOrigin("http://user@localhost:8090"));
    }

    @Test
    void configuredNamesWithoutAPortAnswerOnAnyPort() {
        HostAllowlist h = HostAllowlist.of("127.0.0.1", 0, List.of("search.example.org", "peer.lan:8443"));
        h.boundTo(40123);
        assertTrue(h.allowsHost("search.example.org"));
        assertTrue(h.allowsHost("Search.Example.org:443"));
        assertTrue(h.allowsOrigin("https://search.example.org"));
        assertTrue(h.allowsHost("peer.lan:8443"));
        assertFalse(h.allowsHost("peer.lan:8444"));
        assertTrue(h.allowsHost("localhost:40123"));
        assertFalse(h.allowsHost("localhost:40124"));
        assertThrows(IllegalArgumentException.class, () -> HostAllowlist.of("127.0.0.1", 1, List.of("bad host")));
    }

    @Test
    void aWildcardBindAnswersToTheMachinesOwnAddresses() {
        HostAllowlist h = HostAllowlist.of("0.0.0.0", 8090, List.of());
        assertTrue(h.allowsHost("127.0.0.1:8090"));
        assertFalse(h.allowsHost("evil.example:8090"));
    }

    @Test
    void aTrustedProxyNamesTheClientAndNeverPassesForLoopback() throws Exception {
        ClientAddress c = new ClientAddress(List.of("127.0.0.2", "10.0.0.0/8"));
        var req = org.apache.pekko.http.javadsl.model.HttpRequest.create("/")
                .addHeader(org.apache.pekko.http.javadsl.model.headers.RawHeader.create("X-Forwarded-For",
                        "127.0.0.1, 203.0.113.7, 10.1.2.3"));
        ClientAddress.Client viaProxy = c.resolve(InetAddress.getByName("127.0.0.2"), req);
        assertEquals("203.0.113.7", viaProxy.key());
        assertTrue(viaProxy.proxied());
        assertFalse(viaProxy.loopback());
        // a direct client's claims are ignored
        ClientAddress.Client direct = c.resolve(InetAddress.getByName("127.0.0.1"), req);
        assertEquals("127.0.0.1", direct.key());
        assertTrue(direct.loopback());
        // the proxy itself named nobody: still never loopback
        ClientAddress.Client bare = c.resolve(InetAddress.getByName("127.0.0.2"),
                org.apache.pekko.http.javadsl.model.HttpRequest.create("/"));
        assertFalse(bare.loopback());
        assertThrows(IllegalArgumentException.class, () -> new ClientAddress(List.of("proxy.example")));
    }
}
