package org.peerdex.node.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.peerdex.actors.search.CorpusIndexer;
import org.peerdex.actors.search.ranking.HostPageRank;
import org.peerdex.node.PeerNode;

/**
 * A real peer (LevelDB in a temp dir, HTTP and cluster on port 0) with the committed Tarn documentation corpus
 * indexed, and the corpus itself served over HTTP on loopback (for verify=true).
 */
final class SearchTestPeer implements AutoCloseable {
    final Path dataDir;
    final PeerNode node;
    final HttpServer site;
    final String siteBase;
    final CorpusIndexer.Result corpus;
    final HttpClient http = HttpClient.newHttpClient();

    SearchTestPeer() throws IOException, URISyntaxException {
        dataDir = Files.createTempDirectory("peerdex-search-test");
        Path corpusDir = Path.of(SearchTestPeer.class.getResource("/corpus/tarn/index.html").toURI()).getParent();
        site = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        site.createContext("/tarn/", ex -> {
            Path f = corpusDir.resolve(ex.getRequestURI().getPath().substring("/tarn/".length()));
            byte[] body = Files.isRegularFile(f) ? Files.readAllBytes(f) : new byte[0];
            ex.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
            ex.sendResponseHeaders(body.length == 0 ? 404 : 200, body.length == 0 ? -1 : body.length);
            if (body.length > 0) ex.getResponseBody().write(body);
            ex.close();
        });
        site.start();
        siteBase = "http://127.0.0.1:" + site.getAddress().getPort() + "/tarn/";
        node = PeerNode.start(ConfigFactory.parseString(
                "peerdex.data-dir = \"" + dataDir.toString().replace("\\", "/") + "\"\n"
                        + "peerdex.http.port = 0\npeerdex.cluster.port = 0\n"
                        // verify=true re-reads the corpus from the loopback site above
                        + "peerdex.crawler.allow-loopback = on\n")
                .withFallback(ConfigFactory.load()));
        corpus = CorpusIndexer.index(node.context().storage(), corpusDir, siteBase, 1000);
        node.services().search().setLinkRank(HostPageRank.compute(corpus.hostEdges()));
    }

    String base() {
        return node.baseUrl();
    }

    HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base() + pathAndQuery)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> send(String method, String path, String json) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base() + path)).header("Content-Type", "application/json")
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    JsonNode search(String q, String extra) throws IOException, InterruptedException {
        HttpResponse<String> r = get("/api/search?q=" + enc(q) + (extra == null ? "" : "&" + extra));
        if (r.statusCode() != 200) throw new AssertionError("search " + q + " answered " + r.statusCode() + ": " + r.body());
        return Json.MAPPER.readTree(r.body());
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        try {
            node.close();
        } finally {
            site.stop(0);
            try (Stream<Path> s = Files.walk(dataDir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
