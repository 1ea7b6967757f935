package org.peerdex.actors.search.federation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.search.federation.FederatedSourceConfig.Kind;

class ResultParsersTest {
    static List<ResultParsers.Hit> parse(Kind kind, String body) {
        return ResultParsers.parse(kind, body.getBytes(StandardCharsets.UTF_8), 100);
    }

    @Test
    void yacyJsonItemsBecomeHitsWithPlainTextAndDates() {
        List<ResultParsers.Hit> hits = parse(Kind.YACY_JSON, "{\"channels\":[{\"items\":[{\"title\":\"Tarn <b>backup</b>\","
                + "\"link\":\"http://a.test/x\",\"description\":\"how to <b>back up</b> &amp; restore\","
                + "\"pubDate\":\"Tue, 03 Jun 2008 11:05:30 GMT\"},{\"title\":\"no link\"},"
                + "{\"title\":\"ftp\",\"link\":\"ftp://a.test/y\"}]}]}");
        assertEquals(1, hits.size(), hits.toString());
        assertEquals("Tarn backup", hits.get(0).title());
        assertEquals("how to back up & restore", hits.get(0).snippet());
        assertEquals(1212491130000L, hits.get(0).lastModified());
    }

    @Test
    void rssItemsBecomeHits() {
        List<ResultParsers.Hit> hits = parse(Kind.OPENSEARCH_RSS, "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel>"
                + "<title>t</title><link>http://s.test/</link><description>d</description>"
                + "<item><title>One</title><link>http://a.test/1</link><description>first</description></item>"
                + "<item><title>Two</title><link>https://a.test/2</link><description>second</description></item>"
                + "</channel></rss>");
        assertEquals(List.of("http://a.test/1", "https://a.test/2"), hits.stream().map(ResultParsers.Hit::url).toList());
        assertEquals("second", hits.get(1).snippet());
    }

    @Test
    void rssWithADoctypeIsRefusedSoNoExternalEntityIsRead() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(Kind.OPENSEARCH_RSS,
                "<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><rss version=\"2.0\">"
                        + "<channel><item><title>&x;</title><link>http://a.test/</link></item></channel></rss>"));
        assertTrue(e.getMessage().startsWith("not an OpenSearch RSS feed"), e.getMessage());
    }

    @Test
    void openSearchJsonReadsResultObjectsAndTheSuggestionsForm() {
        assertEquals("http://a.test/1", parse(Kind.OPENSEARCH_JSON,
                "{\"results\":[{\"url\":\"http://a.test/1\",\"title\":\"One\",\"content\":\"c\"}]}").get(0).url());
        List<ResultParsers.Hit> s = parse(Kind.OPENSEARCH_JSON,
                "[\"tarn\",[\"Tarn one\",\"Tarn two\"],[\"d1\",\"d2\"],[\"http://a.test/1\",\"http://a.test/2\"]]");
        assertEquals(2, s.size());
        assertEquals("Tarn two", s.get(1).title());
        assertEquals("d2", s.get(1).snippet());
    }

    @Test
    void solrDocsReadUrlFromSkuAndTitleFromAnArray() {
        List<ResultParsers.Hit> hits = parse(Kind.SOLR, "{\"response\":{\"numFound\":2,\"docs\":["
                + "{\"id\":\"AAAAAAAAAAAA\",\"sku\":\"http://a.test/1\",\"title\":[\"One\"],\"description\":[\"first\"]},"
                + "{\"id\":\"http://a.test/2\",\"title\":\"Two\",\"last_modified\":\"2024-05-01T00:00:00Z\"}]}}");
        assertEquals(List.of("http://a.test/1", "http://a.test/2"), hits.stream().map(ResultParsers.Hit::url).toList());
        assertEquals("One", hits.get(0).title());
        assertEquals("first", hits.get(0).snippet());
        assertEquals(1714521600000L, hits.get(1).lastModified());
    }

    @Test
    void anAnswerInAnotherFormatIsRefusedWithWhatWasExpected() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse(Kind.YACY_JSON, "<html>"))
                .getMessage().startsWith("not YaCy JSON"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse(Kind.SOLR, "{\"channels\":[]}"))
                .getMessage().contains("response.docs"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse(Kind.OPENSEARCH_JSON, "{\"x\":1}"))
                .getMessage().startsWith("not OpenSearch JSON"));
        assertThrows(IllegalArgumentException.class, () -> parse(Kind.OPENSEARCH_RSS, "{\"results\":[]}"));
    }

    @Test
    void atMostMaxResultsAreRead() {
        StringBuilder b = new StringBuilder("{\"results\":[");
        for (int i = 0; i < 50; i++) b.append(i == 0 ? "" : ",").append("{\"url\":\"http://a.test/").append(i).append("\"}");
        b.append("]}");
        assertEquals(7, ResultParsers.parse(Kind.OPENSEARCH_JSON, b.toString().getBytes(StandardCharsets.UTF_8), 7).size());
    }

    @Test
    void sourceConfigsAreValidatedAndTakeDefaults() {
        FederatedSourceConfig c = FederatedSourceConfig.fromMap(Map.of("name", "b", "kind", "solr",
                "url", "http://127.0.0.1:9/solr/select?q={query}&rows={count}", "timeout", "750ms"));
        assertEquals(750, c.timeout().toMillis());
        assertEquals(1 << 20, c.maxBytes());
        assertTrue(c.enabled());
        assertEquals("http://127.0.0.1:9/solr/select?q=a+%26+b&rows=20", c.uri("a & b", 50).toString());
        assertEquals(c, FederatedSourceConfig.fromMap(c.toMap()));
        for (Map<String, Object> bad : List.<Map<String, Object>>of(
                Map.of("name", "b", "kind", "solr", "url", "file:///etc/passwd?{query}"),
                Map.of("name", "dht", "kind", "solr", "url", "http://x/{query}"),
                Map.of("name", "b", "kind", "solr", "url", "http://x/{query}", "timeout", "1h"),
                Map.of("name", "b", "kind", "solr", "url", "http://x/{query}", "weight", -1),
                Map.of("name", "b c", "kind", "solr", "url", "http://x/{query}"))) {
            assertThrows(IllegalArgumentException.class, () -> FederatedSourceConfig.fromMap(bad), bad.toString());
        }
    }
}
