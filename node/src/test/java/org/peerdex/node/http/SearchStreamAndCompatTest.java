package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/** The SSE stream read incrementally by a real HTTP client, and the YaCy/OpenSearch compatible interfaces. */
class SearchStreamAndCompatTest extends TarnPeerTest {
    record Sse(String event, String data) {}

    /** Reads the stream line by line as it arrives, recording events in arrival order. */
    static List<Sse> readStream(String q) throws Exception {
        HttpResponse<java.io.InputStream> resp = peer.http.send(HttpRequest.newBuilder(
                        URI.create(peer.base() + "/api/search/stream?q=" + SearchTestPeer.enc(q)))
                .timeout(Duration.ofSeconds(30)).header("Accept", "text/event-stream").GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, resp.statusCode());
        assertTrue(resp.headers().firstValue("content-type").orElse("").startsWith("text/event-stream"));
        List<Sse> events = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
            String event = null;
            StringBuilder data = new StringBuilder();
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("event:")) event = line.substring(6).trim();
                else if (line.startsWith("data:")) data.append(line.substring(5).trim());
                else if (line.isEmpty() && event != null) {
                    events.add(new Sse(event, data.toString()));
                    if (event.equals("done")) break;
                    event = null;
                    data.setLength(0);
                }
            }
        }
        return events;
    }

    @Test
    void streamSendsResultsAsTheyAreKnownThenNavigatorsAndDone() throws Exception {
        List<Sse> events = readStream("replication");
        List<String> names = events.stream().map(Sse::event).toList();
        int firstResult = names.indexOf("result");
        int done = names.indexOf("done");
        assertTrue(firstResult >= 0, names.toString());
        assertTrue(firstResult < done, "the first result must arrive before done: " + names);
        assertTrue(names.contains("progress"));
        assertTrue(names.indexOf("navigators") < done);
        assertEquals(done, names.size() - 1);
        JsonNode r = Json.MAPPER.readTree(events.get(firstResult).data());
        assertEquals(1, r.get("rank").asInt());
        assertTrue(r.get("url").asText().endsWith("/replication.html"));
        JsonNode d = Json.MAPPER.readTree(events.get(done).data());
        long results = names.stream().filter("result"::equals).count();
        assertEquals(d.get("results").size(), results);
    }

    @Test
    void streamOpensWithWhatThePeerMarksFunctionWordsOnlyWhenNothingElse() throws Exception {
        List<Sse> events = readStream("the replication");
        assertEquals("query", events.get(0).event());
        assertEquals("[\"replication\"]", Json.MAPPER.readTree(events.get(0).data()).get("highlight").toString());
        JsonNode done = Json.MAPPER.readTree(events.get(events.size() - 1).data());
        assertEquals("[\"replication\"]", done.get("highlight").toString());
        List<Sse> stop = readStream("to the");
        assertEquals("[\"to the\"]", Json.MAPPER.readTree(stop.get(0).data()).get("highlight").toString());
    }

    @Test
    void streamOfAMalformedQueryIsA400() throws Exception {
        HttpResponse<String> r = peer.get("/api/search/stream?q=" + SearchTestPeer.enc("-only -exclusions"));
        assertEquals(400, r.statusCode());
        assertTrue(r.body().contains("exclusions"));
    }

    @Test
    void yacySearchJsonHasTheFieldsSearxngReads() throws Exception {
        HttpResponse<String> resp = peer.get("/yacysearch.json?query=" + SearchTestPeer.enc("backup restore")
                + "&maximumRecords=5&startRecord=0&resource=local&contentdom=text&urlmaskfilter=.*");
        assertEquals(200, resp.statusCode());
        JsonNode ch = Json.MAPPER.readTree(resp.body()).get("channels").get(0);
        assertEquals("backup restore", ch.get("searchTerms").asText());
        assertEquals("0", ch.get("startIndex").asText());
        assertEquals("5", ch.get("itemsPerPage").asText());
        assertTrue(Long.parseLong(ch.get("totalResults").asText()) >= 1);
        JsonNode item = ch.get("items").get(0);
        for (String f : List.of("title", "link", "code", "description", "pubDate", "size", "sizename", "guid",
                "faviconUrl", "host", "path", "file", "urlhash", "ranking")) {
            assertTrue(item.has(f), "item lacks " + f + ": " + item);
        }
        assertTrue(item.get("link").asText().endsWith("/backup.html"), "first item " + ch.get("items"));
        assertEquals("backup.html", item.get("file").asText());
        // SearXNG parses pubDate as a date
        ZonedDateTime.parse(item.get("pubDate").asText(), DateTimeFormatter.RFC_1123_DATE_TIME.withLocale(Locale.ROOT));
        HttpResponse<String> masked = peer.get("/yacysearch.json?query=backup&urlmaskfilter="
                + SearchTestPeer.enc(".*replication.*"));
        JsonNode items = Json.MAPPER.readTree(masked.body()).get("channels").get(0).get("items");
        assertFalse(items.isEmpty());
        items.forEach(i -> assertTrue(i.get("link").asText().contains("replication")));
        assertEquals(400, peer.get("/yacysearch.json").statusCode());
    }

    @Test
    void yacySearchRssIsWellFormedRssWithOpenSearchCounts() throws Exception {
        HttpResponse<String> resp = peer.get("/yacysearch.rss?query=compaction&maximumRecords=3");
        assertEquals(200, resp.statusCode());
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(resp.body().getBytes(StandardCharsets.UTF_8)));
        assertEquals("rss", doc.getDocumentElement().getTagName());
        int items = doc.getElementsByTagName("item").getLength();
        assertTrue(items >= 1 && items <= 3, "items " + items);
        assertTrue(doc.getElementsByTagName("opensearch:totalResults").getLength() == 1);
    }

    @Test
    void openSearchDescriptionAndSuggestionsServeBrowsers() throws Exception {
        HttpResponse<String> os = peer.get("/opensearchdescription.xml");
        assertEquals(200, os.statusCode());
        assertTrue(os.body().contains("{searchTerms}"));
        assertTrue(os.body().contains(peer.base() + "/yacysearch.rss"));
        HttpResponse<String> s = peer.get("/suggest.json?query=compa");
        JsonNode j = Json.MAPPER.readTree(s.body());
        assertEquals("compa", j.get(0).asText());
        assertTrue(j.get(1).toString().contains("compaction"), j.toString());
    }

    @Test
    void manualIsServedAndCanBeIndexed() throws Exception {
        // indexing the manual changes the index, so it gets a peer of its own and the shared one stays as loaded
        try (SearchTestPeer own = new SearchTestPeer()) {
            HttpResponse<String> list = own.get("/docs/");
            assertEquals(200, list.statusCode());
            assertTrue(list.body().contains("architecture"));
            assertEquals(200, own.get("/docs/architecture.html").statusCode());
            HttpResponse<String> r = own.send("POST", "/api/index/manual", null);
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(Json.MAPPER.readTree(r.body()).get("indexed").asInt() >= 1);
            JsonNode found = own.search("peerdex", null);
            assertTrue(SearchApiTest.urls(found).stream().anyMatch(u -> u.contains("/docs/")), found.toString());
        }
    }

    @Test
    void searchPageIsServedAtTheRoot() throws Exception {
        HttpResponse<String> r = peer.get("/");
        assertEquals(200, r.statusCode());
        assertTrue(r.body().contains("EventSource") || r.body().contains("app.js"));
        assertEquals(200, peer.get("/app.js").statusCode());
        assertEquals(200, peer.get("/style.css").statusCode());
    }
}
