package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.jsoup.Jsoup;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Clients nobody here wrote, replayed against a real peer with the Tarn corpus indexed: SearXNG's YaCy engine
 * (searx/engines/yacy.py: the URL its {@code request()} builds, and its {@code response()} logic with the real
 * field names) and pysolr 3.8 (the URLs {@code Solr.search()} requests, {@code select/?...} and a POSTed form for
 * long parameters, and what its {@code Results} and {@code _extract_error} read). Also the links a YaCy JSON or RSS
 * answer hands out: they must open, from anywhere.
 */
class RealClientsTest extends TarnPeerTest {
    static final HttpClient FOLLOWING = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build();

    /** One result as SearXNG's yacy engine appends it (general branch). */
    record SearxResult(String url, String title, String content, ZonedDateTime publishedDate) {}

    /** Python's urlencode of a dict, as SearXNG and pysolr build their query strings. */
    static String urlencode(Map<String, String> args) {
        return args.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
    }

    /** searx/engines/yacy.py request(): the URL for page {@code pageno} of {@code query}. */
    static String searxRequest(String query, int pageno, String searchType, String language) {
        int pageSize = 10;
        Map<String, String> args = new LinkedHashMap<>();
        args.put("query", query);
        args.put("startRecord", String.valueOf((pageno - 1) * pageSize));
        args.put("maximumRecords", String.valueOf(pageSize));
        args.put("contentdom", searchType);
        args.put("resource", "global");
        if (!language.equals("all")) args.put("lr", "lang_" + language.split("-")[0]);
        return peer.base() + "/yacysearch.json?" + urlencode(args);
    }

    /** Python's dict[key]: a missing key is SearXNG's KeyError, which fails the engine. */
    static JsonNode key(JsonNode dict, String key) {
        JsonNode v = dict.get(key);
        if (v == null) throw new AssertionError("KeyError('" + key + "') in " + dict);
        return v;
    }

