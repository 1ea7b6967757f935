package org.peerdex.node.http;

import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.CoordinatedShutdown;
import java.io.IOException;
import java.util.Optional;
import org.peerdex.actors.crawl.CrawlManager;
import org.peerdex.actors.crawl.CrawlProfile;
import org.peerdex.actors.crawl.CrawlProgress;
import org.peerdex.actors.importer.CrawledImport;
import org.peerdex.actors.importer.DocumentExtractor;
import org.peerdex.actors.importer.DocumentImport;
import org.peerdex.actors.importer.FeedImport;
import org.peerdex.actors.importer.ForumImport;
import org.peerdex.actors.crawl.ForumRules;
import org.peerdex.actors.importer.PageImport;
import org.peerdex.actors.importer.SitemapImport;
import org.peerdex.actors.importer.ImportInput;
import org.peerdex.actors.importer.IndexingProxy;
import org.peerdex.actors.importer.ImportJob;
import org.peerdex.actors.importer.ImportJobs;
import org.peerdex.actors.importer.ImportKind;
import org.peerdex.actors.importer.ImportSettings;
import org.peerdex.actors.importer.MediaWikiDump;
import org.peerdex.actors.importer.NetworkScanner;
import org.peerdex.actors.importer.OaiPmhImport;
import org.peerdex.actors.importer.PageFetcher;
import org.peerdex.node.NetworkBackend;
import org.peerdex.node.NodeConfig;
import org.peerdex.node.NodeContext;
import org.peerdex.node.crawl.CrawlBackend;
import org.peerdex.storage.frontier.Frontier;

/**
 * The importers of a running peer, one per peer (built by PeerNode on first use): turns an API request into an import job on the
 * import dispatcher; after each flush the new documents are offered to their DHT holders.
 */
public final class ImportService {
    private final NodeContext ctx;
    /** Imports that fetch pages (sitemap, forum, scan) hand them to this peer's crawler; null where none runs. */
    private final CrawlBackend crawl;
    private final ImportSettings settings;
    private final ImportJobs jobs;
    private final PageFetcher fetcher;
    private final PageImport pages;
    private final Executor imports;

    /** {@code network}: where new documents are offered to their DHT holders after each flush, once the DHT is up. */
    public ImportService(NodeContext ctx, NetworkBackend network, CrawlBackend crawl) {
        this.ctx = ctx;
        this.crawl = crawl;
        this.settings = ImportSettings.from(ctx.config().raw());
        this.imports = org.peerdex.actors.Dispatchers.imports(ctx.system());
        this.fetcher = new PageFetcher(settings.policy(intranet()), settings.fetchTimeout(), settings.maxFetchBytes());
        this.pages = new PageImport(fetcher, new DocumentExtractor(settings.documentMaxBytes(),
                settings.documentTimeout(), settings.documentMaxPages()));
        this.jobs = new ImportJobs(ctx.storage(), imports, settings.flushEvery(), () -> {
            var dht = network.dht();
            if (dht != null) dht.indexedLocally(); // offer the new postings to their DHT holders
        });
        jobs.resume(this::rebuildSchedule); // feeds scheduled before a restart run on
        CoordinatedShutdown.get(ctx.system()).addJvmShutdownHook(jobs::close);
        CoordinatedShutdown.get(ctx.system()).addTask(CoordinatedShutdown.PhaseServiceStop(), "stop-imports", () -> {
            jobs.close();
            return java.util.concurrent.CompletableFuture.completedFuture(org.apache.pekko.Done.getInstance());
        });
    }

    public ImportJobs jobs() {
        return jobs;
    }

    public ImportSettings settings() {
        return settings;
    }

    public Executor imports() {
        return imports;
    }

    boolean intranet() {
        return ctx.config().mode() == NodeConfig.Mode.INTRANET;
    }

