package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.crawl.TestSite;
import org.peerdex.node.PeerNode;
import org.peerdex.node.TestPeers;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Image search as SearXNG's "yacy images" engine uses it: a real peer crawls three real HTML pages with images
 * (a figure with a caption, an image inside a paragraph, a lazy-loaded one, plus a site logo in the header, a badge
 * in the footer, a tracking pixel and a data: URI that are not content) served on loopback, then
 * {@code /yacysearch.json?contentdom=image} is read with the engine's response() logic, image branch.
 */
class ImageSearchTest {
    @TempDir
    static Path dir;
    static TestSite site;
    static PeerNode node;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static byte[] gallery(String path) {
        if (!path.startsWith("/gallery/")) return null;
        try (InputStream in = ImageSearchTest.class.getResourceAsStream("/corpus" + path)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    @BeforeAll
    static void crawlTheGallery() throws Exception {
        site = new TestSite();
        site.fallback(path -> {
            byte[] b = gallery(path);
            return b == null ? null : new TestSite.Reply(200, Map.of("Content-Type", "text/html; charset=utf-8"), b,
                    false);
        });
        node = PeerNode.start(TestPeers.config(dir, Map.of("peerdex.crawler.allow-loopback", true,
                "peerdex.indexer.flush-interval", "20ms")));
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/crawl"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"url\": \"" + site.url("/gallery/index.html") + "\", \"minDelayMs\": 0, \"depth\": 2}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        String id = Json.MAPPER.readTree(r.body()).get("id").asText();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        JsonNode p = null;
        while (System.nanoTime() < deadline) {
            p = TestPeers.get(node.baseUrl() + "/api/crawl/" + id).json();
            if (!p.path("state").asText().equals("running")) break;
            LockSupport.parkNanos(20_000_000);
        }
        if (p == null || p.path("indexed").asInt() != 3) fail("the three gallery pages were not indexed: " + p);
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) node.close();
        if (site != null) site.close();
    }

    /** One result as searx/engines/yacy.py appends it with search_type = 'image'. */
    record SearxImage(String url, String title, String content, String imgSrc, String template) {}

    /** searx/engines/yacy.py response(), image branch: 'url' else 'link' (else skipped), 'title', 'image'. */
    static List<SearxImage> searxImages(String body) throws Exception {
        JsonNode raw = Json.MAPPER.readTree(body);
        List<SearxImage> results = new ArrayList<>();
        if (raw == null || raw.isEmpty()) return results;
        JsonNode channels = raw.path("channels");
        if (channels.size() == 0) return results;
        for (JsonNode result : channels.get(0).path("items")) {
            String resultUrl;
            if (result.has("url")) resultUrl = result.get("url").asText();
            else if (result.has("link")) resultUrl = result.get("link").asText();
            else continue;
            results.add(new SearxImage(resultUrl, RealClientsTest.key(result, "title").asText(), "",
                    RealClientsTest.key(result, "image").asText(), "images.html"));
        }
        return results;
    }

    /** The URL searx/engines/yacy.py request() builds for the "yacy images" engine. */
    static String imageSearch(String query, int pageno) {
        return node.baseUrl() + "/yacysearch.json?" + RealClientsTest.urlencode(new LinkedHashMap<>(Map.of(
                "query", query, "startRecord", String.valueOf((pageno - 1) * 10), "maximumRecords", "10",
                "contentdom", "image", "resource", "global")));
    }

    static List<SearxImage> search(String query) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(imageSearch(query, 1))).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return searxImages(r.body());
    }

    @Test
    void searxngImageEngineGetsTheContentImagesWithTheirPagesAndAltText() throws Exception {
        List<SearxImage> granite = search("granite");
        assertFalse(granite.isEmpty(), "images for granite");
        // the figure whose caption says granite comes first, with its alt text as title and its page as url
        SearxImage first = granite.get(0);
        assertEquals(site.url("/gallery/images/north-head.jpg"), first.imgSrc());
        assertEquals("North Head lighthouse at dusk", first.title());
        assertEquals(site.url("/gallery/index.html"), first.url());
        List<String> srcs = granite.stream().map(SearxImage::imgSrc).toList();
        assertTrue(srcs.contains(site.url("/gallery/images/striped-tower.jpg")), srcs.toString());
        // a lazy-loaded image (data-src), titled by its title attribute
        SearxImage iron = granite.stream().filter(i -> i.imgSrc().endsWith("/iron-tower.jpg")).findFirst()
                .orElseThrow(() -> new AssertionError("iron-tower.jpg missing: " + srcs));
        assertEquals("The cast iron tower at Gull Rock", iron.title());
        for (SearxImage i : granite) {
            assertTrue(i.imgSrc().startsWith("http://127.0.0.1:"), "absolute: " + i);
            assertFalse(i.imgSrc().contains("site-logo") || i.imgSrc().contains("badge"), "site chrome: " + i);
            assertFalse(i.imgSrc().contains("pixel.gif"), "a tracking pixel: " + i);
            assertFalse(i.imgSrc().startsWith("data:"), "a data: URI: " + i);
        }
        assertEquals(srcs.size(), new HashSet<>(srcs).size(), "each image once: " + srcs);
    }

    @Test
    void altTextIsTextAndTheSurroundingTextIsTheDescription() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(imageSearch("fresnel", 1))).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode items = Json.MAPPER.readTree(r.body()).get("channels").get(0).get("items");
        assertEquals(1, items.size(), r.body());
        JsonNode lens = items.get(0);
        assertEquals(site.url("/gallery/images/fresnel-lens.jpg"), lens.get("image").asText());
        // the alt attribute's entities decoded once: the page's text, for the client to escape
        assertEquals("A first-order Fresnel lens <b>in brass</b>", lens.get("title").asText());
        assertEquals("A first-order Fresnel lens, as installed at North Head in 1861.",
                lens.get("description").asText());
        assertEquals(site.url("/gallery/lamps.html"), lens.get("link").asText());
        assertEquals("1", Json.MAPPER.readTree(r.body()).get("channels").get(0).get("totalResults").asText());
        // the RSS form: Media RSS's content element carries the picture
        HttpResponse<String> rss = HTTP.send(HttpRequest.newBuilder(URI.create(node.baseUrl()
                + "/yacysearch.rss?query=fresnel&contentdom=image")).GET().build(), HttpResponse.BodyHandlers.ofString());
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        Document doc = factory.newDocumentBuilder().parse(new ByteArrayInputStream(
                rss.body().getBytes(StandardCharsets.UTF_8)));
        NodeList media = doc.getElementsByTagNameNS("http://search.yahoo.com/mrss/", "content");
        assertEquals(1, media.getLength(), rss.body());
        assertEquals(site.url("/gallery/images/fresnel-lens.jpg"),
                ((Element) media.item(0)).getAttribute("url"));
        assertEquals("A first-order Fresnel lens <b>in brass</b>",
                ((Element) doc.getElementsByTagName("item").item(0)).getElementsByTagName("title")
                        .item(0).getTextContent());
    }

    @Test
    void textSearchStillAnswersPagesAndImagePagingCountsImages() throws Exception {
        JsonNode text = Json.MAPPER.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(node.baseUrl()
                + "/yacysearch.json?query=granite")).GET().build(), HttpResponse.BodyHandlers.ofString()).body());
        for (JsonNode item : text.get("channels").get(0).get("items")) {
            assertFalse(item.has("image"), "a text result is a page: " + item);
        }
        HttpResponse<String> one = HTTP.send(HttpRequest.newBuilder(URI.create(node.baseUrl()
                + "/yacysearch.json?query=granite&contentdom=image&maximumRecords=1&startRecord=1")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode channel = Json.MAPPER.readTree(one.body()).get("channels").get(0);
        assertEquals(1, channel.get("items").size(), one.body());
        assertEquals(search("granite").get(1).imgSrc(), channel.get("items").get(0).get("image").asText());
        assertEquals(String.valueOf(search("granite").size()), channel.get("totalResults").asText());
    }
}
