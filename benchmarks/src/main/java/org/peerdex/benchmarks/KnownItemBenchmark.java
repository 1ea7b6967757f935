package org.peerdex.benchmarks;

import static org.peerdex.benchmarks.BenchPeers.freePort;
import static org.peerdex.benchmarks.BenchPeers.run;
import static org.peerdex.benchmarks.BenchPeers.send;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.peerdex.node.PeerNode;
import org.peerdex.node.http.Json;

/**
 * Known-item search quality through the whole real path: a peer <em>crawls</em> a documentation site served by
 * nginx on 127.0.0.1 ({@code /work/shared/corpus/serve-corpus.sh}), with the crawler's own parser, then answers
 * hand-written queries over HTTP ({@code /api/search?resource=local}); each query names the one page a user wants.
 * Prints each query's rank of its page (or "-" when not in the top 10) and the top result's snippet and top 3 for
 * the first queries, then MRR@10, recall@10, and how many of all the snippets shown hold the theme's navigation
 * text (Sphinx's "Previous topic", "Next topic", "Report a Bug", ... for python; DocBook's "Prev Up", "Home Next"
 * for postgres; both for another corpus), white space collapsed, with the first five such snippets.
 *
 * <p>The queries are written by hand, not drawn from the corpus with Peerdex's tokenizer (that would favour
 * Peerdex's own view of the text), one file per corpus in {@code src/main/resources/bench/}:
 * {@code python-known-items.tsv}, 92 queries over the Python 3.11 documentation (52 by a page's subject, 40 by
 * what its text says), and {@code postgres-known-items.tsv}, 98 queries over the PostgreSQL 15 documentation (50
 * by a page's subject, 48 by what its text says; no page under {@code /release}, which its robots.txt disallows).
 *
 * <p>Usage: {@code KnownItemBenchmark [CORPUS=python|postgres] [QUERIES=bench/CORPUS-known-items.tsv] [PORT=random]}.
 */
public final class KnownItemBenchmark {
    private static final String SERVE = System.getProperty("peerdex.serve-corpus", "/work/shared/corpus/serve-corpus.sh");
    /** Text of the Sphinx theme's navigation, sidebar and footer (Python docs): what a page's own text never holds. */
    private static final List<String> SPHINX_CHROME = List.of("Previous topic", "Next topic", "This Page",
            "Report a Bug", "Show Source", "Navigation index modules", "Table of Contents",
            "Python Software Foundation");
    /**
     * Text of the DocBook XSL navigation header and footer tables (PostgreSQL docs): "CREATE INDEX Prev Up SQL
     * Commands Home Next" above a page, "Prev Up Next CREATE GROUP Home CREATE LANGUAGE" below it. Not "Table of
     * Contents": in DocBook that heads a chapter page's own list of its sections, which is the page's content.
     */
    private static final List<String> DOCBOOK_CHROME = List.of("Prev Up", "Home Next", "Up Next");

    private KnownItemBenchmark() {}

    /** A query and the path (under the site root) of the page it looks for. */
    record KnownItem(String query, String path) {}

