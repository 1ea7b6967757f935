package org.peerdex.actors.importer;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.peerdex.actors.crawl.GuardedHttp;

/**
 * Finds HTTP(S) servers in address ranges (IPv4: single addresses, CIDR blocks, first-last ranges) by a TCP
 * connect and a GET of "/" on each port, and offers them as crawl starts. Intranet mode only (the node refuses it
 * otherwise); bounded in addresses, with a short timeout per probe and a small pool of probing threads.
 */
public final class NetworkScanner {
    private static final Pattern CIDR = Pattern.compile("(\\d+\\.\\d+\\.\\d+\\.\\d+)/(\\d{1,2})");
    private static final Pattern RANGE = Pattern.compile("(\\d+\\.\\d+\\.\\d+\\.\\d+)\\s*-\\s*(\\d+\\.\\d+\\.\\d+\\.\\d+)");
    private static final Pattern TITLE = Pattern.compile("(?is)<title[^>]*>(.*?)</title>");
    private final List<Integer> ports;
    private final Duration timeout;
    private final int maxAddresses;

    /** A server found. @param url the crawl start ("http://10.0.0.5:8080/") */
    public record Server(String url, int status, String serverHeader, String title) {}

    public NetworkScanner(List<Integer> ports, Duration timeout, int maxAddresses) {
        this.ports = List.copyOf(ports);
        this.timeout = timeout;
        this.maxAddresses = maxAddresses;
    }

    /** The addresses of the ranges, in order. @throws IllegalArgumentException for a bad range or too many addresses */
    public List<InetAddress> addresses(List<String> ranges) {
        List<InetAddress> out = new ArrayList<>();
        for (String raw : ranges) {
            String r = raw.strip();
            long first;
            long last;
            Matcher c = CIDR.matcher(r);
            Matcher d = RANGE.matcher(r);
            if (c.matches()) {
                int bits = Integer.parseInt(c.group(2));
                if (bits > 32) throw new IllegalArgumentException("bad prefix length in " + r);
                long base = ipv4(c.group(1)) & (bits == 0 ? 0 : (0xffffffffL << (32 - bits)) & 0xffffffffL);
                first = base;
                last = base + (1L << (32 - bits)) - 1;
                if (bits <= 30) { // leave out the network and broadcast addresses
                    first++;
                    last--;
                }
            } else if (d.matches()) {
                first = ipv4(d.group(1));
                last = ipv4(d.group(2));
                if (last < first) throw new IllegalArgumentException("range ends before it starts: " + r);
            } else {
                first = ipv4(r);
                last = first;
            }
            if (out.size() + (last - first + 1) > maxAddresses) {
                throw new IllegalArgumentException("a scan covers at most " + maxAddresses + " addresses");
            }
            for (long a = first; a <= last; a++) out.add(address(a));
        }
        return out;
    }

    private static long ipv4(String s) {
        String[] p = s.split("\\.");
        if (p.length != 4) throw new IllegalArgumentException("not an IPv4 address or range: " + s);
        long v = 0;
        for (String x : p) {
            int o;
            try {
                o = Integer.parseInt(x);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not an IPv4 address or range: " + s);
            }
            if (o < 0 || o > 255) throw new IllegalArgumentException("not an IPv4 address or range: " + s);
            v = (v << 8) | o;
        }
        return v;
    }

    private static InetAddress address(long v) {
        try {
            return Inet4Address.getByAddress(new byte[] {(byte) (v >> 24), (byte) (v >> 16), (byte) (v >> 8), (byte) v});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Probes every (address, port); returns the HTTP(S) servers found, in address and port order. */
    public List<Server> scan(List<InetAddress> addresses, java.util.function.BooleanSupplier stopped) {
        // the shared stack under intranet policy (a scan runs only in intranet mode): deadlines and a body cap
        GuardedHttp client = new GuardedHttp(new FetchPolicy(true, true).guard());
        ExecutorService pool = Executors.newFixedThreadPool(16, r -> {
            Thread t = new Thread(r, "peerdex-scanner");
            t.setDaemon(true);
            return t;
        });
        List<Future<Server>> probes = new ArrayList<>();
        try {
            for (InetAddress a : addresses) {
                for (int port : ports) {
                    probes.add(pool.submit(() -> stopped.getAsBoolean() ? null : probe(client, a, port)));
                }
            }
            List<Server> found = new ArrayList<>();
            for (Future<Server> f : probes) {
                try {
                    Server s = f.get(timeout.toMillis() * 4 + 10_000, TimeUnit.MILLISECONDS);
                    if (s != null) found.add(s);
                } catch (Exception e) {
                    // a probe that failed or hung found nothing
                }
            }
            return Collections.unmodifiableList(found);
        } finally {
            pool.shutdownNow();
            client.close();
        }
    }

    private Server probe(GuardedHttp client, InetAddress a, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(a, port), (int) timeout.toMillis());
        } catch (IOException e) {
            return null;
        }
        boolean tls = port == 443 || port == 8443;
        String url = (tls ? "https://" : "http://") + a.getHostAddress() + ((tls && port == 443) || (!tls && port == 80)
                ? "" : ":" + port) + "/";
        long ms = timeout.toMillis();
        try {
            GuardedHttp.Response r = client.get(url, new GuardedHttp.Limits(ms, ms * 4, ms * 4, 65536, 0).returningRedirects(),
                    java.util.Map.of("User-Agent", PageFetcher.USER_AGENT));
            String body = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
            Matcher m = TITLE.matcher(body);
            return new Server(url, r.status(), r.header("Server"), m.find() ? m.group(1).strip() : "");
        } catch (GuardedHttp.FetchException e) {
            return null; // an open port that does not speak HTTP
        }
    }

    /**
     * The scan as an import: servers found become {@code details.starts}; with {@code index} the front pages that
     * answered 200 are handed to the crawler as the start pages of one crawl ({@link CrawledImport}).
     */
    public ImportSource source(List<String> ranges, CrawledImport.Crawls crawls, boolean index) {
        List<InetAddress> addresses = addresses(ranges); // bad ranges fail the request, not the job
        return ctx -> {
            ctx.detail("addresses", addresses.size());
            ctx.detail("ports", ports);
            List<Server> found = scan(addresses, ctx::stopped);
            List<java.util.Map<String, Object>> starts = new ArrayList<>();
            for (Server s : found) {
                starts.add(java.util.Map.of("url", s.url(), "status", s.status(), "server", s.serverHeader(),
                        "title", s.title()));
            }
            ctx.detail("starts", starts);
            if (!index) return;
            List<org.peerdex.storage.frontier.Frontier.Candidate> pages = new ArrayList<>();
            for (Server s : found) {
                var n = org.peerdex.protocol.url.UrlNormalizer.normalize(s.url());
                if (s.status() == 200 && n.isPresent()) pages.add(new org.peerdex.storage.frontier.Frontier.Candidate(n.get(), 0));
                else ctx.skipped("status " + s.status() + " at " + s.url());
            }
            if (pages.isEmpty() || ctx.stopped()) return;
            CrawledImport.run(ctx, crawls, CrawledImport.pagesProfile(pages), pages, 0);
        };
    }
}
