package org.peerdex.actors.crawl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.GZIPOutputStream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.parse.HtmlDocumentParser;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;

/**
 * Hostile servers against the crawler's {@link Fetcher}, over real sockets on 127.0.0.1: gzip and deflate bombs
 * (a megabyte on the wire expanding to gigabytes), endless chunked bodies, bodies over the page cap, slow-drip
 * servers, wrong content types, broken charsets, redirect loops and redirects into loopback, private and link-local
 * ranges (SSRF). Each fetch ends in bounded time with a bounded body or a clear error, and a crawl over all of them
 * finishes and indexes the good pages.
 */
@Tag("reliability")
class HostileBodiesTest {
    static final int CAP = 1 << 20;
    static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
            "pekko.actor.provider = local",
            "peerdex.crawler.allow-hosts = [localhost]",
            "peerdex.crawler.unpolite-hosts = [localhost]",
            "peerdex.crawler.max-body-bytes = " + CAP,
            "peerdex.crawler.read-timeout = 1500ms",
            "peerdex.crawler.total-timeout = 4s",
            "peerdex.crawler.connect-timeout = 1s",
            "peerdex.indexer.flush-interval = 20ms")).withFallback(ConfigFactory.load()).resolve();
    static HostileServer server;
    static byte[] gzipMember;
    static byte[] deflateBomb;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws IOException {
        // one gzip member of 64 MiB of zeros (~64 KB); members concatenate, so 16 of them are a 1 GiB body
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(bo)) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 64; i++) g.write(zeros);
        }
        gzipMember = bo.toByteArray();
        // one zlib stream of 256 MiB of zeros (~250 KB): deflate streams do not concatenate, so it is made whole
        ByteArrayOutputStream db = new ByteArrayOutputStream();
        try (var d = new java.util.zip.DeflaterOutputStream(db)) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 256; i++) d.write(zeros);
        }
        deflateBomb = db.toByteArray();
        server = new HostileServer();
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
    }

    private static Fetcher fetcher(Config c, boolean intranet) {
        CrawlerSettings s = CrawlerSettings.from(c, intranet);
        return new Fetcher(s, new AddressGuard(s));
    }

    private static String url(String path) {
        return "http://localhost:" + server.port() + path;
    }

    /** A fetch with its time and the bytes the calling thread allocated. */
    record Measured(Fetcher.Response response, Fetcher.FetchException error, long millis, long allocated) {}

    private static Measured measure(Fetcher f, String url) {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long a0 = mx.getCurrentThreadAllocatedBytes();
        long t0 = System.nanoTime();
        Fetcher.Response r = null;
        Fetcher.FetchException e = null;
        try {
            r = f.fetch(url);
        } catch (Fetcher.FetchException ex) {
            e = ex;
        }
        Measured m = new Measured(r, e, (System.nanoTime() - t0) / 1_000_000, mx.getCurrentThreadAllocatedBytes() - a0);
        System.out.printf("hostile %-28s %6d ms, %5d MiB allocated: %s%n", url.replaceAll("^http://[^/]+", ""),
                m.millis(), m.allocated() >> 20, r != null ? "HTTP " + r.status() + ", " + r.body().length
                        + " bytes" + (r.truncated() ? " (truncated)" : "") : e.kind() + ": " + e.getMessage());
        return m;
    }

    @Test
    void bombsAndEndlessBodiesAreCutAtThePageCapInBoundedTime() {
        Fetcher f = fetcher(CONFIG, false);
        for (String path : List.of("/gzip-bomb", "/deflate-bomb", "/endless-chunked", "/too-large", "/endless-gzip")) {
            Measured m = measure(f, url(path));
            assertTrue(m.response() != null, path + ": " + m.error());
            assertTrue(m.response().truncated(), path + " is flagged truncated");
            assertTrue(m.response().body().length <= CAP, path + ": " + m.response().body().length + " bytes");
            assertTrue(m.millis() < 6000, path + " took " + m.millis() + " ms");
            // the raw body and the decoded body are each capped; a few copies of each, not gigabytes
            assertTrue(m.allocated() < 64L << 20, path + " allocated " + (m.allocated() >> 20) + " MiB");
        }
    }

    @Test
    void slowDripServersEndAtTheTimeouts() {
        Fetcher f = fetcher(CONFIG, false);
        for (String path : List.of("/drip-body", "/drip-headers", "/silent")) {
            Measured m = measure(f, url(path));
            assertTrue(m.error() != null, path + " must fail");
            assertEquals("timeout", m.error().kind(), path + ": " + m.error().getMessage());
            assertTrue(m.millis() < 6000, path + " took " + m.millis() + " ms (total timeout 4 s)");
        }
    }

    @Test
    void redirectLoopsAndRedirectsIntoInternalRangesAreRefused() {
        Fetcher f = fetcher(CONFIG, false);
        assertEquals("redirect-loop", measure(f, url("/loop-a")).error().kind());
        assertEquals("too-many-redirects", measure(f, url("/chain/0")).error().kind());
        for (String target : List.of("127.0.0.1", "10.1.2.3", "169.254.169.254", "192.168.1.1", "[::1]", "127.1",
                "0.0.0.0")) {
            Measured m = measure(f, url("/to?h=" + target));
            assertTrue(m.error() != null, "a redirect to " + target + " is not followed");
            assertTrue(List.of("refused-address", "bad-redirect").contains(m.error().kind()), target + ": "
                    + m.error().kind() + " " + m.error().getMessage());
            assertTrue(m.millis() < 2000, "refused before any connection: " + m.millis() + " ms");
        }
        assertEquals(0, server.count("/secret"), "no request reached the loopback target after a redirect");
        // a name that resolves to loopback is refused after DNS, without allow-hosts
        Fetcher strict = fetcher(ConfigFactory.parseString("peerdex.crawler.allow-hosts = []").withFallback(CONFIG), false);
        Fetcher.FetchException e = assertThrows(Fetcher.FetchException.class, () -> strict.fetch(url("/page/1")));
        assertEquals("refused-address", e.kind());
        assertTrue(e.getMessage().contains("127.0.0.1") || e.getMessage().contains("loopback"), e.getMessage());
        // intranet mode reaches loopback after the redirect (the control: the refusal above is the guard's)
        Measured ok = measure(fetcher(CONFIG, true), url("/to?h=127.0.0.1"));
        assertTrue(ok.response() != null && ok.response().status() == 200, String.valueOf(ok.error()));
        assertEquals(1, server.count("/secret"));
    }

    @Test
    void wrongContentTypesAndBrokenCharsetsGiveClearOutcomes() {
        PageProcessor p = new PageProcessor(fetcher(CONFIG, false), new HtmlDocumentParser());
        CrawlScope scope = new CrawlScope(CrawlProfile.of(url("/")));
        PageOutcome binary = p.process(url("/binary-as-html"), scope);
        assertTrue(binary instanceof PageOutcome.Skipped s && s.reason().equals("binary-content"), binary.toString());
        PageOutcome png = p.process(url("/html-as-png"), scope);
        assertTrue(png instanceof PageOutcome.Skipped s && s.reason().equals("content-type"), png.toString());
        PageOutcome charset = p.process(url("/klingon-charset"), scope);
        assertTrue(charset instanceof PageOutcome.Fetched f && f.doc().body().contains("survivor"), charset.toString());
        PageOutcome badGzip = p.process(url("/bad-gzip"), scope);
        assertTrue(badGzip instanceof PageOutcome.Failed f && f.kind().equals("encoding"), badGzip.toString());
    }

    @Test
    void aCrawlThroughEveryHostileServerFinishesAndIndexesTheGoodPages() throws Exception {
        ActorTestKit kit = ActorTestKit.create("hostile-crawl", CONFIG);
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            CrawlServices services = CrawlServices.create(kit.system(), CrawlerSettings.from(CONFIG, false), storage,
                    null, null);
            ActorRef<CrawlManager.Command> m = kit.spawn(CrawlManager.create(services), "crawls",
                    org.apache.pekko.actor.typed.Props.empty().withDispatcherFromConfig(org.peerdex.actors.Dispatchers.INDEX));
            TestProbe<CrawlManager.Started> started = kit.createTestProbe();
            long t0 = System.nanoTime();
            m.tell(new CrawlManager.Start(CrawlProfile.of(url("/")).withMinDelayMs(0).withDepth(2), started.getRef()));
            String id = started.receiveMessage().id();
            TestProbe<Optional<CrawlProgress>> probe = kit.createTestProbe();
            CrawlProgress p = probe.awaitAssert(Duration.ofSeconds(90), Duration.ofMillis(50), () -> {
                m.tell(new CrawlManager.Get(id, probe.getRef()));
                CrawlProgress q = probe.receiveMessage().orElseThrow();
                assertFalse(q.state().equals(CrawlRecord.RUNNING), "crawl still running: " + q);
                return q;
            });
            System.out.printf("hostile crawl: %s in %d ms: %d fetched, %d indexed, skipped %s, errors %s%n", p.state(),
                    (System.nanoTime() - t0) / 1_000_000, p.fetched(), p.indexed(), p.skippedBy(), p.errorsBy());
            assertEquals(CrawlRecord.FINISHED, p.state());
            for (int i = 0; i < 3; i++) {
                assertTrue(storage.metadata().contains(UrlHash.ofNormalized(url("/page/" + i))), "good page " + i);
            }
            for (String kind : List.of("timeout", "redirect-loop", "refused-address")) {
                assertTrue(p.errorsBy().getOrDefault(kind, 0L) >= 1, kind + " counted: " + p.errorsBy());
            }
            assertEquals(0, server.count("/secret"));
        } finally {
            kit.shutdownTestKit();
        }
    }

    /** A raw HTTP/1.1 server: each path writes whatever bytes it likes, as slowly as it likes. */
    static final class HostileServer implements AutoCloseable {
        private final ServerSocket socket;
        private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "hostile-server");
            t.setDaemon(true);
            return t;
        });
        private final Map<String, Integer> counts = new java.util.concurrent.ConcurrentHashMap<>();

        HostileServer() throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            pool.execute(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket s = socket.accept();
                        pool.execute(() -> serve(s));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        int port() {
            return socket.getLocalPort();
        }

        int count(String path) {
            return counts.getOrDefault(path, 0);
        }

        private void serve(Socket s) {
            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                String head = readHead(in);
                String target = head.split(" ", 3)[1];
                String path = target.contains("?") ? target.substring(0, target.indexOf('?')) : target;
                counts.merge(path, 1, Integer::sum);
                respond(path, target, out);
            } catch (IOException | RuntimeException | InterruptedException e) {
                // the fetcher hung up (cap, timeout): as it should
            }
        }

        private static String readHead(InputStream in) throws IOException {
            StringBuilder b = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0) {
                b.append((char) c);
                if (b.length() >= 4 && b.substring(b.length() - 4).equals("\r\n\r\n")) break;
            }
            return b.toString();
        }

        private static void head(OutputStream out, String status, String... headers) throws IOException {
            StringBuilder b = new StringBuilder("HTTP/1.1 ").append(status).append("\r\n");
            for (String h : headers) b.append(h).append("\r\n");
            out.write(b.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
        }

        private void respond(String path, String target, OutputStream out) throws IOException, InterruptedException {
            byte[] page = "<html><title>filler</title><body><p>bomb filler words</p>".repeat(1000)
                    .getBytes(StandardCharsets.UTF_8);
            switch (path) {
                case "/" -> {
                    StringBuilder b = new StringBuilder("<html><title>Hostile index</title><body>");
                    for (String l : List.of("/gzip-bomb", "/deflate-bomb", "/endless-chunked", "/too-large",
                            "/endless-gzip", "/drip-body", "/drip-headers", "/silent", "/loop-a", "/chain/0",
                            "/to?h=127.0.0.1", "/to?h=10.1.2.3", "/to?h=169.254.169.254", "/binary-as-html",
                            "/html-as-png", "/klingon-charset", "/bad-gzip", "/page/0", "/page/1", "/page/2")) {
                        b.append("<a href=\"").append(l).append("\">").append(l).append("</a> ");
                    }
                    html(out, b.append("</body></html>").toString());
                }
                case "/gzip-bomb" -> {
                    head(out, "200 OK", "Content-Type: text/html", "Content-Encoding: gzip",
                            "Content-Length: " + (long) gzipMember.length * 160); // 10 GiB expanded
                    for (int i = 0; i < 160; i++) out.write(gzipMember);
                }
                case "/endless-gzip" -> {
                    head(out, "200 OK", "Content-Type: text/html", "Content-Encoding: gzip", "Transfer-Encoding: chunked");
                    while (true) chunk(out, gzipMember);
                }
                case "/deflate-bomb" -> {
                    head(out, "200 OK", "Content-Type: text/html", "Content-Encoding: deflate",
                            "Content-Length: " + deflateBomb.length);
                    out.write(deflateBomb);
                }
                case "/endless-chunked" -> {
                    head(out, "200 OK", "Content-Type: text/html", "Transfer-Encoding: chunked");
                    while (true) chunk(out, page);
                }
                case "/too-large" -> {
                    long size = 200L << 20;
                    head(out, "200 OK", "Content-Type: text/html", "Content-Length: " + size);
                    for (long sent = 0; sent < size; sent += page.length) out.write(page);
                }
                case "/drip-body" -> {
                    head(out, "200 OK", "Content-Type: text/html", "Content-Length: 100000");
                    for (int i = 0; i < 100_000; i++) {
                        out.write('x');
                        out.flush();
                        Thread.sleep(200); // the server drips on purpose; the fetcher's total timeout must end it
                    }
                }
                case "/drip-headers" -> {
                    out.write("HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    for (int i = 0; i < 100_000; i++) {
                        out.write("X-Drip: 1\r\n".getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                        Thread.sleep(200); // as above, in the headers
                    }
                }
                case "/silent" -> Thread.sleep(60_000); // accepts, never answers
                case "/loop-a" -> redirect(out, "/loop-b");
                case "/loop-b" -> redirect(out, "/loop-a");
                case "/to" -> {
                    String host = target.substring(target.indexOf("h=") + 2);
                    String port = host.equals("127.0.0.1") ? ":" + port() : "";
                    redirect(out, "http://" + host + port + "/secret");
                }
                case "/secret" -> html(out, "<html><title>Internal</title><body>internal secret</body></html>");
                case "/binary-as-html" -> {
                    byte[] b = new byte[200_000];
                    new java.util.Random(3).nextBytes(b);
                    body(out, "text/html", b);
                }
                case "/html-as-png" -> body(out, "image/png", "<html><body>not a png</body></html>".getBytes());
                case "/klingon-charset" -> {
                    ByteArrayOutputStream bo = new ByteArrayOutputStream();
                    bo.write("<html><title>Charset</title><body>survivor ".getBytes(StandardCharsets.US_ASCII));
                    for (int i = 0; i < 5000; i++) bo.write(new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF});
                    bo.write("</body></html>".getBytes(StandardCharsets.US_ASCII));
                    body(out, "text/html; charset=x-klingon-9", bo.toByteArray());
                }
                case "/bad-gzip" -> {
                    head(out, "200 OK", "Content-Type: text/html", "Content-Encoding: gzip", "Content-Length: 5000");
                    out.write(new byte[5000]);
                }
                default -> {
                    if (path.startsWith("/chain/")) {
                        redirect(out, "/chain/" + (Integer.parseInt(path.substring(7)) + 1));
                    } else if (path.startsWith("/page/")) {
                        html(out, "<html><title>Good page</title><body>good page " + path + "</body></html>");
                    } else {
                        body(out, "text/plain", "not found".getBytes(StandardCharsets.US_ASCII), "404 Not Found");
                    }
                }
            }
            out.flush();
        }

        private static void chunk(OutputStream out, byte[] b) throws IOException {
            out.write((Integer.toHexString(b.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(b);
            out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }

        private static void redirect(OutputStream out, String location) throws IOException {
            head(out, "302 Found", "Location: " + location, "Content-Length: 0");
        }

        private static void html(OutputStream out, String html) throws IOException {
            body(out, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
        }

        private static void body(OutputStream out, String type, byte[] b) throws IOException {
            body(out, type, b, "200 OK");
        }

        private static void body(OutputStream out, String type, byte[] b, String status) throws IOException {
            head(out, status, "Content-Type: " + type, "Content-Length: " + b.length, "Connection: close");
            out.write(b);
        }

        @Override
        public void close() throws IOException {
            socket.close();
            pool.shutdownNow();
        }
    }
}