    /**
     * Starts an import of the given kind from a request body ({@code url} or {@code path}, plus the kind's
     * options). @throws IllegalArgumentException for a request that cannot start (answered 400)
     */
    public ImportJob start(ImportKind kind, Map<String, Object> body) {
        String url = string(body, "url");
        String path = string(body, "path");
        if (kind == ImportKind.PROXY) return startProxy(integer0(body, "port", settings.proxyPort()),
                body.containsKey("allowQuery") ? bool(body, "allowQuery") : settings.proxyAllowQuery());
        if (url == null && path == null && kind != ImportKind.SCAN) {
            throw new IllegalArgumentException("give \"url\" (to fetch) or \"path\" (a file on this peer's disk)");
        }
        if (url != null && path != null) throw new IllegalArgumentException("give either \"url\" or \"path\", not both");
        if (url != null && !(url.startsWith("http://") || url.startsWith("https://"))) {
            throw new IllegalArgumentException("url must be an http(s) URL: " + url);
        }
        ImportInput input = url != null ? new ImportInput.Url(url, fetcher) : path != null
                ? new ImportInput.File(Path.of(path)) : null;
        String source = input == null ? "" : input.name();
        return switch (kind) {
            case RSS -> {
                boolean fetchLinked = bool(body, "fetchLinked");
                String every = string(body, "every");
                var src = FeedImport.source(input, fetcher, fetchLinked, bool(body, "force"));
                if (every == null) yield jobs.start(kind, source, src);
                Duration d;
                try {
                    d = Duration.parse(every);
                } catch (DateTimeParseException e) {
                    throw new IllegalArgumentException("every must be an ISO-8601 duration like PT1H: " + every);
                }
                if (d.compareTo(settings.minFeedInterval()) < 0) {
                    throw new IllegalArgumentException("every must be at least " + settings.minFeedInterval());
                }
                Map<String, Object> request = new java.util.LinkedHashMap<>();
                if (url != null) request.put("url", url);
                if (path != null) request.put("path", path);
                request.put("fetchLinked", fetchLinked);
                request.put("force", bool(body, "force"));
                yield jobs.schedule(kind, source, src, d, request);
            }
            case OAI_PMH -> url != null
                    ? jobs.start(kind, source, OaiPmhImport.source(url, fetcher, string(body, "from"), string(body, "set")))
                    : jobs.start(kind, source, OaiPmhImport.fromFile(input, required(body, "baseUrl",
                    "a ListRecords file needs the repository's \"baseUrl\"")));
            case MEDIAWIKI -> jobs.start(kind, source, MediaWikiDump.source(input, string(body, "baseUrl"),
                    bool(body, "allNamespaces")));
            case SITEMAP -> jobs.start(kind, source, SitemapImport.source(input, fetcher, crawls(),
                    integer(body, "maxPages", settings.maxPages(), settings.maxPages())));
            case PHPBB -> {
                if (url == null) throw new IllegalArgumentException("a forum import needs the board's \"url\"");
                yield jobs.start(kind, source, ForumImport.source(url, crawls(), ForumRules.PHPBB,
                        integer(body, "maxPages", settings.maxPages(), settings.maxPages())));
            }
            case DOCUMENT -> url != null ? jobs.start(kind, source, DocumentImport.url(url, pages))
                    : jobs.start(kind, source, DocumentImport.files(Path.of(path), required(body, "baseUrl",
                    "documents on disk need a \"baseUrl\" to be indexed under (the index holds http(s) URLs)"),
                    pages.extractor(), integer(body, "maxFiles", settings.maxPages(), settings.maxPages())));
            case SCAN -> {
                if (!intranet()) throw new ScanRefused();
                Object r = body.get("ranges");
                if (!(r instanceof java.util.List<?> list) || list.isEmpty()
                        || !list.stream().allMatch(x -> x instanceof String)) {
                    throw new IllegalArgumentException("a scan needs \"ranges\": [\"10.0.0.0/24\", \"192.168.1.1-192.168.1.9\", ...]");
                }
                java.util.List<Integer> ports = settings.scannerPorts();
                Object p = body.get("ports");
                if (p != null) {
                    if (!(p instanceof java.util.List<?> pl) || pl.isEmpty() || !pl.stream().allMatch(x ->
                            x instanceof Integer i && i > 0 && i < 65536)) {
                        throw new IllegalArgumentException("\"ports\" must be a list of ports 1..65535");
                    }
                    ports = pl.stream().map(x -> (Integer) x).toList();
                }
                @SuppressWarnings("unchecked")
                java.util.List<String> ranges = (java.util.List<String>) list;
                NetworkScanner scanner = new NetworkScanner(ports, settings.scannerTimeout(), settings.scannerMaxAddresses());
                yield jobs.start(kind, "scan:" + String.join(",", ranges), scanner.source(ranges, crawls(), bool(body, "index")));
            }
            default -> throw new IllegalArgumentException("import kind " + kind.key() + " is not available yet");
        };
    }

