package org.peerdex.benchmarks;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.peerdex.actors.importer.DocumentExtractor;
import org.peerdex.actors.importer.DocumentImport;
import org.peerdex.actors.importer.FeedImport;
import org.peerdex.actors.importer.FetchPolicy;
import org.peerdex.actors.importer.ImportInput;
import org.peerdex.actors.importer.ImportJobs;
import org.peerdex.actors.importer.ImportKind;
import org.peerdex.actors.importer.ImportProgress;
import org.peerdex.actors.importer.ImportSource;
import org.peerdex.actors.importer.IndexingProxy;
import org.peerdex.actors.importer.MediaWikiDump;
import org.peerdex.actors.importer.OaiPmhImport;
import org.peerdex.actors.importer.PageFetcher;
import org.peerdex.actors.importer.WikiText;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;

/**
 * Documents per second of each importer, bounded runs into a real LevelDB (temp dir) from sources served on
 * 127.0.0.1 or written to disk: a synthetic MediaWiki dump (plain and .bz2) with real markup, an RSS feed, an
 * OAI-PMH repository paged by resumption tokens, PDFs made with PDFBox, and pages viewed through the indexing proxy
 * (sitemap imports hand their pages to the crawler, whose rate {@code WideCrawlBenchmark} measures). Beside each import rate the parse-only rate of the same input (no indexing)
 * is printed: the ceiling the indexer leaves. Usage:
 * {@code ImportBenchmark [WIKI_PAGES=10000] [FEED_ENTRIES=2000] [OAI_RECORDS=5000] [PAGES=1000] [PDFS=200]}
 * (PAGES: pages viewed through the proxy, at most 500).
 */
