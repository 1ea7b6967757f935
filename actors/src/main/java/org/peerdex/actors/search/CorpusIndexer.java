package org.peerdex.actors.search;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.peerdex.actors.search.ranking.HostPageRank;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.url.UrlNormalizer;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;

/**
 * Indexes a directory of HTML files as if crawled under a base URL, in two passes so each page also gets the
 * anchor texts of the links pointing to it; returns the host link graph for {@link HostPageRank}. For test
 * corpora, the bundled manual and benchmarks. Blocking.
 */
public final class CorpusIndexer {
    private static final Pattern META_DATE = Pattern.compile("<meta name=\"date\" content=\"(\\d{4}-\\d{2}-\\d{2})\"");

    /** What was indexed: URL → URL hash, and the host-level link edges. */
    public record Result(Map<String, UrlHash> urls, List<HostPageRank.Edge> hostEdges, Map<String, HtmlText.Page> pages) {}

    private CorpusIndexer() {}

    /** Indexes up to {@code max} .html files under {@code root}, each at {@code baseUrl + relative path}. */
    public static Result index(PeerStorage storage, Path root, String baseUrl, int max) {
        Parsed p = parse(root, baseUrl, max);
        Map<String, UrlHash> urls = new LinkedHashMap<>();
        for (Map.Entry<String, HtmlText.Page> e : p.pages().entrySet()) {
            urls.put(e.getKey(), PageIndexer.index(storage, e.getKey(), e.getValue(), p.dates().getOrDefault(e.getKey(), 0L),
                    p.anchors().getOrDefault(e.getKey(), List.of())));
        }
        storage.writer().flush();
        return new Result(urls, p.edges(), p.pages());
    }

    /** The documents {@link #index} would write (same parse, anchors and dates), in file order, and the parsed pages. */
    public record Documents(List<IndexedDocument> documents, Map<String, HtmlText.Page> pages) {}

    /** What {@link #index} writes into a peer's storage, without a storage: to feed the same corpus elsewhere. */
    public static Documents documents(Path root, String baseUrl, int max) {
        Parsed p = parse(root, baseUrl, max);
        List<IndexedDocument> docs = new ArrayList<>();
        for (Map.Entry<String, HtmlText.Page> e : p.pages().entrySet()) {
            docs.add(PageIndexer.document(e.getKey(), e.getValue(), p.dates().getOrDefault(e.getKey(), 0L),
                    p.anchors().getOrDefault(e.getKey(), List.of())));
        }
        return new Documents(docs, p.pages());
    }

    private record Parsed(Map<String, HtmlText.Page> pages, Map<String, Long> dates, Map<String, List<String>> anchors,
                          List<HostPageRank.Edge> edges) {}

    private static Parsed parse(Path root, String baseUrl, int max) {
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.toString().endsWith(".html") || p.toString().endsWith(".htm")).sorted()
                    .limit(max).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, HtmlText.Page> pages = new LinkedHashMap<>();
        Map<String, Long> dates = new HashMap<>();
        for (Path f : files) {
            String rel = root.relativize(f).toString().replace('\\', '/');
            String url = UrlNormalizer.normalize(baseUrl + rel).orElse(null);
            if (url == null) continue;
            String html;
            try {
                html = Files.readString(f, StandardCharsets.UTF_8);
            } catch (IOException e) {
                try {
                    html = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                } catch (IOException e2) {
                    continue;
                }
            }
            pages.put(url, HtmlText.parse(html, url));
            Matcher m = META_DATE.matcher(html);
            if (m.find()) {
                dates.put(url, LocalDate.parse(m.group(1)).atStartOfDay(ZoneOffset.UTC)
                        .toInstant().toEpochMilli());
            }
        }
        Map<String, List<String>> anchors = new HashMap<>();
        List<HostPageRank.Edge> edges = new ArrayList<>();
        for (Map.Entry<String, HtmlText.Page> e : pages.entrySet()) {
            String fromHost = UrlHash.ofNormalized(e.getKey()).hostHash();
            for (HtmlText.Link l : e.getValue().links()) {
                String target = UrlNormalizer.normalize(l.url()).orElse(null);
                if (target == null) continue;
                if (pages.containsKey(target) && !target.equals(e.getKey()) && !l.anchor().isBlank()) {
                    List<String> list = anchors.computeIfAbsent(target, k -> new ArrayList<>());
                    if (list.size() < 50 && !list.contains(l.anchor())) list.add(l.anchor());
                }
                try {
                    edges.add(new HostPageRank.Edge(fromHost, UrlHash.ofNormalized(target).hostHash()));
                } catch (RuntimeException ignored) {
                    // a link we cannot hash is no edge
                }
            }
        }
        return new Parsed(pages, dates, anchors, edges);
    }
}