    /** The source of a feed schedule stored by an earlier run of the peer, made from its request again. */
    private org.peerdex.actors.importer.ImportSource rebuildSchedule(ImportJobs.StoredSchedule s) {
        if (!s.kind().equals(ImportKind.RSS.key())) throw new IllegalArgumentException("only feeds are scheduled");
        String url = string(s.request(), "url");
        String path = string(s.request(), "path");
        ImportInput input = url != null ? new ImportInput.Url(url, fetcher) : path != null
                ? new ImportInput.File(Path.of(path)) : null;
        if (input == null) throw new IllegalArgumentException("the stored request names no url or path");
        return FeedImport.source(input, fetcher, bool(s.request(), "fetchLinked"), bool(s.request(), "force"));
    }

    /**
     * The peer's crawler as the importers that name web pages (sitemap, forum, scan) use it: their pages are
     * fetched by a crawl, under the crawler's address policy, politeness and robots.txt.
     */
    private CrawledImport.Crawls crawls() {
        return new CrawledImport.Crawls() {
            @Override
            public String start(CrawlProfile profile, java.util.List<Frontier.Candidate> seeds) throws IOException {
                CrawlBackend crawler = crawler();
                Optional<String> refused = crawler.refusal(profile);
                if (refused.isPresent()) throw new IOException("the crawler refuses these pages: " + refused.get());
                CrawlManager.Started s = await(crawler.start(profile, seeds));
                if (s.id() == null) throw new IOException("the crawl could not be recorded: " + s.error());
                return s.id();
            }

            @Override
            public Optional<CrawlProgress> progress(String id) throws IOException {
                return await(crawler().progress(id));
            }

            @Override
            public void stop(String id) throws IOException {
                await(crawler().stop(id));
            }
        };
    }

    private CrawlBackend crawler() throws IOException {
        CrawlBackend b = crawl;
        if (b == null) throw new IOException("the crawler does not run on this peer");
        return b;
    }

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws IOException {
        try {
            return stage.toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("the crawler did not answer: " + e, e);
        }
    }

    /** Binds the indexing proxy on 127.0.0.1 and runs it as an import until stopped (DELETE /api/import/{id}). */
    public ImportJob startProxy(int port, boolean allowQuery) {
        IndexingProxy proxy;
        try {
            proxy = IndexingProxy.bind(port, pages.extractor(), settings.policy(intranet()), allowQuery,
                    settings.maxFetchBytes(), settings.fetchTimeout());
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot listen on 127.0.0.1:" + port + ": " + e.getMessage());
        }
        ImportJob job = jobs.start(ImportKind.PROXY, "http://127.0.0.1:" + proxy.port() + "/", proxy.source());
        job.detail("port", proxy.port());
        job.detail("allowQuery", allowQuery);
        return job;
    }

    /** A scan asked of a peer that is not in intranet mode (answered 403). */
    public static final class ScanRefused extends RuntimeException {
        ScanRefused() {
            super("the network scanner runs only in intranet mode (--mode intranet)");
        }
    }

    static int integer0(Map<String, Object> body, String key, int dflt) {
        Object v = body.get(key);
        if (v == null) return dflt;
        if (!(v instanceof Number n) || n.intValue() < 0 || n.intValue() > 65535) {
            throw new IllegalArgumentException("\"" + key + "\" must be a port 0..65535");
        }
        return n.intValue();
    }

    static String string(Map<String, Object> body, String key) {
        Object v = body.get(key);
        if (v == null) return null;
        if (!(v instanceof String s)) throw new IllegalArgumentException("\"" + key + "\" must be a string");
        return s.isBlank() ? null : s.strip();
    }

    static String required(Map<String, Object> body, String key, String why) {
        String v = string(body, key);
        if (v == null) throw new IllegalArgumentException(why);
        return v;
    }

    static boolean bool(Map<String, Object> body, String key) {
        Object v = body.get(key);
        if (v == null) return false;
        if (!(v instanceof Boolean b)) throw new IllegalArgumentException("\"" + key + "\" must be true or false");
        return b;
    }

    static int integer(Map<String, Object> body, String key, int dflt, int max) {
        Object v = body.get(key);
        if (v == null) return dflt;
        if (!(v instanceof Number n) || n.intValue() < 1) {
            throw new IllegalArgumentException("\"" + key + "\" must be a positive number");
        }
        return Math.min(n.intValue(), max);
    }
}