    public static void main(String[] args) throws Exception {
        String corpus = args.length > 0 ? args[0] : "python";
        String queries = args.length > 1 ? args[1] : "bench/" + corpus + "-known-items.tsv";
        int port = args.length > 2 ? Integer.parseInt(args[2]) : freePort();
        List<KnownItem> items = read(queries);
        List<String> chrome = switch (corpus) {
            case "python" -> SPHINX_CHROME;
            case "postgres" -> DOCBOOK_CHROME;
            default -> Stream.concat(SPHINX_CHROME.stream(), DOCBOOK_CHROME.stream()).toList();
        };
        run(SERVE, "start", Integer.toString(port), corpus);
        String site = "http://127.0.0.1:" + port + "/";
        Path data = Files.createTempDirectory("peerdex-known-item");
        try (PeerNode node = PeerNode.start(BenchPeers.config(data,
                Map.of("peerdex.mode", "portal", "peerdex.crawler.allow-loopback", true)))) {
            crawl(node, site + "index.html");
            double rr = 0;
            int found = 0;
            int snippets = 0;
            int chromeSnippets = 0;
            List<String> chromeShown = new ArrayList<>();
            for (int i = 0; i < items.size(); i++) {
                KnownItem k = items.get(i);
                JsonNode r = send(HttpRequest.newBuilder(URI.create(node.baseUrl()
                        + "/api/search?resource=local&count=10&q=" + URLEncoder.encode(k.query(), StandardCharsets.UTF_8))).GET());
                List<String> urls = new ArrayList<>();
                for (JsonNode n : r.get("results")) {
                    urls.add(n.get("url").asText());
                    String snippet = n.get("snippet").asText().replaceAll("\\s+", " ");
                    snippets++;
                    if (chrome.stream().anyMatch(snippet::contains)) {
                        chromeSnippets++;
                        if (chromeShown.size() < 5) {
                            chromeShown.add(n.get("url").asText().substring(site.length()) + " for \"" + k.query()
                                    + "\": " + snippet);
                        }
                    }
                }
                int rank = urls.indexOf(site + k.path());
                if (rank >= 0) {
                    rr += 1.0 / (rank + 1);
                    found++;
                }
                System.out.printf(Locale.ROOT, "%-4s %-48s %s%n", rank < 0 ? "-" : Integer.toString(rank + 1),
                        k.query(), rank == 0 ? "" : "top: " + (urls.isEmpty() ? "(none)" : urls.get(0).substring(site.length())));
                if (i < 3 && r.get("results").size() > 0) {
                    System.out.println("     snippet: " + r.get("results").get(0).get("snippet").asText());
                    System.out.println("     top 3: " + urls.subList(0, Math.min(3, urls.size())).stream()
                            .map(u -> u.substring(site.length())).toList());
                }
            }
            System.out.printf(Locale.ROOT, "%nknown-item (%s, %d hand-written queries, crawled): MRR@10 %.3f, recall@10 %.3f%n",
                    corpus, items.size(), rr / items.size(), (double) found / items.size());
            System.out.printf(Locale.ROOT, "snippets holding site chrome (%s, ...): %d of %d (%.1f%%)%n", chrome.get(0),
                    chromeSnippets, snippets, 100.0 * chromeSnippets / Math.max(1, snippets));
            for (String c : chromeShown) System.out.println("     with chrome: " + c);
        } finally {
            run(SERVE, "stop", Integer.toString(port));
            BenchPeers.deleteTree(data);
        }
        System.exit(0);
    }

    private static void crawl(PeerNode node, String start) throws Exception {
        String profile = Json.write(Map.of("url", start, "minDelayMs", 0, "depth", 1000, "maxPages", 100000,
                "range", "subpath"));
        JsonNode started = send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/crawl"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(profile)));
        String id = started.get("id").asText();
        JsonNode p;
        long t0 = System.nanoTime();
        do {
            Thread.sleep(200); // polling a progress endpoint from a benchmark's main thread
            p = send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/crawl/" + id)).GET());
        } while (p.get("state").asText().equals("running"));
        System.out.printf(Locale.ROOT, "crawled %s: %s, %d fetched, %d indexed, %d skipped, %d errors in %.1f s%n",
                start, p.get("state").asText(), p.get("fetched").asLong(), p.get("indexed").asLong(),
                p.get("skipped").asLong(), p.get("errors").asLong(), (System.nanoTime() - t0) / 1e9);
    }

    static List<KnownItem> read(String resourceOrPath) throws IOException {
        String text;
        Path file = Path.of(resourceOrPath);
        if (Files.isRegularFile(file)) {
            text = Files.readString(file);
        } else {
            try (InputStream in = KnownItemBenchmark.class.getClassLoader().getResourceAsStream(resourceOrPath)) {
                if (in == null) throw new IOException("no query file or resource " + resourceOrPath);
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        List<KnownItem> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] f = line.split("\t");
            if (f.length != 2) throw new IOException("not 'query<TAB>path': " + line);
            out.add(new KnownItem(f[0].strip(), f[1].strip()));
        }
        return out;
    }
}
