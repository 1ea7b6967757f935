package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The network scanner on an intranet-mode peer, scanning ports of 127.0.0.1 only; refused in p2p mode. */
class NetworkScanImportTest {
    static ImportTestPeer intranet;

    @BeforeAll
    static void start() throws Exception {
        intranet = new ImportTestPeer("peerdex.mode = intranet\npeerdex.network = scan-lab\n");
        intranet.serve("/", "text/html", ("<html><head><title>Build farm dashboard</title></head><body>"
                + "The ravenstone build farm is green.</body></html>").getBytes(StandardCharsets.UTF_8));
    }

    @AfterAll
    static void stop() throws Exception {
        if (intranet != null) intranet.close();
    }

    static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void theScannerFindsHttpServersOnLoopbackPortsAndIndexesTheirFrontPages() throws Exception {
        int web = intranet.site.getAddress().getPort();
        int closed = closedPort();
        String id = intranet.startImport("scan", Map.of("ranges", List.of("127.0.0.1"),
                "ports", List.of(web, closed), "index", true));
        JsonNode p = intranet.awaitEnd(id);
        assertEquals("finished", p.get("state").asText(), p.toString());
        JsonNode starts = p.get("details").get("starts");
        List<String> urls = new ArrayList<>();
        starts.forEach(s -> urls.add(s.get("url").asText()));
        assertEquals(List.of("http://127.0.0.1:" + web + "/"), urls, "the open port only: " + p);
        assertEquals("Build farm dashboard", starts.get(0).get("title").asText());
        assertEquals(1, p.get("imported").asInt(), p.toString());
        assertEquals(List.of("http://127.0.0.1:" + web + "/"), intranet.urls("ravenstone"));
    }

    @Test
    void badRangesAreRefused() throws Exception {
        HttpResponse<String> r = intranet.send("POST", "/api/import/scan", "{\"ranges\": [\"127.0.0.300\"]}");
        assertEquals(400, r.statusCode(), r.body());
        r = intranet.send("POST", "/api/import/scan", "{\"ranges\": [\"10.0.0.0/8\"]}");
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("at most 4096 addresses"), r.body());
        r = intranet.send("POST", "/api/import/scan", "{}");
        assertEquals(400, r.statusCode(), r.body());
    }

    @Test
    void aP2pPeerRefusesToScan() throws Exception {
        try (ImportTestPeer p2p = new ImportTestPeer("")) {
            HttpResponse<String> r = p2p.send("POST", "/api/import/scan", "{\"ranges\": [\"127.0.0.1\"], \"ports\": [80]}");
            assertEquals(403, r.statusCode(), r.body());
            assertTrue(r.body().contains("only in intranet mode"), r.body());
        }
    }
}