    /** searx/engines/yacy.py response(), general branch: channels[0].items → link, title, description, pubDate. */
    static List<SearxResult> searxResponse(String body) throws Exception {
        JsonNode raw = Json.MAPPER.readTree(body);
        List<SearxResult> results = new ArrayList<>();
        if (raw == null || raw.isEmpty()) return results;
        JsonNode channels = raw.path("channels");
        if (channels.size() == 0) return results;
        for (JsonNode result : channels.get(0).path("items")) {
            ZonedDateTime published = null;
            // dateutil.parser.parse(result['pubDate']): YaCy writes RFC 822
            if (result.has("pubDate")) {
                published = ZonedDateTime.parse(result.get("pubDate").asText(),
                        DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss Z", Locale.ROOT));
            }
            String link = key(result, "link").asText("");
            // html_to_text(result['description'])
            String content = Jsoup.parse(key(result, "description").asText()).text();
            results.add(new SearxResult(link, key(result, "title").asText(), content, published));
        }
        return results;
    }

    @Test
    void searxngYacyEngineReadsEveryResultWithItsDate() throws Exception {
        HttpResponse<String> r = FOLLOWING.send(HttpRequest.newBuilder(URI.create(
                searxRequest("backup restore", 1, "text", "en"))).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        List<SearxResult> results = searxResponse(r.body());
        assertFalse(results.isEmpty(), r.body());
        assertTrue(results.get(0).url().endsWith("/backup.html"), results.toString());
        for (SearxResult x : results) {
            assertTrue(x.url().startsWith(peer.siteBase), x.toString());
            assertFalse(x.title().isBlank(), x.toString());
            assertNotNull(x.publishedDate(), x.toString());
        }
        // SearXNG's language (lr=lang_de) restricts as YaCy does: the corpus is English
        HttpResponse<String> german = FOLLOWING.send(HttpRequest.newBuilder(URI.create(
                searxRequest("backup restore", 1, "text", "de-DE"))).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, german.statusCode(), german.body());
        assertTrue(searxResponse(german.body()).isEmpty(), german.body());
        // page 2 starts where page 1 ended
        HttpResponse<String> page2 = FOLLOWING.send(HttpRequest.newBuilder(URI.create(
                searxRequest("backup", 2, "text", "all"))).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("10", Json.MAPPER.readTree(page2.body()).get("channels").get(0).get("startIndex").asText());
    }

    @Test
    void theChannelLinksOfTheJsonAnswerOpenTheSearchPageAndTheIcon() throws Exception {
        JsonNode channel = Json.MAPPER.readTree(peer.get("/yacysearch.json?query=backup&resource=global").body())
                .get("channels").get(0);
        String link = channel.get("link").asText();
        assertTrue(link.startsWith(peer.base() + "/yacysearch.html?"), link);
        HttpResponse<String> page = FOLLOWING.send(HttpRequest.newBuilder(URI.create(link)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
        assertEquals(peer.base() + "/?q=backup&resource=global", page.uri().toString());
        assertTrue(page.body().contains("id=\"search-form\""), "the search page itself");

        String icon = channel.get("image").get("url").asText();
        assertEquals(peer.base() + "/favicon.ico", icon);
        HttpResponse<byte[]> ico = FOLLOWING.send(HttpRequest.newBuilder(URI.create(icon)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, ico.statusCode());
        assertTrue(ico.headers().firstValue("Content-Type").orElse("").contains("icon"), ico.headers().toString());
        // an ICO directory with one image
        assertArrayEquals(new byte[] {0, 0, 1, 0, 1, 0}, Arrays.copyOf(ico.body(), 6));
        assertEquals(peer.base() + "/", channel.get("image").get("link").asText());
    }

    @Test
    void theRssChannelLinkIsAbsolute() throws Exception {
        HttpResponse<String> r = peer.get("/yacysearch.rss?query=compaction");
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(r.body().getBytes(StandardCharsets.UTF_8)));
        Element channel = (Element) doc.getElementsByTagName("channel").item(0);
        String link = null;
        for (Node n = channel.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n.getNodeName().equals("link")) link = n.getTextContent();
        }
        assertNotNull(link, r.body());
        assertTrue(link.startsWith(peer.base() + "/"), link);
        assertEquals(200, FOLLOWING.send(HttpRequest.newBuilder(URI.create(link)).GET().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode());
        // an error feed links to the peer absolutely too
        HttpResponse<String> error = peer.get("/yacysearch.rss");
        assertEquals(400, error.statusCode());
        assertTrue(error.body().contains("<link>" + peer.base() + "/</link>"), error.body());
    }

    /** What pysolr's Results reads of a decoded answer. */
    record PysolrResults(List<JsonNode> docs, long hits, JsonNode highlighting, JsonNode facets, Integer qtime) {}

    static PysolrResults pysolrResults(JsonNode decoded) {
        JsonNode response = decoded.path("response");
        List<JsonNode> docs = new ArrayList<>();
        response.path("docs").forEach(docs::add);
        JsonNode qtime = decoded.path("responseHeader").get("QTime");
        return new PysolrResults(docs, response.path("numFound").asLong(0), decoded.path("highlighting"),
                decoded.path("facet_counts"), qtime == null ? null : qtime.asInt());
    }

    /** pysolr's Solr._select: GET {core}/select/?params&wt=json when short, else POST the form to select/. */
    static HttpResponse<String> pysolrSelect(String core, Map<String, String> params) throws Exception {
        Map<String, String> p = new LinkedHashMap<>(params);
        p.putIfAbsent("wt", "json");
        String encoded = urlencode(p);
        String url = peer.base() + "/solr/" + core;
        HttpRequest req = encoded.length() < 1024
                ? HttpRequest.newBuilder(URI.create(url + "/select/?" + encoded)).GET().build()
                : HttpRequest.newBuilder(URI.create(url + "/select/"))
                .header("Content-type", "application/x-www-form-urlencoded; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(encoded)).build();
        return peer.http.send(req, HttpResponse.BodyHandlers.ofString());
    }

    /** pysolr's _extract_error: resp.json()['error']['msg'] (a TypeError when 'error' is not an object). */
    static String pysolrError(HttpResponse<String> r) throws Exception {
        JsonNode error = key(Json.MAPPER.readTree(r.body()), "error");
        assertTrue(error.isObject(), "pysolr indexes error['msg']: " + r.body());
        return key(error, "msg").asText();
    }

    @Test
    void pysolrSearchReadsDocsHitsHighlightingAndFacets() throws Exception {
        HttpResponse<String> r = pysolrSelect("peerdex", Map.of("q", "backup", "rows", "5", "hl", "true",
                "hl.fl", "description", "facet", "true", "facet.field", "host_s"));
        assertEquals(200, r.statusCode(), r.body());
        PysolrResults res = pysolrResults(Json.MAPPER.readTree(r.body()));
        assertTrue(res.hits() >= 4, r.body());
        assertEquals(Math.min(5, res.hits()), res.docs().size());
        assertTrue(res.docs().get(0).get("sku").asText().endsWith("/backup.html"), r.body());
        assertNotNull(res.qtime());
        String firstId = res.docs().get(0).get("id").asText();
        String marked = res.highlighting().get(firstId).get("description").get(0).asText();
        assertTrue(marked.toLowerCase(Locale.ROOT).contains("<em>backup</em>"), marked);
        assertFalse(marked.replace("<em>", "").replace("</em>", "").contains("<"), "only <em> is markup: " + marked);
        assertEquals("127.0.0.1", res.facets().get("facet_fields").get("host_s").get(0).asText());
        // the same through the core-less path, and the slash-less one SolrJ uses
        assertEquals(200, peer.get("/solr/select/?q=backup&wt=json").statusCode());
        assertEquals(200, peer.get("/solr/peerdex/select?q=backup&wt=json").statusCode());
    }

    @Test
    void pysolrPostsLongParametersAsAForm() throws Exception {
        // pysolr switches to POST past 1024 characters of parameters; a long fq list gets there
        Map<String, String> params = new LinkedHashMap<>();
        params.put("q", "backup restore -zzzz");
        params.put("fl", String.join(",", Collections.nCopies(250, "id")) + ",sku");
        HttpResponse<String> r = pysolrSelect("peerdex", params);
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(pysolrResults(Json.MAPPER.readTree(r.body())).hits() >= 1, r.body());
    }

    @Test
    void pysolrGetsSolrErrorsItCanRead() throws Exception {
        HttpResponse<String> empty = pysolrSelect("peerdex", Map.of("q", ""));
        assertEquals(400, empty.statusCode(), empty.body());
        assertTrue(pysolrError(empty).contains("Cannot parse"), empty.body());
        HttpResponse<String> open = pysolrSelect("peerdex", Map.of("q", "json AND ("));
        assertEquals(400, open.statusCode(), open.body());
        assertTrue(pysolrError(open).contains("json AND ("), open.body());
        for (String bad : List.of("json AND", "OR json", "(json", "json)", "json AND OR yaml", "NOT")) {
            HttpResponse<String> r = pysolrSelect("peerdex", Map.of("q", bad));
            assertEquals(400, r.statusCode(), bad + " -> " + r.body());
            assertEquals(400, key(key(Json.MAPPER.readTree(r.body()), "error"), "code").asInt());
        }
        // well-formed grouping and operators still search
        HttpResponse<String> grouped = pysolrSelect("peerdex", Map.of("q", "(backup AND restore) NOT zzzz"));
        assertEquals(200, grouped.statusCode(), grouped.body());
        assertTrue(pysolrResults(Json.MAPPER.readTree(grouped.body())).hits() >= 1, grouped.body());
        // an unknown handler under the slash: Solr's 404 shape, which pysolr reads
        HttpResponse<String> unknown = peer.get("/solr/peerdex/mlt/?q=backup&wt=json");
        assertEquals(404, unknown.statusCode());
        assertFalse(pysolrError(unknown).isBlank());
        // no q at all matches nothing, as Solr's standard parser
        HttpResponse<String> none = peer.get("/solr/peerdex/select/?wt=json");
        assertEquals(200, none.statusCode(), none.body());
        assertEquals(0, pysolrResults(Json.MAPPER.readTree(none.body())).hits());
    }
}
