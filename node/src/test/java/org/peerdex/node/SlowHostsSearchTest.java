package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.crawl.TestSite;

/**
 * A wide crawl over 40 slow hosts (each its own port on 127.0.0.1, answering robots.txt at once and then dripping
 * every page out over half a minute) must not stall search: fetches hold fetch threads, never search threads.
 * Searches are timed on an idle peer and again while the fetches hang; every loaded search must find the page and
 * stay within max(2 x idle p99, idle p99 + 250 ms). The figures are printed.
 */
class SlowHostsSearchTest {
    private static final int SLOW_HOSTS = 40;
    /** how long a slow host takes to send one page: longer than the loaded measurement can last */
    private static final int DRIP_SECONDS = 40;
    private static final Duration LOADED_BUDGET = Duration.ofSeconds(15);
    private static final int SEARCHES = 60;

    @TempDir
    Path dir;

    @Test
    void searchLatencyStaysNearIdleWhileFortySlowHostsAreCrawled() throws Exception {
        List<DripServer> slow = new ArrayList<>();
        try (TestSite tarn = CrawlApiTest.serve(CrawlApiTest::tarn);
             TestSite hub = new TestSite();
             PeerNode node = PeerNode.start(TestPeers.config(dir, Map.of("peerdex.crawler.allow-loopback", true,
                     "peerdex.indexer.flush-interval", "20ms")))) {
            try {
                String tarnCrawl = CrawlApiTest.post(node.baseUrl() + "/api/crawl", "{\"url\": \""
                        + tarn.url("/index.html") + "\", \"minDelayMs\": 0, \"depth\": 5}").json().get("id").asText();
                assertEquals("finished", CrawlApiTest.awaitEnd(node, tarnCrawl, Duration.ofSeconds(60))
                        .get("state").asText());
                String search = node.baseUrl() + "/api/search?q=compaction&resource=local&count=10";
                for (int i = 0; i < 10; i++) timedSearch(search); // warm up: JIT, caches, connections
                Histogram idle = new Histogram(3); // milliseconds, 3 significant digits
                for (int i = 0; i < SEARCHES; i++) idle.recordValue(timedSearch(search).millis());

                StringBuilder links = new StringBuilder("<html><head><title>hub</title></head><body>");
                for (int i = 0; i < SLOW_HOSTS; i++) {
                    DripServer s = new DripServer(DRIP_SECONDS);
                    slow.add(s);
                    links.append("<a href=\"").append(s.base()).append("/page.html\">slow ").append(i).append("</a> ");
                }
                hub.page("/index.html", links.append("</body></html>").toString());
                TestPeers.Reply wide = CrawlApiTest.post(node.baseUrl() + "/api/crawl", "{\"url\": \""
                        + hub.url("/index.html") + "\", \"range\": \"wide\", \"depth\": 1, \"minDelayMs\": 0}");
                assertEquals(200, wide.status(), wide.json().toString());
                // the old single pool of 16 threads is full once 16 pages hang; wait until at least that many do
                await(Duration.ofSeconds(30), "16 slow fetches hanging", () -> hanging(slow) >= 16);
                int hangingBefore = hanging(slow);

                Histogram l = new Histogram(3);
                int missing = 0;
                long deadline = System.nanoTime() + LOADED_BUDGET.toNanos();
                while (l.getTotalCount() < SEARCHES && System.nanoTime() < deadline) {
                    Timed t = timedSearch(search);
                    l.recordValue(t.millis());
                    if (t.total() < 1) missing++;
                }
                int hangingAfter = hanging(slow);

                long idleP99 = idle.getValueAtPercentile(99);
                long bound = Math.max(2 * idleP99, idleP99 + 250);
                System.out.printf("slow-hosts search: idle n=%d p50=%d ms p99=%d ms max=%d ms | under a crawl of %d "
                                + "slow hosts (%d..%d pages hanging) n=%d p50=%d ms p99=%d ms max=%d ms, %d without "
                                + "results | bound %d ms%n", idle.getTotalCount(), idle.getValueAtPercentile(50), idleP99,
                        idle.getMaxValue(), SLOW_HOSTS, hangingBefore, hangingAfter, l.getTotalCount(),
                        l.getValueAtPercentile(50), l.getValueAtPercentile(99), l.getMaxValue(), missing, bound);
                assertTrue(hangingAfter >= 16, "the slow fetches still hung while searches were timed: "
                        + hangingAfter);
                assertEquals(0, missing, "every search under load found the page");
                assertTrue(l.getTotalCount() >= SEARCHES, "only " + l.getTotalCount() + " searches completed in " + LOADED_BUDGET
                        + "; they waited behind the fetches");
                assertTrue(l.getValueAtPercentile(99) <= bound, "search p99 under load " + l.getValueAtPercentile(99)
                        + " ms exceeds " + bound + " ms (idle p99 " + idleP99 + " ms)");
            } finally {
                for (DripServer s : slow) s.close(); // the hanging fetches fail at once, the peer stops quickly
            }
        }
    }

