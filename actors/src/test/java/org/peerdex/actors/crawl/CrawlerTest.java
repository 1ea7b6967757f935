package org.peerdex.actors.crawl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.meta.UrlMetadataStore;

/** The crawl actors against a real HTTP server on 127.0.0.1, writing a real LevelDB index. */
class CrawlerTest {
    static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
            "pekko.actor.provider = local",
            "peerdex.crawler.allow-loopback = on",
            "peerdex.crawler.max-body-bytes = 1048576",
            "peerdex.crawler.retry-default = 200ms",
            "peerdex.indexer.flush-interval = 20ms")).withFallback(ConfigFactory.load()).resolve();
    static final ActorTestKit KIT = ActorTestKit.create("crawler-test", CONFIG);

    @TempDir
    Path dir;
    PeerStorage storage;
    TestSite site;
    ActorRef<CrawlManager.Command> manager;

    @BeforeEach
    void setUp() throws Exception {
        storage = PeerStorage.openLevelDb(dir, new Partitions(4));
        site = new TestSite();
        manager = startManager(CONFIG);
    }

    /**
     * Stops the test's default manager and starts one with this config in its place. Two managers over one store
     * race: a manager resumes the crawls it finds RUNNING when it starts, so a default manager whose start the
     * scheduler delayed would pick up the other manager's crawl under the default settings.
     */
    private ActorRef<CrawlManager.Command> replaceManager(Config config) {
        KIT.stop(manager);
        manager = startManager(config);
        return manager;
    }

    private ActorRef<CrawlManager.Command> startManager(Config config) {
        CrawlServices services = CrawlServices.create(KIT.system(), CrawlerSettings.from(config, false), storage,
                null, null);
        return KIT.spawn(CrawlManager.create(services), "crawls-" + System.nanoTime(),
                org.apache.pekko.actor.typed.Props.empty().withDispatcherFromConfig(org.peerdex.actors.Dispatchers.INDEX));
    }

    @AfterEach
    void tearDown() {
        KIT.stop(manager);
        site.close();
        storage.close();
    }

    @AfterAll
    static void shutdown() {
        KIT.shutdownTestKit();
    }

    /** Runs a crawl to its end and returns its final progress. */
    private CrawlProgress crawl(ActorRef<CrawlManager.Command> m, CrawlProfile profile) {
        TestProbe<CrawlManager.Started> started = KIT.createTestProbe();
        m.tell(new CrawlManager.Start(profile, started.getRef()));
        String id = started.receiveMessage().id();
        TestProbe<Optional<CrawlProgress>> probe = KIT.createTestProbe();
        return probe.awaitAssert(Duration.ofSeconds(20), Duration.ofMillis(20), () -> {
            m.tell(new CrawlManager.Get(id, probe.getRef()));
            CrawlProgress p = probe.receiveMessage().orElseThrow();
            assertFalse(p.state().equals(CrawlRecord.RUNNING), "crawl still running: " + p);
            return p;
        });
    }

    /**
     * Two crawls at once under a node-wide budget of 3 pages in flight: neither takes more than the budget leaves,
     * and a crawl that finds the budget spent waits instead of ending: both index every page of their part.
     */
    @org.junit.jupiter.api.Test
    void concurrentCrawlsShareTheNodesBudgetOfPagesInFlightAndBothFinishComplete() throws Exception {
        for (String part : List.of("a", "b")) {
            StringBuilder index = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                site.page("/" + part + "/p" + i, "<html><head><title>" + part + " page " + i + "</title></head><body>"
                        + "words of " + part + " page number " + i + "</body></html>");
                index.append("/").append(part).append("/p").append(i).append(' ');
            }
            site.page("/" + part + "/", links(index.toString().trim().split(" ")));
        }
        PageBudget budget = new PageBudget(3);
        CrawlServices services = CrawlServices.create(KIT.system(), CrawlerSettings.from(CONFIG, false), storage,
                null, null).withPageBudget(budget);
        KIT.stop(manager); // see replaceManager
        ActorRef<CrawlManager.Command> shared = KIT.spawn(CrawlManager.create(services), "budget-" + System.nanoTime(),
                org.apache.pekko.actor.typed.Props.empty().withDispatcherFromConfig(org.peerdex.actors.Dispatchers.INDEX));
        int[] most = {0};
        java.util.concurrent.atomic.AtomicBoolean watching = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread watch = new Thread(() -> {
            while (watching.get()) {
                most[0] = Math.max(most[0], budget.inFlight());
                Thread.onSpinWait();
            }
        });
        watch.start();
        try {
            java.util.concurrent.CompletableFuture<CrawlProgress> a = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> crawl(shared, fast("/a/")));
            CrawlProgress b = crawl(shared, fast("/b/"));
            CrawlProgress pa = a.get(30, java.util.concurrent.TimeUnit.SECONDS);
            for (CrawlProgress p : List.of(pa, b)) assertEquals(CrawlRecord.FINISHED, p.state(), p.toString());
            for (String part : List.of("a", "b")) {
                for (int i = 0; i < 20; i++) assertTrue(indexed("/" + part + "/p" + i), part + " page " + i + " missing");
            }
        } finally {
            watching.set(false);
            watch.join();
            KIT.stop(shared);
        }
        assertTrue(most[0] <= 3, "pages in flight reached " + most[0]);
        assertTrue(most[0] > 0);
        assertEquals(0, budget.inFlight(), "every page given back");
    }

    private CrawlProgress crawl(CrawlProfile profile) {
        return crawl(manager, profile);
    }

    private CrawlProfile fast(String path) {
        return CrawlProfile.of(site.url(path)).withMinDelayMs(0);
    }

    private boolean indexed(String path) {
        return storage.metadata().contains(UrlHash.ofNormalized(site.url(path)));
    }

    private static String links(String... paths) {
        return "<html><head><title>Page</title></head><body>"
                + java.util.Arrays.stream(paths).map(p -> "<a href=\"" + p + "\">link to " + p + "</a>")
                .collect(Collectors.joining(" ")) + "</body></html>";
    }

    private static String leaf(String name) {
        return "<html><head><title>" + name + "</title></head><body>" + name + " leaf words</body></html>";
    }

    @Test
    void crawlFollowsLinksWithinDepthRangeAndFilters() {
        site.page("/", links("/a", "/b", "/private/x", "http://elsewhere.example/"))
                .page("/a", links("/a/deep"))
                .page("/b", "<html><title>B page</title><body>bravo words</body></html>")
                .page("/a/deep", links("/a/deep/deeper"))
                .page("/a/deep/deeper", leaf("deeper"))
                .page("/private/x", leaf("private"));
        CrawlProgress p = crawl(fast("/").withDepth(2).withFilters(".*", ".*/private/.*"));
        assertEquals(CrawlRecord.FINISHED, p.state());
        assertEquals(4, p.indexed(), p.toString());
        for (String path : List.of("/", "/a", "/b", "/a/deep")) {
            assertEquals(1, site.count(path), path);
            assertTrue(indexed(path), path);
        }
        assertEquals(0, site.count("/private/x"));
        assertEquals(0, site.count("/a/deep/deeper"));
        assertTrue(p.linksRejected().containsKey("depth"), p.linksRejected().toString());
        assertTrue(p.linksRejected().containsKey("must-not-match"));
        assertTrue(p.linksRejected().containsKey("range"));
        assertEquals("B page", storage.metadata().get(UrlHash.ofNormalized(site.url("/b"))).orElseThrow().title());
        assertFalse(storage.rwi().postings(WordHash.of("bravo")).isEmpty());
    }

    @Test
    void robotsDisallowIsRespectedAndCrawlDelayHonoured() {
        site.page("/robots.txt", n -> TestSite.Reply.of(200, Map.of("Content-Type", "text/plain"),
                        "User-agent: *\nDisallow: /secret\nCrawl-delay: 0.3\n"))
                .page("/", links("/secret/a", "/open1", "/open2"))
                .page("/open1", leaf("open1")).page("/open2", leaf("open2")).page("/secret/a", leaf("secret"));
        CrawlProgress p = crawl(fast("/"));
        assertEquals(0, site.count("/secret/a"));
        assertEquals(1L, p.skippedBy().get("robots"));
        assertEquals(3, p.indexed());
        assertMinGap(site.pageRequests(), 290);
    }

    @Test
    void robotsTxtIsReadOnlyUpToItsFirst500KiB() {
        // RFC 9309 2.5: parse at least 500 KiB; rules past the cap are ignored (a huge file made every check slow)
        StringBuilder robots = new StringBuilder("User-agent: *\nDisallow: /early\n");
        while (robots.length() < RobotsCache.MAX_ROBOTS_BYTES + 10_000) robots.append("# padding padding padding padding\n");
        robots.append("Disallow: /late\n");
        site.page("/robots.txt", n -> TestSite.Reply.of(200, Map.of("Content-Type", "text/plain"), robots.toString()))
                .page("/", links("/early", "/late")).page("/early", leaf("early")).page("/late", leaf("late"));
        CrawlProgress p = crawl(fast("/"));
        assertEquals(0, site.count("/early"));
        assertEquals(1, site.count("/late"), p.toString());
        assertEquals(2, p.indexed());
    }

    @Test
    void robotsAnswering5xxDisallowsTheHost() {
        site.page("/robots.txt", n -> TestSite.Reply.of(503, Map.of(), "down"))
                .page("/", links("/x"));
        CrawlProgress p = crawl(fast("/"));
        assertEquals(0, site.count("/"));
        // an error of the host, not a page robots.txt disallows; with nothing indexed the crawl failed, and says why
        assertEquals(1L, p.errorsBy().get(RobotsCache.ROBOTS_UNAVAILABLE), p.toString());
        assertFalse(p.skippedBy().containsKey("robots"), p.toString());
        assertEquals(CrawlRecord.FAILED, p.state());
        assertTrue(p.message().contains("robots.txt answered HTTP 503"), p.message());
    }

    @Test
    void politenessDelaySeparatesRequestsToOneHost() {
        site.page("/", links("/p1", "/p2", "/p3")).page("/p1", leaf("p1")).page("/p2", leaf("p2")).page("/p3", leaf("p3"));
        CrawlProgress p = crawl(CrawlProfile.of(site.url("/")).withMinDelayMs(200));
        assertEquals(4, p.indexed());
        assertMinGap(site.pageRequests(), 195);
    }

    private static void assertMinGap(List<TestSite.Request> requests, long minMs) {
        assertTrue(requests.size() >= 2, "requests: " + requests);
        for (int i = 1; i < requests.size(); i++) {
            long gap = (requests.get(i).atNanos() - requests.get(i - 1).atNanos()) / 1_000_000;
            assertTrue(gap >= minMs, "gap " + gap + " ms between " + requests.get(i - 1).path() + " and "
                    + requests.get(i).path() + " (want >= " + minMs + ")");
        }
    }

    @Test
    void http429WithRetryAfterBacksTheHostOffAndRetries() {
        site.page("/", n -> n == 0 ? TestSite.Reply.of(429, Map.of("Retry-After", "1"), "slow down")
                : TestSite.Reply.html(links()));
        CrawlProgress p = crawl(fast("/"));
        assertEquals(1, p.indexed(), p.toString());
        List<TestSite.Request> r = site.pageRequests();
        assertEquals(2, r.size());
        assertTrue((r.get(1).atNanos() - r.get(0).atNanos()) / 1_000_000 >= 950, "waited for Retry-After");
    }

    @Test
    void redirectLoopIsAnErrorAndRedirectsAreFollowed() {
        site.page("/", links("/r1", "/moved"))
                .page("/r1", n -> TestSite.Reply.of(302, Map.of("Location", "/r2"), ""))
                .page("/r2", n -> TestSite.Reply.of(302, Map.of("Location", "/r1"), ""))
                .page("/moved", n -> TestSite.Reply.of(301, Map.of("Location", "/new"), ""))
                .page("/new", "<html><title>New home</title><body>relocated content</body></html>");
        CrawlProgress p = crawl(fast("/"));
        assertEquals(1L, p.errorsBy().get("redirect-loop"), p.toString());
        assertTrue(indexed("/new"));
        assertEquals(2, p.indexed());
        var history = storage.metadata().history(UrlHash.ofNormalized(site.url("/r1")));
        assertTrue(history.stream().anyMatch(e -> e.detail().contains("redirect-loop")), history.toString());
    }

    @Test
    void hugeBodyIsTruncatedAtTheCapAndFlagged() {
        site.page("/", links("/huge")).hugePage("/huge", 50L << 20);
        CrawlProgress p = crawl(fast("/"));
        assertEquals(2, p.indexed(), p.toString());
        var meta = storage.metadata().get(UrlHash.ofNormalized(site.url("/huge"))).orElseThrow();
        assertTrue(meta.size() <= 1 << 20, "body cut at the 1 MiB cap: " + meta.size());
        List<UrlMetadataStore.HistoryEvent> h = storage.metadata().history(meta.urlHash());
        assertTrue(h.stream().anyMatch(e -> e.detail().contains("truncated")), h.toString());
    }

    @Test
    void gzipBodiesAreDecodedAndCharsetsAndBinaryBodiesHandled() {
        site.page("/", links("/gz", "/latin1", "/binary"))
                .page("/gz", n -> new TestSite.Reply(200, Map.of("Content-Type", "text/html"),
                        "<html><title>Zipped</title><body>gzipword inside</body></html>".getBytes(StandardCharsets.UTF_8),
                        true))
                .page("/latin1", n -> new TestSite.Reply(200, Map.of("Content-Type", "text/html; charset=ISO-8859-1"),
                        "<html><title>Latin</title><body>Gr\u00f6\u00dfenordnung</body></html>"
                                .getBytes(StandardCharsets.ISO_8859_1), false))
                .page("/binary", n -> {
                    byte[] b = new byte[4096];
                    new java.util.Random(7).nextBytes(b);
                    return new TestSite.Reply(200, Map.of("Content-Type", "text/html"), b, false);
                });
        CrawlProgress p = crawl(fast("/"));
        assertFalse(storage.rwi().postings(WordHash.of("gzipword")).isEmpty());
        assertFalse(storage.rwi().postings(WordHash.of("gr\u00f6\u00dfenordnung")).isEmpty());
        assertEquals(1L, p.skippedBy().get("binary-content"), p.toString());
    }

    @Test
    void anchorTextIsIndexedForTheTargetAndNoindexNofollowAreHonoured() {
        site.page("/", "<html><title>Home</title><body><a href=\"/target\">quokkaanchor</a>"
                        + "<a href=\"/hidden\">hidden page</a></body></html>")
                .page("/target", "<html><title>Target</title><body>plain words</body></html>")
                .page("/hidden", "<html><head><meta name=\"robots\" content=\"noindex, nofollow\"></head>"
                        + "<body>secretword <a href=\"/behind\">behind</a></body></html>")
                .page("/behind", leaf("behind"));
        CrawlProgress p = crawl(fast("/"));
        var postings = storage.rwi().postings(WordHash.of("quokkaanchor"));
        assertTrue(postings.stream().anyMatch(x -> x.url().equals(UrlHash.ofNormalized(site.url("/target")))),
                "anchor text indexed for the target");
        assertFalse(indexed("/hidden"));
        assertTrue(storage.rwi().postings(WordHash.of("secretword")).isEmpty());
        assertEquals(0, site.count("/behind"), "nofollow");
        assertEquals(1L, p.skippedBy().get("noindex"));
    }

    @Test
    void duplicateContentIsIndexedOnce() {
        String same = "<html><title>Same</title><body>identical text of two pages</body></html>";
        site.page("/", links("/one", "/two")).page("/one", same).page("/two", same);
        CrawlProgress p = crawl(fast("/"));
        assertEquals(1L, p.skippedBy().get("duplicate"), p.toString());
        assertTrue(indexed("/one") ^ indexed("/two"));
    }

    @Test
    void calendarTrapIsBoundedByMaxPages() {
        site.fallback(path -> {
            if (!path.startsWith("/cal?d=")) return null;
            int d = Integer.parseInt(path.substring(7));
            return TestSite.Reply.html(links("/cal?d=" + (d + 1), "/cal?d=" + (d + 2)));
        });
        CrawlProgress p = crawl(fast("/cal?d=0").withDepth(1000).withMaxPages(15, 0));
        assertEquals(CrawlRecord.FINISHED, p.state());
        assertEquals(15, site.pageRequests().size());
        assertTrue(p.linksRejected().getOrDefault("max-pages", 0L) > 0);
    }

    @Test
    void sitemapsListedInRobotsAreExtraStarts() {
        site.page("/robots.txt", n -> TestSite.Reply.of(200, Map.of("Content-Type", "text/plain"),
                        "User-agent: *\nAllow: /\nSitemap: " + site.url("/sitemap.xml") + "\n"))
                .page("/sitemap.xml", n -> TestSite.Reply.of(200, Map.of("Content-Type", "application/xml"),
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/"
                                + "sitemap/0.9\"><url><loc>" + site.url("/orphan") + "</loc></url></urlset>"))
                .page("/", leaf("home")).page("/orphan", "<html><title>Orphan</title><body>only in the sitemap</body></html>");
        crawl(fast("/"));
        assertTrue(indexed("/orphan"));
    }

    @Test
    void aRedirectToARefusedAddressIsNotFollowed() {
        // "localhost" is allowed by name; 127.0.0.1 is not: the address is checked again after the redirect
        ActorRef<CrawlManager.Command> strict = replaceManager(ConfigFactory.parseString(
                "peerdex.crawler.allow-loopback = off\npeerdex.crawler.allow-hosts = [localhost]").withFallback(CONFIG));
        String local = site.base().replace("127.0.0.1", "localhost");
        site.page("/", "<html><title>Home</title><body><a href=\"/jump\">jump</a></body></html>")
                .page("/jump", n -> TestSite.Reply.of(302, Map.of("Location", site.url("/inside")), ""))
                .page("/inside", leaf("inside"));
        try {
            CrawlProgress p = crawl(strict, CrawlProfile.of(local + "/").withMinDelayMs(0));
            assertEquals(1, p.indexed(), p.toString());
            assertEquals(1L, p.errorsBy().get("refused-address"), p.toString());
            assertEquals(0, site.count("/inside"));
        } finally {
            KIT.stop(strict);
        }
    }

    @Test
    void loopbackIsRefusedWithoutAllowLoopback() {
        ActorRef<CrawlManager.Command> strict = replaceManager(ConfigFactory.parseString(
                "peerdex.crawler.allow-loopback = off").withFallback(CONFIG));
        site.page("/", links());
        try {
            CrawlProgress p = crawl(strict, fast("/"));
            assertEquals(1L, p.errorsBy().get("refused-address"), p.toString());
            assertTrue(site.requests().isEmpty(), "nothing reached the server: " + site.requests());
        } finally {
            KIT.stop(strict);
        }
    }

    @Test
    void queuesOfHostsWithoutWorkAreStoppedWhileTheCrawlRunsAndStartAgainOnDemand() throws Exception {
        ActorRef<CrawlManager.Command> quick = replaceManager(ConfigFactory.parseString(
                "peerdex.crawler.host-idle-stop = 50ms").withFallback(CONFIG));
        int leaves = 24;
        int chain = 15;
        List<TestSite> others = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < leaves; i++) others.add(new TestSite().page("/", leaf("leaf" + i)));
            TestSite first = others.get(0);
            // the first leaf host is met again at the end of the chain: a new queue must take it, without
            // reading its robots.txt (cached) or its sitemaps (read once per crawl) again
            first.page("/robots.txt", n -> TestSite.Reply.of(200, Map.of("Content-Type", "text/plain"),
                            "User-agent: *\nAllow: /\nSitemap: " + first.url("/sitemap.xml") + "\n"))
                    .page("/sitemap.xml", n -> TestSite.Reply.of(200, Map.of("Content-Type", "application/xml"),
                            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><urlset xmlns=\"http://www.sitemaps.org/"
                                    + "schemas/sitemap/0.9\"><url><loc>" + first.url("/mapped") + "</loc></url></urlset>"))
                    .page("/mapped", leaf("mapped")).page("/again", leaf("again"));
            List<String> hubLinks = new java.util.ArrayList<>();
            for (TestSite o : others) hubLinks.add(o.url("/"));
            hubLinks.add("/c1");
            site.page("/", links(hubLinks.toArray(String[]::new)));
            for (int i = 1; i < chain; i++) site.page("/c" + i, links("/c" + (i + 1)));
            site.page("/c" + chain, links(first.url("/again")));
            // the hub is slow, so the crawl runs on long after the leaf hosts are done
            site.responseDelay(150);

            TestProbe<CrawlManager.Started> started = KIT.createTestProbe();
            quick.tell(new CrawlManager.Start(fast("/").withRange("wide").withDepth(chain + 2), started.getRef()));
            String id = started.receiveMessage().id();
            TestProbe<Optional<CrawlProgress>> probe = KIT.createTestProbe();
            int[] most = {0};
            CrawlProgress drained = probe.awaitAssert(Duration.ofSeconds(20), Duration.ofMillis(20), () -> {
                quick.tell(new CrawlManager.Get(id, probe.getRef()));
                CrawlProgress p = probe.receiveMessage().orElseThrow();
                most[0] = Math.max(most[0], p.hostQueues());
                assertEquals(CrawlRecord.RUNNING, p.state(), "the crawl ended before the leaf queues were seen stopped");
                assertTrue(p.indexed() >= 1 + leaves, p.toString());
                assertTrue(p.hostQueues() <= 2, p.hostQueues() + " host queues alive, " + p.indexed() + " indexed");
                return p;
            });
            System.out.printf("wide crawl over %d hosts: %d host queues alive at most (seen), %d while the crawl "
                    + "still ran with %d pages indexed%n", leaves + 1, most[0], drained.hostQueues(), drained.indexed());
            CrawlProgress done = probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(20), () -> {
                quick.tell(new CrawlManager.Get(id, probe.getRef()));
                CrawlProgress p = probe.receiveMessage().orElseThrow();
                assertFalse(p.state().equals(CrawlRecord.RUNNING), "crawl still running: " + p);
                return p;
            });
            assertEquals(CrawlRecord.FINISHED, done.state());
            assertEquals(1 + leaves + chain + 2, done.indexed(), done.toString());
            assertEquals(1, first.count("/again"));
            assertEquals(1, first.count("/mapped"));
            assertEquals(1, first.count("/robots.txt"), "robots.txt comes from the cache for the new queue");
            assertEquals(1, first.count("/sitemap.xml"), "the sitemaps are read once per crawl");
        } finally {
            KIT.stop(quick);
            others.forEach(TestSite::close);
        }
    }

    @Test
    void robotsCacheHoldsAtMostItsBoundOfHosts() throws Exception {
        int bound = 5;
        CrawlerSettings settings = CrawlerSettings.from(ConfigFactory.parseString(
                "peerdex.crawler.robots-cache-max-hosts = " + bound).withFallback(CONFIG), false);
        RobotsCache robots = new RobotsCache(settings, new Fetcher(settings, new AddressGuard(settings)));
        List<TestSite> hosts = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 4 * bound; i++) {
                hosts.add(new TestSite().page("/robots.txt", n -> TestSite.Reply.of(200,
                        Map.of("Content-Type", "text/plain"), "User-agent: *\nDisallow: /private/\n")));
            }
            for (TestSite h : hosts) {
                assertFalse(robots.rules(h.base()).allowed(h.url("/private/x")));
                assertTrue(robots.size() <= bound, robots.size() + " hosts held, bound " + bound);
            }
            // asked again, the hosts the cache dropped are fetched again: it did not keep them all
            for (TestSite h : hosts) robots.rules(h.base());
            int fetches = hosts.stream().mapToInt(h -> h.count("/robots.txt")).sum();
            System.out.printf("robots cache: %d hosts held after %d hosts asked twice (bound %d), %d fetches%n",
                    robots.size(), hosts.size(), bound, fetches);
            assertTrue(robots.size() <= bound, robots.size() + " hosts held");
            assertTrue(fetches >= 2 * hosts.size() - bound, fetches + " robots.txt fetches");
        } finally {
            hosts.forEach(TestSite::close);
        }
    }
}
