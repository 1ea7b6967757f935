package org.peerdex.actors.search.federation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.rometools.rome.feed.synd.SyndEntry;
import com.rometools.rome.feed.synd.SyndFeed;
import com.rometools.rome.io.SyndFeedInput;
import com.rometools.rome.io.XmlReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import org.jsoup.Jsoup;

/**
 * Reads the answer of a federated source into results, one parser per {@link FederatedSourceConfig.Kind}: YaCy's
 * {@code yacysearch.json}, an OpenSearch RSS feed, OpenSearch-style JSON (an object with a {@code results},
 * {@code items} or {@code hits} array, or the four-array suggestions form with URLs), and Solr's {@code select}
 * JSON. What is not the announced format is refused with an {@link IllegalArgumentException} that says why.
 * Titles and snippets are reduced to plain text; entries without an http(s) URL are skipped.
 */
public final class ResultParsers {
    /** One result as a source listed it. */
    public record Hit(String url, String title, String snippet, long lastModified) {}

    static final int MAX_TITLE = 300;
    static final int MAX_SNIPPET = 600;
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private ResultParsers() {}

    public static List<Hit> parse(FederatedSourceConfig.Kind kind, byte[] body, int max) {
        List<Hit> hits = switch (kind) {
            case YACY_JSON -> yacyJson(json(body, "YaCy JSON"));
            case OPENSEARCH_JSON -> openSearchJson(json(body, "OpenSearch JSON"));
            case SOLR -> solr(json(body, "Solr JSON"));
            case OPENSEARCH_RSS -> rss(body);
        };
        return hits.size() > max ? List.copyOf(hits.subList(0, max)) : hits;
    }

    private static JsonNode json(byte[] body, String what) {
        try {
            JsonNode n = JSON.readTree(body);
            if (n == null || n.isMissingNode()) throw new IllegalArgumentException("empty answer, expected " + what);
            return n;
        } catch (IOException e) {
            throw new IllegalArgumentException("not " + what + ": " + firstLine(e.getMessage()));
        }
    }

    static List<Hit> yacyJson(JsonNode root) {
        JsonNode channels = root.path("channels");
        if (!channels.isArray()) throw new IllegalArgumentException("not YaCy JSON: no \"channels\" array");
        List<Hit> out = new ArrayList<>();
        for (JsonNode ch : channels) {
            for (JsonNode item : ch.path("items")) {
                add(out, text(item, "link"), text(item, "title"), text(item, "description"), date(text(item, "pubDate")));
            }
        }
        return out;
    }

    static List<Hit> openSearchJson(JsonNode root) {
        List<Hit> out = new ArrayList<>();
        if (root.isArray()) {
            // the OpenSearch suggestions form: [query, [completions], [descriptions], [urls]]
            if (root.size() < 4 || !root.get(1).isArray() || !root.get(3).isArray()) {
                throw new IllegalArgumentException("not OpenSearch JSON: an array without the four suggestion lists");
            }
            for (int i = 0; i < root.get(3).size(); i++) {
                add(out, root.get(3).path(i).asText(""), root.get(1).path(i).asText(""), root.get(2).path(i).asText(""), 0);
            }
            return out;
        }
        JsonNode list = null;
        for (String key : List.of("results", "items", "hits", "data")) {
            if (root.path(key).isArray()) {
                list = root.get(key);
                break;
            }
        }
        if (list == null) throw new IllegalArgumentException("not OpenSearch JSON: no results, items or hits array");
        for (JsonNode item : list) {
            add(out, first(item, "url", "link", "href"), first(item, "title", "name"),
                    first(item, "snippet", "content", "description", "summary", "abstract"),
                    date(first(item, "date", "publishedDate", "pubDate", "published")));
        }
        return out;
    }

    static List<Hit> solr(JsonNode root) {
        JsonNode docs = root.path("response").path("docs");
        if (!docs.isArray()) throw new IllegalArgumentException("not Solr JSON: no response.docs array");
        List<Hit> out = new ArrayList<>();
        for (JsonNode d : docs) {
            String url = first(d, "sku", "url", "link", "url_s");
            if (url.isEmpty() && text(d, "id").startsWith("http")) url = text(d, "id");
            add(out, url, first(d, "title", "title_s"), first(d, "description", "description_txt", "snippet",
                    "content", "text_t"), date(first(d, "last_modified", "date", "lastModified")));
        }
        return out;
    }

    static List<Hit> rss(byte[] body) {
        SyndFeed feed;
        try {
            SyndFeedInput in = new SyndFeedInput();
            in.setAllowDoctypes(false); // no DTDs, so no external entities
            feed = in.build(new XmlReader(new ByteArrayInputStream(body)));
        } catch (Exception e) {
            throw new IllegalArgumentException("not an OpenSearch RSS feed: " + firstLine(e.getMessage()));
        }
        List<Hit> out = new ArrayList<>();
        for (SyndEntry e : feed.getEntries()) {
            String snippet = e.getDescription() == null ? "" : e.getDescription().getValue();
            Date d = e.getPublishedDate() != null ? e.getPublishedDate() : e.getUpdatedDate();
            add(out, e.getLink(), e.getTitle(), snippet, d == null ? 0 : d.getTime());
        }
        return out;
    }

    private static void add(List<Hit> out, String url, String title, String snippet, long date) {
        if (url == null) return;
        String u = url.trim();
        String lower = u.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("http://") && !lower.startsWith("https://")) return;
        try {
            if (URI.create(u).getHost() == null) return;
        } catch (IllegalArgumentException e) {
            return;
        }
        out.add(new Hit(u, plain(title, MAX_TITLE), plain(snippet, MAX_SNIPPET), date));
    }

    /** Plain text of a field that may carry HTML (YaCy and Solr highlight with tags), cut to a length. */
    static String plain(String s, int max) {
        if (s == null) return "";
        String t = s.indexOf('<') >= 0 || s.indexOf('&') >= 0 ? Jsoup.parse(s).text() : s.strip();
        t = t.replaceAll("\\s+", " ");
        return t.length() > max ? t.substring(0, max - 1) + "…" : t;
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.path(field);
        if (v.isArray()) v = v.path(0);
        return v.isValueNode() ? v.asText("") : "";
    }

    private static String first(JsonNode n, String... fields) {
        for (String f : fields) {
            String v = text(n, f);
            if (!v.isBlank()) return v;
        }
        return "";
    }

    /** RFC 822 (RSS, YaCy), ISO-8601 or epoch milliseconds; 0 when absent or unreadable. */
    static long date(String s) {
        if (s == null || s.isBlank()) return 0;
        String t = s.trim();
        try {
            if (t.matches("\\d{9,}")) return Long.parseLong(t);
            if (Character.isDigit(t.charAt(0))) {
                return t.length() == 10 ? LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC)
                        .toInstant().toEpochMilli() : Instant.parse(t).toEpochMilli();
            }
            return ZonedDateTime.parse(t, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static String firstLine(String s) {
        if (s == null) return "unreadable";
        int nl = s.indexOf('\n');
        String t = nl < 0 ? s : s.substring(0, nl);
        return t.length() > 200 ? t.substring(0, 200) : t;
    }
}