    /** One search's wall time and its total. */
    private record Timed(long millis, long total) {}

    private static Timed timedSearch(String url) throws Exception {
        long t0 = System.nanoTime();
        HttpResponse<String> r = TestPeers.HTTP.send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(40)).GET().build(), HttpResponse.BodyHandlers.ofString());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        long total = 0;
        if (r.statusCode() == 200) {
            JsonNode j = org.peerdex.node.http.Json.MAPPER.readTree(r.body());
            total = j.path("total").asLong();
        }
        return new Timed(ms, total);
    }

    private static int hanging(List<DripServer> servers) {
        int n = 0;
        for (DripServer s : servers) n += s.hanging.get();
        return n;
    }

    private static void await(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // poll interval
        }
    }

    /**
     * A slow host on its own port of 127.0.0.1: robots.txt is answered 404 at once (no rules); any other path gets
     * its headers at once and then its body one byte a second for {@code seconds}, so the client's read timeout
     * never fires and the fetch holds its thread the whole time.
     */
    static final class DripServer implements AutoCloseable {
        private static final byte[] PAGE = ("<html><head><title>slow</title></head><body>a slow page</body></html>")
                .getBytes(StandardCharsets.UTF_8);
        private final ServerSocket socket;
        private final int seconds;
        final AtomicInteger hanging = new AtomicInteger();
        private final Set<Socket> open = ConcurrentHashMap.newKeySet();
        private volatile boolean closed;

        DripServer(int seconds) throws IOException {
            this.seconds = seconds;
            this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread t = new Thread(this::accept, "drip-accept-" + socket.getLocalPort());
            t.setDaemon(true);
            t.start();
        }

        String base() {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }

        private void accept() {
            while (!closed) {
                try {
                    Socket s = socket.accept();
                    open.add(s);
                    Thread t = new Thread(() -> serve(s), "drip-" + socket.getLocalPort());
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return; // closed
                }
            }
        }

        private void serve(Socket s) {
            try (s) {
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
                        StandardCharsets.ISO_8859_1));
                String requestLine = in.readLine();
                for (String h = in.readLine(); h != null && !h.isEmpty(); h = in.readLine()) {
                    // headers are not needed
                }
                OutputStream out = s.getOutputStream();
                if (requestLine == null || requestLine.contains("/robots.txt")) {
                    out.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    return;
                }
                hanging.incrementAndGet();
                try {
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: "
                            + (seconds + PAGE.length) + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    for (int i = 0; i < seconds && !closed; i++) {
                        out.write(' ');
                        out.flush();
                        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // the host's pace, not a wait
                    }
                    out.write(PAGE);
                    out.flush();
                } finally {
                    hanging.decrementAndGet();
                }
            } catch (IOException e) {
                // the client gave up or the server closed
            } finally {
                open.remove(s);
            }
        }

        @Override
        public void close() {
            closed = true;
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            for (Socket s : open) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
    }
}
