package org.peerdex.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.peerdex.node.http.Json;

/** Config and HTTP helpers for tests that run real peers on 127.0.0.1 with ports chosen by the OS. */
public final class TestPeers {
    public static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TestPeers() {}

    /** A peer config over the defaults: the given data directory, HTTP and cluster ports 0. */
    public static Config config(Path dataDir, Map<String, Object> more) {
        Map<String, Object> m = new HashMap<>();
        m.put("peerdex.data-dir", dataDir.toString());
        m.put("peerdex.http.host", "127.0.0.1");
        m.put("peerdex.http.port", 0);
        m.put("peerdex.cluster.host", "127.0.0.1");
        m.put("peerdex.cluster.port", 0);
        m.putAll(more);
        return ConfigFactory.parseMap(m).withFallback(ConfigFactory.load()).resolve();
    }

    public static Config config(Path dataDir) {
        return config(dataDir, Map.of());
    }

    /** A response: status code and parsed JSON body. */
    public record Reply(int status, JsonNode json, String contentType) {}

    public static Reply get(String url) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build());
    }

    public static Reply send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), Json.MAPPER.readTree(r.body()),
                r.headers().firstValue("content-type").orElse(""));
    }
}