public final class ImportBenchmark {
    private final Map<String, byte[]> site = new ConcurrentHashMap<>();
    private HttpServer server;
    private String base;
    private final List<String[]> rows = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int wiki = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int feed = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        int oai = args.length > 2 ? Integer.parseInt(args[2]) : 5_000;
        int pages = args.length > 3 ? Integer.parseInt(args[3]) : 1_000;
        int pdfs = args.length > 4 ? Integer.parseInt(args[4]) : 200;
        new ImportBenchmark().run(wiki, feed, oai, pages, pdfs);
    }

    private void run(int wiki, int feed, int oai, int pages, int pdfs) throws Exception {
        Path tmp = Files.createTempDirectory("peerdex-import-bench");
        // the JDK test server answers with two writes; without TCP_NODELAY each page waits for a delayed ACK
        System.setProperty("sun.net.httpserver.nodelay", "true");
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.createContext("/", ex -> {
            String key = ex.getRequestURI().getPath() + (ex.getRequestURI().getRawQuery() == null ? ""
                    : "?" + ex.getRequestURI().getRawQuery());
            byte[] b = site.get(key);
            if (b == null) b = site.get(ex.getRequestURI().getPath());
            ex.getResponseHeaders().add("Content-Type", key.endsWith(".pdf") ? "application/pdf"
                    : key.endsWith(".html") ? "text/html; charset=utf-8" : "text/xml; charset=utf-8");
            ex.sendResponseHeaders(b == null ? 404 : 200, b == null ? -1 : b.length);
            if (b != null) ex.getResponseBody().write(b);
            ex.close();
        });
        ExecutorService serverThreads = Executors.newFixedThreadPool(4);
        server.setExecutor(serverThreads);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
        PageFetcher fetcher = new PageFetcher(new FetchPolicy(true, false), Duration.ofSeconds(20), 16 << 20);
        DocumentExtractor extractor = new DocumentExtractor(32 << 20, Duration.ofSeconds(30), 2000);
        try {
            System.out.printf("Import throughput (one import at a time, LevelDB in %s, flush every 500 documents)%n", tmp);

            Path dump = tmp.resolve("pages-articles.xml");
            long dumpBytes = writeDump(dump, wiki);
            Path bz2 = tmp.resolve("pages-articles.xml.bz2");
            try (OutputStream out = new BZip2CompressorOutputStream(Files.newOutputStream(bz2))) {
                Files.copy(dump, out);
            }
            double parseOnly = timeParse(() -> {
                int[] n = {0};
                try (var in = Files.newInputStream(dump)) {
                    MediaWikiDump.read(in, i -> { }, p -> {
                        WikiText.convert(p.text());
                        n[0]++;
                    }, () -> false);
                }
                return n[0];
            });
            measure(tmp, "mediawiki (plain " + dumpBytes / 1024 / 1024 + " MB)", ImportKind.MEDIAWIKI,
                    MediaWikiDump.source(new ImportInput.File(dump), null, false), parseOnly);
            measure(tmp, "mediawiki (.bz2 " + Files.size(bz2) / 1024 / 1024 + " MB)", ImportKind.MEDIAWIKI,
                    MediaWikiDump.source(new ImportInput.File(bz2), null, false), Double.NaN);

            site.put("/feed.xml", feedXml(feed));
            byte[] feedBytes = site.get("/feed.xml");
            measure(tmp, "rss (" + feed + " entries, HTTP)", ImportKind.RSS,
                    FeedImport.source(new ImportInput.Url(base + "/feed.xml", fetcher), fetcher, false, true),
                    timeParse(() -> FeedImport.parse(feedBytes).entries().size()));

            int perPage = 100;
            for (int p = 0; p * perPage < oai; p++) {
                site.put(p == 0 ? "/oai?verb=ListRecords&metadataPrefix=oai_dc"
                        : "/oai?verb=ListRecords&resumptionToken=t" + p, oaiPage(p, perPage, oai));
            }
            byte[] firstOai = site.get("/oai?verb=ListRecords&metadataPrefix=oai_dc");
            measure(tmp, "oai-pmh (" + oai + " records, " + perPage + "/page, HTTP)", ImportKind.OAI_PMH,
                    OaiPmhImport.source(base + "/oai", fetcher, null, null),
                    timeParse(() -> OaiPmhImport.parse(firstOai).records().size()));

            // sitemap imports hand their pages to the crawler (politeness per host): WideCrawlBenchmark measures that

            Path pdfDir = Files.createDirectories(tmp.resolve("pdfs"));
            for (int i = 0; i < pdfs; i++) Files.write(pdfDir.resolve("doc" + i + ".pdf"), pdf(i));
            byte[] onePdf = pdf(1);
            measure(tmp, "documents (" + pdfs + " PDFs of 3 pages, disk)", ImportKind.DOCUMENT,
                    DocumentImport.files(pdfDir, "http://docs.bench.test/", extractor, pdfs),
                    timeParse(() -> {
                        for (int i = 0; i < 50; i++) extractor.pdf("http://x.test/a.pdf", onePdf, 0);
                        return 50;
                    }));

            proxy(tmp, extractor, Math.min(pages, 500));
        } finally {
            server.stop(0);
            serverThreads.shutdownNow();
            try (Stream<Path> s = Files.walk(tmp)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        System.out.printf("%n%-58s %8s %8s %10s %12s%n", "source", "docs", "seconds", "docs/s", "parse-only/s");
        for (String[] r : rows) System.out.printf("%-58s %8s %8s %10s %12s%n", (Object[]) r);
    }

    interface Counted {
        int run() throws Exception;
    }

    private static double timeParse(Counted c) throws Exception {
        c.run(); // once to warm the JIT, then timed
        long t0 = System.nanoTime();
        int n = c.run();
        return n / ((System.nanoTime() - t0) / 1e9);
    }

    private void measure(Path tmp, String name, ImportKind kind, ImportSource source, double parseOnly) throws Exception {
        Path dir = Files.createTempDirectory(tmp, "index");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            ImportJobs jobs = new ImportJobs(storage, pool, 500, null);
            long t0 = System.nanoTime();
            String id = jobs.start(kind, name, source).id();
            ImportProgress p;
            while ((p = jobs.get(id).orElseThrow()).running()) java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
            double s = (System.nanoTime() - t0) / 1e9;
            if (!p.state().equals("finished")) System.out.println("  " + name + " ended " + p.state() + ": " + p.error());
            rows.add(new String[] {name, String.valueOf(p.imported()), String.format("%.2f", s),
                    String.format("%.0f", p.imported() / s), Double.isNaN(parseOnly) ? "-" : String.format("%.0f", parseOnly)});
            System.out.printf("  %-58s %d documents in %.2f s%n", name, p.imported(), s);
            jobs.close();
        } finally {
            pool.shutdownNow();
        }
    }

    private void proxy(Path tmp, DocumentExtractor extractor, int n) throws Exception {
        for (int i = 0; i < n; i++) site.put("/viewed/" + i + ".html", html(i));
        Path dir = Files.createTempDirectory(tmp, "index");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            ImportJobs jobs = new ImportJobs(storage, pool, 500, null);
            IndexingProxy proxy = IndexingProxy.bind(0, extractor, new FetchPolicy(true, false), false, 16 << 20,
                    Duration.ofSeconds(10));
            String id = jobs.start(ImportKind.PROXY, "proxy", proxy.source()).id();
            HttpClient browser = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1",
                    proxy.port()))).build();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                browser.send(HttpRequest.newBuilder(URI.create(base + "/viewed/" + i + ".html")).build(),
                        HttpResponse.BodyHandlers.discarding());
            }
            while (jobs.get(id).orElseThrow().imported() < n && System.nanoTime() - t0 < 120e9) {
                java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
            }
            double s = (System.nanoTime() - t0) / 1e9;
            long imported = jobs.get(id).orElseThrow().imported();
            rows.add(new String[] {"proxy (" + n + " pages viewed one after another, flush each)", String.valueOf(imported),
                    String.format("%.2f", s), String.format("%.0f", imported / s), "-"});
            jobs.stop(id);
            jobs.close();
        } finally {
            pool.shutdownNow();
        }
    }

    private static final String[] WORDS = ("fjord glacier moraine basalt lichen tundra aurora reindeer kelp skerry "
            + "harbour herring ferry lighthouse saga rune longship turf birch spruce heather cloudberry salmon troll "
            + "valley river delta summit ridge cairn bothy").split(" ");

    private static String words(int seed, int n) {
        StringBuilder b = new StringBuilder();
        long x = seed * 2654435761L + 1;
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            b.append(WORDS[(int) ((x >>> 33) % WORDS.length)]).append(i % 12 == 11 ? ". " : " ");
        }
        return b.toString();
    }

    private static long writeDump(Path file, int pages) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.11/\" version=\"0.11\"><siteinfo>"
                    + "<sitename>Benchwiki</sitename><base>https://bench.test/wiki/Main_Page</base></siteinfo>\n");
            for (int i = 0; i < pages; i++) {
                String text = "{{Infobox place\n| name = Place " + i + "\n| region = [[Region " + (i % 50) + "]]\n}}\n"
                        + "'''Place " + i + "''' is a " + words(i, 40) + " near [[Place " + (i + 1) + "|the next place]]."
                        + "<ref>{{cite web|url=http://x.test/" + i + "|title=Source}}</ref>\n== History ==\n" + words(i + 7, 120)
                        + "\n{| class=\"wikitable\"\n! Year !! Visitors\n|-\n| 2020 || " + i + "\n|-\n| 2021 || " + (i * 2)
                        + "\n|}\n== Geography ==\n" + words(i + 13, 150) + " {{convert|" + i + "|km}}\n[[Category:Places]]";
                w.write("<page><title>Place " + i + "</title><ns>0</ns><id>" + i + "</id><revision><id>" + i
                        + "</id><timestamp>2026-01-01T00:00:00Z</timestamp><contributor><username>Bench</username></contributor>"
                        + "<text xml:space=\"preserve\">" + text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                        + "</text></revision></page>\n");
            }
            w.write("</mediawiki>\n");
        }
        return Files.size(file);
    }

    private byte[] feedXml(int n) {
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Bench</title>"
                + "<link>" + base + "/</link><description>d</description>");
        for (int i = 0; i < n; i++) {
            b.append("<item><title>Entry ").append(i).append(' ').append(words(i, 6)).append("</title><link>")
                    .append(base).append("/e/").append(i).append("</link><pubDate>Tue, 10 Nov 2026 09:00:00 GMT</pubDate>"
                    + "<description>").append(words(i + 3, 80)).append("</description></item>");
        }
        return b.append("</channel></rss>").toString().getBytes(StandardCharsets.UTF_8);
    }

    private byte[] oaiPage(int page, int perPage, int total) {
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\"?><OAI-PMH xmlns=\"http://www.openarchives.org/OAI/2.0/\">"
                + "<responseDate>2026-11-30T12:00:00Z</responseDate><ListRecords>");
        for (int i = page * perPage; i < Math.min(total, (page + 1) * perPage); i++) {
            b.append("<record><header><identifier>oai:bench:").append(i).append("</identifier><datestamp>2026-03-14"
                    + "</datestamp></header><metadata><oai_dc:dc xmlns:oai_dc=\"http://www.openarchives.org/OAI/2.0/oai_dc/\""
                    + " xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>Record ").append(i).append(' ')
                    .append(words(i, 8)).append("</dc:title><dc:creator>Author ").append(i % 97).append("</dc:creator>"
                    + "<dc:description>").append(words(i + 5, 100)).append("</dc:description><dc:identifier>")
                    .append(base).append("/records/").append(i).append("</dc:identifier></oai_dc:dc></metadata></record>");
        }
        if ((page + 1) * perPage < total) b.append("<resumptionToken>t").append(page + 1).append("</resumptionToken>");
        else b.append("<resumptionToken/>");
        return b.append("</ListRecords></OAI-PMH>").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] html(int i) {
        return ("<!doctype html><html lang=\"en\"><head><title>Page " + i + " " + words(i, 5) + "</title></head><body><h1>Page "
                + i + "</h1><p>" + words(i + 1, 300) + "</p><a href=\"/p/" + (i + 1) + ".html\">next</a></body></html>")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] pdf(int i) throws IOException {
        try (PDDocument doc = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            for (int p = 0; p < 3; p++) {
                PDPage page = new PDPage();
                doc.addPage(page);
                try (PDPageContentStream cs = new PDPageContentStream(doc, page)) {
                    cs.beginText();
                    cs.setFont(new PDType1Font(Standard14Fonts.FontName.HELVETICA), 11);
                    cs.setLeading(14);
                    cs.newLineAtOffset(60, 720);
                    String text = words(i * 3 + p, 400);
                    for (int k = 0; k < text.length(); k += 90) {
                        cs.showText(text.substring(k, Math.min(text.length(), k + 90)));
                        cs.newLine();
                    }
                    cs.endText();
                }
            }
            doc.save(out);
            return out.toByteArray();
        }
    }

}
