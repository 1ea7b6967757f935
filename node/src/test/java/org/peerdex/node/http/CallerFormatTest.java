package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.solr.client.solrj.impl.BaseHttpSolrClient;
import org.apache.solr.client.solrj.impl.HttpJdkSolrClient;
import org.apache.solr.client.solrj.request.SolrPing;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * Over real HTTP on a peer with the Tarn corpus: a query with stray quotes answers on every search endpoint, and
 * errors come back in the caller's format (an RSS feed on {@code /yacysearch.rss}, Solr's error shape under
 * {@code /solr/}).
 */
class CallerFormatTest extends TarnPeerTest {
    /** The query a newcomer typed: it answered HTTP 500 (StringIndexOutOfBoundsException) everywhere. */
    static final String STRAY_QUOTES = "json\" decoder\"\" \"";

    @Test
    void aQueryWithStrayQuotesIsAnsweredOnEverySearchEndpoint() throws Exception {
        String q = SearchTestPeer.enc(STRAY_QUOTES);
        List<String> endpoints = List.of("/api/search?q=" + q, "/api/search/stream?q=" + q,
                "/yacysearch.json?query=" + q, "/yacysearch.rss?query=" + q, "/solr/select?q=" + q,
                "/solr/select?wt=xml&q=" + q, "/solr/peerdex/select?q=" + q, "/suggest.json?query=" + q,
                "/api/search?q=" + SearchTestPeer.enc("backup \"tarn_dump"),
                "/yacysearch.rss?query=" + SearchTestPeer.enc("\"write-ahead log"));
        for (String e : endpoints) {
            HttpResponse<String> r = peer.get(e);
            assertEquals(200, r.statusCode(), e + " -> " + r.body());
        }
        // the lenient reading still searches: an unclosed phrase runs to the end of the query
        assertTrue(SearchApiTest.urls(peer.search("backup \"tarn_dump", null)).get(0).endsWith("/backup.html"));
    }

    @Test
    void yacySearchRssAnswersErrorsAsRssFeeds() throws Exception {
        for (String pathAndQuery : List.of("/yacysearch.rss", "/yacysearch.rss?query=" + SearchTestPeer.enc("-a -b"),
                "/yacysearch.rss?query=x&maximumRecords=many", "/yacysearch.rss?query=x&urlmaskfilter=%28")) {
            HttpResponse<String> r = peer.get(pathAndQuery);
            assertEquals(400, r.statusCode(), pathAndQuery + " -> " + r.body());
            Element rss = rss(r);
            String description = rss.getElementsByTagName("description").item(0).getTextContent();
            assertTrue(description.length() > 5, pathAndQuery + " -> " + r.body());
        }
        HttpResponse<String> post = peer.http.send(HttpRequest.newBuilder(URI.create(peer.base()
                + "/yacysearch.rss?query=x")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
        rss(post);
        // the JSON interface keeps JSON errors
        assertTrue(Json.MAPPER.readTree(peer.get("/yacysearch.json").body()).get("error").isTextual());
    }

    @Test
    void unknownSolrPathsAnswerSolrsErrorShape() throws Exception {
        for (String path : List.of("/solr/nothing", "/solr/peerdex/update", "/solr/peerdex/admin/ping?wt=json",
                "/solr")) {
            HttpResponse<String> r = peer.get(path);
            assertEquals(404, r.statusCode(), path);
            JsonNode body = Json.MAPPER.readTree(r.body());
            assertEquals(404, body.get("responseHeader").get("status").asInt(), path + " -> " + r.body());
            assertTrue(body.get("responseHeader").has("QTime"), r.body());
            assertEquals(404, body.get("error").get("code").asInt(), r.body());
            assertTrue(body.get("error").get("msg").isTextual(), r.body());
        }
        HttpResponse<String> xml = peer.get("/solr/peerdex/update?wt=xml");
        assertEquals(404, xml.statusCode());
        assertEquals("404", solrXmlError(xml, "code"));
        // the select's own errors follow wt too
        HttpResponse<String> badRows = peer.get("/solr/select?q=backup&rows=-1&wt=xml");
        assertEquals(400, badRows.statusCode());
        assertTrue(solrXmlError(badRows, "msg").contains("rows"), badRows.body());
        // and SolrJ reads them as the server's error, not as an unreadable answer
        try (HttpJdkSolrClient solr = SolrSelectTest.xmlClient("peerdex")) {
            BaseHttpSolrClient.RemoteSolrException e = assertThrows(BaseHttpSolrClient.RemoteSolrException.class,
                    () -> new SolrPing().process(solr));
            assertEquals(404, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("not found"), e.getMessage());
        }
    }

    private static Element rss(HttpResponse<String> r) throws Exception {
        assertTrue(r.headers().firstValue("Content-Type").orElse("").contains("xml"), r.headers().toString());
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(r.body().getBytes(StandardCharsets.UTF_8)));
        assertEquals("rss", doc.getDocumentElement().getTagName(), r.body());
        return doc.getDocumentElement();
    }

    /** A named value of the {@code <lst name="error">} of a Solr XML answer. */
    private static String solrXmlError(HttpResponse<String> r, String name) throws Exception {
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(r.body().getBytes(StandardCharsets.UTF_8)));
        var lists = doc.getElementsByTagName("lst");
        for (int i = 0; i < lists.getLength(); i++) {
            Element l = (Element) lists.item(i);
            if (!l.getAttribute("name").equals("error")) continue;
            var children = l.getChildNodes();
            for (int j = 0; j < children.getLength(); j++) {
                if (children.item(j) instanceof Element c && c.getAttribute("name").equals(name)) return c.getTextContent();
            }
        }
        throw new AssertionError("no error " + name + " in " + r.body());
    }
}
