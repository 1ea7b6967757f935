package org.peerdex.node.http;

import java.net.URI;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.Uri;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.actors.search.Navigators;
import org.peerdex.actors.search.QueryCoordinator;
import org.peerdex.actors.search.SearchRequest;
import org.peerdex.actors.search.SearchResult;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.meta.PageImage;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.extractUri;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.parameterMap;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.redirect;

/**
 * Interfaces other tools already speak: YaCy's {@code /yacysearch.json} and {@code /yacysearch.rss} (so SearXNG's
 * YaCy engine works unchanged), OpenSearch's {@code /opensearchdescription.xml} and {@code /suggest.json}.
 */
public final class CompatRoutes {
    private static final DateTimeFormatter RFC_822 = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss Z",
            Locale.ROOT);
    private static final ContentType.WithCharset XML_UTF8 = MediaTypes.APPLICATION_XML.toContentType(HttpCharsets.UTF_8);
    /** Result pages whose images an image search looks at. */
    static final int IMAGE_SEARCH_PAGES = SearchRequest.MAX_COUNT;
    private final SearchBackend backend;
    private final PeerStorage storage;

    public CompatRoutes(SearchBackend backend, PeerStorage storage) {
        this.backend = backend;
        this.storage = storage;
    }

    public Route route() {
        return concat(
                path("yacysearch.json", () -> get(() -> extractUri(uri -> parameterMap(p -> yacySearch(p, false,
                        base(uri)))))),
                path("yacysearch.rss", () -> get(() -> extractUri(uri -> parameterMap(p -> yacySearch(p, true,
                        base(uri)))))),
                // YaCy's search page: the channel link of yacysearch.json points here; it opens our search page
                path("yacysearch.html", () -> get(() -> parameterMap(p -> redirect(Uri.create(searchPage(p)),
                        StatusCodes.SEE_OTHER)))),
                path("opensearchdescription.xml", () -> get(() -> extractUri(uri -> complete(HttpResponse.create()
                        .withEntity(HttpEntities.create(MediaTypes.applicationWithFixedCharset(
                                "opensearchdescription+xml", HttpCharsets.UTF_8).toContentType(),
                                openSearch(base(uri)))))))),
                path("suggest.json", () -> get(() -> parameterMap(p -> {
                    String q = p.getOrDefault("query", p.getOrDefault("q", ""));
                    int max = Math.max(1, Math.min(20, SearchRoutes.intParam(p, "count", 10)));
                    if (q.isBlank()) return suggestions(q, List.of());
                    // the snapshot is (re)built on the blocking dispatcher, never on the HTTP one
                    return onSuccess(backend.suggestions(), s -> suggestions(q, s.complete(q, max)));
                }))));
    }

    private static Route suggestions(String q, List<String> completions) {
        return complete(HttpResponse.create().withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON,
                Json.write(List.of(q, completions)))));
    }

    /**
     * The base URL of the request ({@code http://host:port}): its host is the request's {@code Host}, which
     * {@link WebBoundary} has checked against the peer's names before any route runs.
     */
    static String base(Uri uri) {
        return base(uri.getScheme(), uri.getHost().address(), uri.getPort());
    }

    /** {@code /yacysearch.html?query=..&startRecord=..&resource=..} as our search page's {@code /?q=..&offset=..}. */
    static String searchPage(Map<String, String> p) {
        String query = p.getOrDefault("query", p.getOrDefault("q", ""));
        if (query.isBlank()) return "/";
        int start = Math.max(0, Math.min(SearchRequest.MAX_OFFSET, SearchRoutes.intParam(p, "startRecord", 0)));
        return "/?q=" + enc(query) + (start > 0 ? "&offset=" + start : "")
                + ("global".equals(p.get("resource")) ? "&resource=global" : "");
    }

    static String base(String scheme, String host, int port) {
        return scheme + "://" + host + (port > 0 ? ":" + port : "");
    }

    private Route yacySearch(Map<String, String> p, boolean rss, String base) {
        String query = p.getOrDefault("query", p.get("q"));
        if (query == null) throw new IllegalArgumentException("missing query parameter 'query'");
        String searchQuery = withLanguage(query, p.get("lr"));
        int max = Math.max(1, Math.min(SearchRequest.MAX_COUNT, SearchRoutes.intParam(p, "maximumRecords", 10)));
        int start = Math.max(0, SearchRoutes.intParam(p, "startRecord", 0));
        String mask = p.getOrDefault("urlmaskfilter", ".*");
        Pattern urlMask;
        try {
            urlMask = Pattern.compile(mask.isBlank() ? ".*" : mask);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("urlmaskfilter is not a regular expression: " + e.getDescription());
        }
        boolean masked = !mask.isBlank() && !mask.equals(".*");
        // a URL mask filters after ranking: ask for more so the page still fills
        int count = masked ? Math.min(SearchRequest.MAX_COUNT, max * 3) : max;
        String verify = p.getOrDefault("verify", "false");
        if (verify.equals("ifexist")) verify = "cacheonly";
        String contentdom = p.getOrDefault("contentdom", "text");
        if (contentdom.equals("text") || contentdom.isBlank()) contentdom = "text";
        SearchRequest r = new SearchRequest(QueryParser.parse(searchQuery), count, Math.min(start, SearchRequest.MAX_OFFSET),
                p.getOrDefault("resource", "local").equals("global") ? "global" : "local", verify,
                Navigators.parse(p.getOrDefault("nav", "all")), false, contentdom,
                SearchRequest.parseFederated(p.get("federated")));
        if (contentdom.equals("image")) {
            // an image search: the images of the best-ranked pages, paged over images, not pages
            SearchRequest pages = new SearchRequest(r.query(), IMAGE_SEARCH_PAGES, 0, r.resource(), verify,
                    r.navigators(), false, "image", r.federated());
            return onSuccess(backend.service().search(pages).thenApplyAsync(d -> imageItems(d, r, urlMask, masked),
                    backend.blocking()), images -> {
                List<Map<String, Object>> page = images.subList(Math.min(start, images.size()),
                        Math.min(start + max, images.size()));
                if (rss) {
                    return complete(HttpResponse.create().withEntity(HttpEntities.create(XML_UTF8,
                            imageRss(query, images.size(), page, start, max, base))));
                }
                Map<String, Object> out = json(query, images.size(), Map.of(), List.of(), start, max, r, base);
                @SuppressWarnings("unchecked")
                Map<String, Object> channel = ((List<Map<String, Object>>) out.get("channels")).get(0);
                channel.put("items", page);
                return complete(HttpResponse.create().withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON,
                        Json.write(out))));
            });
        }
        return onSuccess(backend.service().search(r), d -> {
            List<SearchResult> results = new ArrayList<>();
            for (SearchResult sr : d.results()) {
                if (results.size() < max && (!masked || urlMask.matcher(sr.url()).matches())) results.add(sr);
            }
            if (rss) {
                return complete(HttpResponse.create().withEntity(HttpEntities.create(XML_UTF8,
                        rss(query, d, results, start, max, base))));
            }
            return complete(HttpResponse.create().withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON,
                    Json.write(json(query, d.total(), d.navigators(), results, start, max, r, base)))));
        });
    }

    /** YaCy's (and Google's) {@code lr=lang_xx}, which SearXNG sends, as a {@code lang:xx} modifier. */
    static String withLanguage(String query, String lr) {
        if (lr == null || !lr.matches("lang_[A-Za-z]{2,3}") || query.contains("lang:")) return query;
        return query + " lang:" + lr.substring(5).toLowerCase(Locale.ROOT);
    }

    static Map<String, Object> json(String query, long total, Map<String, List<Navigators.Entry>> navigators,
                                    List<SearchResult> results, int start, int max, SearchRequest r, String base) {
        List<Map<String, Object>> items = new ArrayList<>();
        for (SearchResult sr : results) items.add(item(sr));
        Map<String, Object> channel = new LinkedHashMap<>();
        channel.put("title", "Peerdex search for " + query);
        channel.put("description", "Search for " + query);
        channel.put("link", base + "/yacysearch.html?query=" + enc(query) + "&resource=" + r.resource()
                + "&contentdom=" + r.contentDomain());
        channel.put("image", Map.of("url", base + "/favicon.ico", "title", "Search for " + query, "link", base + "/"));
        // YaCy renders these counters as strings
        channel.put("totalResults", String.valueOf(total));
        channel.put("startIndex", String.valueOf(start));
        channel.put("itemsPerPage", String.valueOf(max));
        channel.put("searchTerms", query);
        channel.put("items", items);
        List<Map<String, Object>> navigation = new ArrayList<>();
        navigators.forEach((facet, entries) -> {
            List<Map<String, Object>> elements = new ArrayList<>();
            for (Navigators.Entry e : entries) {
                elements.add(Map.of("name", e.value(), "count", String.valueOf(e.count()), "modifier", e.modifier(),
                        "url", "/yacysearch.json?query=" + enc(query + " " + e.modifier())));
            }
            navigation.add(Map.of("facetname", facet, "displayname", facet, "type", "String", "min", "0",
                    "max", "0", "mean", "0", "elements", elements));
        });
        channel.put("navigation", navigation);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("channels", List.of(channel));
        return out;
    }

    /**
     * The image items of an image search: the images of the result pages recorded here (the main content's
     * {@code img} elements), each once, in the pages' order, those whose alt or surrounding text has a query word
     * first. Each item is what YaCy's image search gives and SearXNG's "yacy images" engine reads: {@code image} the
     * picture's URL, {@code url} and {@code link} the page showing it, {@code title} its alt text (else the page's
     * title), {@code description} the text around it.
     */
    List<Map<String, Object>> imageItems(QueryCoordinator.Done d, SearchRequest r, Pattern urlMask, boolean masked) {
        Set<String> words = new HashSet<>();
        for (String w : r.query().highlightWords()) words.add(w.toLowerCase(Locale.ROOT));
        List<Map<String, Object>> matching = new ArrayList<>();
        List<Map<String, Object>> others = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (SearchResult sr : d.results()) {
            for (PageImage img : storage.metadata().images(new UrlHash(sr.urlHash()))) {
                if (masked && !urlMask.matcher(img.src()).matches() || !seen.add(img.src())) continue;
                Map<String, Object> item = imageItem(sr, img);
                (mentions(img.alt() + " " + img.text(), words) ? matching : others).add(item);
            }
        }
        matching.addAll(others);
        return matching;
    }

    private static boolean mentions(String text, Set<String> words) {
        for (String t : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}_]+")) {
            if (words.contains(t)) return true;
        }
        return false;
    }

    static Map<String, Object> imageItem(SearchResult page, PageImage img) {
        Map<String, Object> m = new LinkedHashMap<>();
        URI u = URI.create(img.src());
        String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
        m.put("title", img.alt().isBlank() ? page.title() : img.alt());
        m.put("link", page.url());
        m.put("url", page.url());
        m.put("image", img.src());
        m.put("description", img.text());
        m.put("pubDate", rfc822(page.lastModified()));
        m.put("host", page.host());
        m.put("path", path);
        m.put("file", path.substring(path.lastIndexOf('/') + 1));
        m.put("guid", UrlHash.of(img.src()).value());
        m.put("urlhash", page.urlHash());
        m.put("ranking", String.valueOf(page.score()));
        return m;
    }

    static String imageRss(String query, long total, List<Map<String, Object>> items, int start, int max,
                           String base) {
        StringBuilder b = new StringBuilder();
        b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append("<rss version=\"2.0\" xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\"")
                .append(" xmlns:media=\"http://search.yahoo.com/mrss/\">\n<channel>\n");
        b.append("<title>").append(xml("Peerdex image search for " + query)).append("</title>\n");
        b.append("<description>").append(xml("Images for " + query)).append("</description>\n");
        b.append("<link>").append(xml(base + "/yacysearch.html?query=" + enc(query))).append("</link>\n");
        b.append("<opensearch:totalResults>").append(total).append("</opensearch:totalResults>\n");
        b.append("<opensearch:startIndex>").append(start).append("</opensearch:startIndex>\n");
        b.append("<opensearch:itemsPerPage>").append(max).append("</opensearch:itemsPerPage>\n");
        for (Map<String, Object> it : items) {
            b.append("<item>\n<title>").append(xml((String) it.get("title"))).append("</title>\n");
            b.append("<link>").append(xml((String) it.get("link"))).append("</link>\n");
            b.append("<description>").append(xml((String) it.get("description"))).append("</description>\n");
            b.append("<media:content url=\"").append(xml((String) it.get("image"))).append("\" medium=\"image\"/>\n");
            b.append("<guid isPermaLink=\"false\">").append(it.get("guid")).append("</guid>\n</item>\n");
        }
        return b.append("</channel>\n</rss>\n").toString();
    }

    static Map<String, Object> item(SearchResult sr) {
        Map<String, Object> m = new LinkedHashMap<>();
        URI u = URI.create(sr.url());
        String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
        String file = path.substring(path.lastIndexOf('/') + 1);
        m.put("title", sr.title());
        m.put("link", sr.url());
        m.put("code", "");
        m.put("description", sr.snippet());
        m.put("pubDate", rfc822(sr.lastModified()));
        m.put("size", String.valueOf(sr.size()));
        m.put("sizename", sizeName(sr.size()));
        m.put("guid", sr.urlHash());
        m.put("faviconUrl", u.getScheme() + "://" + u.getRawAuthority() + "/favicon.ico");
        m.put("host", sr.host());
        m.put("path", path);
        m.put("file", file);
        m.put("urlhash", sr.urlHash());
        m.put("ranking", String.valueOf(sr.score()));
        return m;
    }

    /** An RFC 822 date as YaCy writes it; the epoch when the document's date is unknown (clients parse it). */
    static String rfc822(long epochMillis) {
        return RFC_822.format(Instant.ofEpochMilli(Math.max(0, epochMillis)).atOffset(ZoneOffset.UTC));
    }

    static String sizeName(long bytes) {
        if (bytes < 1024) return bytes + " bytes";
        if (bytes < 1024 * 1024) return (bytes / 1024) + " kbyte";
        return (bytes / (1024 * 1024)) + " mbyte";
    }

    static String rss(String query, QueryCoordinator.Done d, List<SearchResult> results, int start, int max,
                      String base) {
        StringBuilder b = new StringBuilder();
        b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append("<rss version=\"2.0\" xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\"")
                .append(" xmlns:yacy=\"http://www.yacy.net/\" xmlns:atom=\"http://www.w3.org/2005/Atom\">\n<channel>\n");
        b.append("<title>").append(xml("Peerdex search for " + query)).append("</title>\n");
        b.append("<description>").append(xml("Search for " + query)).append("</description>\n");
        // RSS 2.0 wants the channel link absolute; it opens the search page with this query
        b.append("<link>").append(xml(base + "/yacysearch.html?query=" + enc(query))).append("</link>\n");
        b.append("<opensearch:totalResults>").append(d.total()).append("</opensearch:totalResults>\n");
        b.append("<opensearch:startIndex>").append(start).append("</opensearch:startIndex>\n");
        b.append("<opensearch:itemsPerPage>").append(max).append("</opensearch:itemsPerPage>\n");
        b.append("<opensearch:Query role=\"request\" searchTerms=\"").append(xml(query)).append("\"/>\n");
        for (SearchResult sr : results) {
            b.append("<item>\n<title>").append(xml(sr.title())).append("</title>\n");
            b.append("<link>").append(xml(sr.url())).append("</link>\n");
            b.append("<description>").append(xml(sr.snippet())).append("</description>\n");
            b.append("<pubDate>").append(rfc822(sr.lastModified())).append("</pubDate>\n");
            b.append("<yacy:size>").append(sr.size()).append("</yacy:size>\n");
            b.append("<yacy:host>").append(xml(sr.host())).append("</yacy:host>\n");
            b.append("<guid isPermaLink=\"false\">").append(sr.urlHash()).append("</guid>\n</item>\n");
        }
        b.append("</channel>\n</rss>\n");
        return b.toString();
    }

    /**
     * An error as an RSS feed with no items (status set by the caller): a feed reader shows the message instead of
     * failing to parse JSON.
     */
    static HttpEntity.Strict rssError(String message, String base) {
        String body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<rss version=\"2.0\" xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\">\n<channel>\n"
                + "<title>Peerdex search: error</title>\n"
                + "<link>" + xml(base) + "/</link>\n"
                + "<description>" + xml(message) + "</description>\n"
                + "<opensearch:totalResults>0</opensearch:totalResults>\n"
                + "</channel>\n</rss>\n";
        return HttpEntities.create(XML_UTF8, body);
    }

    static String openSearch(String base) {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<OpenSearchDescription xmlns=\"http://a9.com/-/spec/opensearch/1.1/\">\n"
                + "  <ShortName>Peerdex</ShortName>\n"
                + "  <Description>Peerdex peer-to-peer search</Description>\n"
                + "  <InputEncoding>UTF-8</InputEncoding>\n"
                + "  <OutputEncoding>UTF-8</OutputEncoding>\n"
                + "  <Url type=\"text/html\" method=\"get\" template=\"" + xml(base) + "/?q={searchTerms}\"/>\n"
                + "  <Url type=\"application/rss+xml\" method=\"get\" template=\"" + xml(base)
                + "/yacysearch.rss?query={searchTerms}&amp;startRecord={startIndex?}&amp;maximumRecords={count?}\"/>\n"
                + "  <Url type=\"application/json\" method=\"get\" template=\"" + xml(base)
                + "/yacysearch.json?query={searchTerms}&amp;startRecord={startIndex?}&amp;maximumRecords={count?}\"/>\n"
                + "  <Url type=\"application/x-suggestions+json\" method=\"get\" template=\"" + xml(base)
                + "/suggest.json?query={searchTerms}\"/>\n"
                + "</OpenSearchDescription>\n";
    }

    static String xml(String s) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> {
                    if (c >= 0x20 || c == '\n' || c == '\t' || c == '\r') b.append(c);
                }
            }
        }
        return b.toString();
    }

    static String enc(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
    }
}
