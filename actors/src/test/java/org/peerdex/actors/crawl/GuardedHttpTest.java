package org.peerdex.actors.crawl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The guarded HTTP stack against SSRF, over real servers on loopback: a rebinding name server (a public answer for
 * the check, 127.0.0.1 for the connect) and a redirect from an allowed host into loopback. The internal service
 * counts its requests; it must see none.
 */
class GuardedHttpTest {
    /** TEST-NET-3: public as far as the guard can tell, and never connected to here (the second answer is used). */
    static final InetAddress PUBLIC = address("203.0.113.7");
    static final InetAddress LOOPBACK = address("127.0.0.1");

    HttpServer internal;
    HttpServer allowed;
    final AtomicInteger internalHits = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        internal = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        internal.createContext("/", ex -> {
            internalHits.incrementAndGet();
            byte[] b = "internal secret".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        internal.start();
        // an "outside" host: 127.0.0.2, let through by allow-hosts, which redirects into loopback
        allowed = HttpServer.create(new InetSocketAddress("127.0.0.2", 0), 0);
        allowed.createContext("/", ex -> {
            ex.getResponseHeaders().add("Location", "http://127.0.0.1:" + internal.getAddress().getPort() + "/admin");
            ex.sendResponseHeaders(302, -1);
            ex.close();
        });
        allowed.start();
    }

    @AfterEach
    void stop() {
        internal.stop(0);
        allowed.stop(0);
    }

    static CrawlerSettings settings(String extra) {
        return CrawlerSettings.from(ConfigFactory.parseString(extra).withFallback(ConfigFactory.load()).resolve(),
                false);
    }

    /** A name server that answers a public address once (the check), then loopback (the connect). */
    static AddressGuard.Lookup rebinding(AtomicInteger asked) {
        return host -> asked.getAndIncrement() == 0 ? new InetAddress[] {PUBLIC} : new InetAddress[] {LOOPBACK};
    }

    @Test
    void aRebindingNameCannotMakeTheFetcherConnectToLoopback() {
        CrawlerSettings s = settings("peerdex.crawler.allow-loopback = off");
        AtomicInteger asked = new AtomicInteger();
        AddressGuard guard = new AddressGuard(s).withLookup(rebinding(asked));
        // "localhost": a resolver that bypassed the guard (the JDK's own) would find 127.0.0.1 for it too
        String url = "http://localhost:" + internal.getAddress().getPort() + "/admin";
        Fetcher.FetchException e = assertThrows(Fetcher.FetchException.class, () -> new Fetcher(s, guard).fetch(url));
        System.out.println("rebinding fetch: " + e.kind() + ": " + e.getMessage() + "; lookups " + asked.get()
                + ", internal requests " + internalHits.get());
        assertEquals("refused-address", e.kind());
        assertEquals(0, internalHits.get(), "the internal service was reached");
    }

    @Test
    void theResolverHandsTheClientOnlyCheckedAddresses() throws Exception {
        CrawlerSettings s = settings("peerdex.crawler.allow-loopback = off");
        AtomicInteger asked = new AtomicInteger();
        AddressGuard guard = new AddressGuard(s).withLookup(rebinding(asked));
        GuardedHttp.GuardedResolver resolver = new GuardedHttp.GuardedResolver(guard);
        guard.check("rebind.example"); // the check sees the public answer
        // the connect-time lookup sees loopback and is refused, as an UnknownHostException the client gives up on
        assertThrows(UnknownHostException.class, () -> resolver.resolve("rebind.example"));
        // a name whose every answer is allowed comes back as answered: these are the addresses connected to
        AddressGuard open = new AddressGuard(s).withLookup(h -> new InetAddress[] {PUBLIC});
        assertEquals(List.of(PUBLIC), List.of(new GuardedHttp.GuardedResolver(open).resolve("public.example")));
    }

    @Test
    void aRedirectFromAnAllowedHostIntoLoopbackIsRefused() {
        CrawlerSettings s = settings("peerdex.crawler.allow-loopback = off\npeerdex.crawler.allow-hosts = [\"127.0.0.2\"]");
        String url = "http://127.0.0.2:" + allowed.getAddress().getPort() + "/start";
        Fetcher.FetchException e = assertThrows(Fetcher.FetchException.class,
                () -> new Fetcher(s, new AddressGuard(s)).fetch(url));
        System.out.println("redirect into loopback: " + e.kind() + ": " + e.getMessage());
        assertEquals("refused-address", e.kind());
        assertTrue(e.redirects().get(0).contains("127.0.0.1"));
        assertEquals(0, internalHits.get(), "the internal service was reached");
    }

    @Test
    void allowLoopbackStillReachesLoopback() throws Exception {
        CrawlerSettings s = settings("peerdex.crawler.allow-loopback = on");
        Fetcher.Response r = new Fetcher(s, new AddressGuard(s))
                .fetch("http://127.0.0.1:" + internal.getAddress().getPort() + "/page");
        assertEquals(200, r.status());
        assertEquals("internal secret", new String(r.body(), StandardCharsets.UTF_8));
        assertEquals(1, internalHits.get());
    }

    static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
