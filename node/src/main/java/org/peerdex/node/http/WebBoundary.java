package org.peerdex.node.http;

import com.typesafe.config.Config;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.extractRequest;
import static org.apache.pekko.http.javadsl.server.Directives.mapResponse;

/**
 * The checks every request to the peer's web server passes before any route (docs/security.md, "Web boundaries"):
 * its {@code Host} must be one of the peer's names ({@link HostAllowlist}; else 421), a state-changing request's
 * {@code Origin} must be a page of this peer ({@link SameOrigin}; else 403), and every response carries a
 * Content-Security-Policy that allows only the peer's own scripts, no framing (the embeddable search widget
 * excepted), {@code X-Content-Type-Options: nosniff} and a same-origin Referrer-Policy. It also knows who the
 * client is ({@link ClientAddress}) and whether the peer can be reached from beyond this machine, which makes an
 * admin password mandatory ({@link AdminGuard}).
 */
public final class WebBoundary {
    /** The policy of every page and answer: the peer's own scripts, styles and connections, nothing inline. */
    public static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
            + "frame-ancestors 'none'";
    /** The embeddable search widget (/search.html) may be framed by any site; everything else is the same. */
    public static final String WIDGET_CSP = CSP.replace("frame-ancestors 'none'", "frame-ancestors *");

    private final HostAllowlist hosts;
    private final ClientAddress clients;
    private final String bindHost;
    private final boolean beyondLoopback;

    public WebBoundary(HostAllowlist hosts, ClientAddress clients, String bindHost, boolean beyondLoopback) {
        this.hosts = hosts;
        this.clients = clients;
        this.bindHost = bindHost;
        this.beyondLoopback = beyondLoopback;
    }

    /** From the node's config: {@code peerdex.http.host/port/allowed-hosts/trusted-proxies}. */
    public static WebBoundary from(Config root) {
        Config c = root.getConfig("peerdex.http");
        String host = c.getString("host");
        List<String> allowed = c.hasPath("allowed-hosts") ? c.getStringList("allowed-hosts") : List.of();
        List<String> proxies = c.hasPath("trusted-proxies") ? c.getStringList("trusted-proxies") : List.of();
        return new WebBoundary(HostAllowlist.of(host, c.getInt("port"), allowed), new ClientAddress(proxies), host,
                !isLoopback(host));
    }

    /** Is this bind address loopback only? A name is resolved as the server's bind would resolve it. */
    static boolean isLoopback(String host) {
        try {
            for (InetAddress a : InetAddress.getAllByName(HostAllowlist.normalizeHost(host).replaceAll("[\\[\\]]", ""))) {
                if (!a.isLoopbackAddress()) return false;
            }
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    public HostAllowlist hosts() {
        return hosts;
    }

    public ClientAddress clients() {
        return clients;
    }

    /** The server's port, once bound (the default names carry it). */
    public void boundTo(int port) {
        hosts.boundTo(port);
    }

    /**
     * Why admin needs credentials even from this machine, or empty: the peer listens beyond loopback, or behind a
     * reverse proxy (every proxied request would otherwise arrive from loopback).
     */
    public Optional<String> adminNeedsCredentials() {
        if (beyondLoopback) return Optional.of("this peer listens on " + bindHost + ", beyond loopback");
        if (clients.proxiesConfigured()) return Optional.of("this peer sits behind a reverse proxy (peerdex.http.trusted-proxies)");
        return Optional.empty();
    }

    /** The checks and headers around the whole route tree. */
    public Route guard(Supplier<Route> inner) {
        return mapResponse(WebBoundary::withSecurityHeaders, () -> extractRequest(req -> {
            String host = req.getHeader("Host").map(HttpHeader::value).orElse("");
            if (!hosts.allowsHost(host)) {
                return Json.error(StatusCodes.MISDIRECTED_REQUEST, "this peer does not answer to the name '"
                        + abbreviate(host) + "'; its operator can add it to peerdex.http.allowed-hosts");
            }
            Optional<String> crossOrigin = SameOrigin.problem(req, hosts);
            if (crossOrigin.isPresent()) return Json.error(StatusCodes.FORBIDDEN, crossOrigin.get());
            return inner.get();
        }));
    }

    /** Adds the security headers a response does not set itself (the widget sets its own policy). */
    static HttpResponse withSecurityHeaders(HttpResponse r) {
        HttpResponse out = r;
        boolean ownPolicy = r.getHeader("Content-Security-Policy").isPresent();
        if (!ownPolicy) {
            out = out.addHeader(RawHeader.create("Content-Security-Policy", CSP))
                    .addHeader(RawHeader.create("X-Frame-Options", "DENY"));
        }
        if (r.getHeader("X-Content-Type-Options").isEmpty()) {
            out = out.addHeader(RawHeader.create("X-Content-Type-Options", "nosniff"));
        }
        if (r.getHeader("Referrer-Policy").isEmpty()) {
            // not no-referrer: with it browsers send "Origin: null" on same-origin writes, which SameOrigin refuses
            out = out.addHeader(RawHeader.create("Referrer-Policy", "same-origin"));
        }
        return out;
    }

    private static String abbreviate(String s) {
        return s.length() <= 100 ? s : s.substring(0, 100) + "…";
    }
}
