package org.peerdex.node.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.peerdex.node.PeerNode;
import org.peerdex.node.http.Json;
import org.peerdex.storage.testing.SmallDisk;

/**
 * Disk full: the peer's data directory is a tmpfs of 8 MiB the test mounts (root only; skipped otherwise). Indexing
 * until the disk is full gets a clear JSON error, nothing acknowledged is lost, and after the filesystem grows the
 * peer indexes again; after a restart every acknowledged document is searchable.
 */
@Tag("reliability")
class DiskFullTest {
    @Test
    void aFullDiskGivesAClearErrorLosesNothingAcknowledgedAndIndexingResumesWhenSpaceReturns() throws Exception {
        List<Integer> acknowledged = new ArrayList<>();
        HttpClient http = HttpClient.newHttpClient();
        try (SmallDisk disk = SmallDisk.mount(8)) {
            Path data = disk.path().resolve("data");
            String firstError;
            int next = 0;
            try (PeerNode node = start(data)) {
                HttpResponse<String> failure = null;
                while (next < 2000) {
                    HttpResponse<String> r = post(http, node, next);
                    if (r.statusCode() == 200) acknowledged.add(next++);
                    else {
                        failure = r;
                        next++;
                        break;
                    }
                }
                assertTrue(failure != null, "8 MiB filled without an error after " + next + " documents");
                System.out.printf("disk full: %d documents acknowledged, then %d %s%n", acknowledged.size(),
                        failure.statusCode(), failure.body());
                assertEquals(507, failure.statusCode(), failure.body());
                JsonNode err = Json.MAPPER.readTree(failure.body());
                assertTrue(err.path("error").asText().toLowerCase().contains("space"), failure.body());
                firstError = err.path("error").asText();
                // the peer still answers searches while full
                assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(node.baseUrl()
                        + "/api/search?q=diskfulldoc0")).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
                // space returns: the filesystem grows, and indexing goes on without a restart
                disk.grow(64);
                int resumed = 0;
                for (int i = 0; i < 20; i++) {
                    HttpResponse<String> r = post(http, node, next);
                    if (r.statusCode() == 200) {
                        acknowledged.add(next);
                        resumed++;
                    }
                    next++;
                }
                System.out.printf("disk full: after the remount %d of 20 further documents acknowledged%n", resumed);
                assertTrue(resumed >= 19, "indexing resumes once space returns: " + resumed + " of 20");
            }
            try (PeerNode again = start(data)) {
                int lost = 0;
                for (int id : acknowledged) {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(again.baseUrl()
                            + "/api/search?resource=local&q=diskfulldoc" + id)).build(), HttpResponse.BodyHandlers.ofString());
                    if (Json.MAPPER.readTree(r.body()).path("results").size() != 1) lost++;
                }
                System.out.printf("disk full: after restart %d acknowledged, %d lost (first error: %s)%n",
                        acknowledged.size(), lost, firstError);
                assertEquals(0, lost);
            }
        }
    }

    private static PeerNode start(Path data) {
        return PeerNode.start(ConfigFactory.parseMap(Map.of("peerdex.data-dir", data.toString(),
                "peerdex.http.port", 0, "peerdex.cluster.port", 0)).withFallback(ConfigFactory.load()).resolve());
    }

    private static HttpResponse<String> post(HttpClient http, PeerNode node, int id) throws Exception {
        String text = "diskfulldoc" + id + " " + ("filler" + id + " ").repeat(6000);
        return http.send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/index/document"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(Json.write(Map.of(
                        "url", "http://disk.test/" + id, "title", "doc " + id, "text", text)))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

}
