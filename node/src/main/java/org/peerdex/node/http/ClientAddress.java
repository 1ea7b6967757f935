package org.peerdex.node.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.extractRequest;

/**
 * Who sent a request. By default the address of the socket, never {@code X-Forwarded-For} or {@code X-Real-Ip},
 * which any client can send (a remote client claiming 127.0.0.1 would pass the admin guard). Requests whose socket
 * address is a configured trusted proxy ({@code peerdex.http.trusted-proxies}) are the proxy's clients': the client
 * is the right-most address in {@code X-Forwarded-For} / {@code Forwarded: for=} that is not itself a trusted proxy,
 * and such a request is never loopback, even when the proxy and its client both sit on this machine.
 */
public final class ClientAddress {
    /** Addresses and prefixes ("10.0.0.0/8", "::1"). */
    private final List<Cidr> trustedProxies;

    /**
     * The client of a request.
     *
     * @param address its address (null when a proxy named none we can read)
     * @param key     what rate limits are keyed on
     * @param proxied the request came through a trusted proxy
     */
    public record Client(InetAddress address, String key, boolean proxied) {
        /** A direct connection from this machine: the only kind that may count as the operator at the console. */
        public boolean loopback() {
            return !proxied && address != null && address.isLoopbackAddress();
        }
    }

    public ClientAddress(List<String> trustedProxies) {
        List<Cidr> c = new ArrayList<>();
        for (String s : trustedProxies) {
            if (!s.isBlank()) c.add(Cidr.parse(s.trim()));
        }
        this.trustedProxies = List.copyOf(c);
    }

    /** True when some proxy is trusted: then the peer is taken to be reachable from beyond this machine. */
    public boolean proxiesConfigured() {
        return !trustedProxies.isEmpty();
    }

    /** The client of the request (needs pekko.http.server.remote-address-attribute = on). */
    Route extract(Function<Client, Route> inner) {
        return extractRequest(req -> inner.apply(of(req)));
    }

    Client of(HttpRequest req) {
        Optional<InetAddress> socket = req.getAttribute(AttributeKeys.remoteAddress).flatMap(a -> a.getAddress());
        return resolve(socket.orElse(null), req);
    }

    Client resolve(InetAddress socket, HttpRequest req) {
        if (socket == null) return new Client(null, "unknown", false);
        if (!trusted(socket)) return new Client(socket, socket.getHostAddress(), false);
        // the hops in order, the proxy's own peer last; the right-most one not a trusted proxy is the client
        List<String> hops = new ArrayList<>();
        for (HttpHeader h : req.getHeaders()) {
            String name = h.lowercaseName();
            if (name.equals("forwarded")) {
                for (String element : h.value().split(",")) {
                    for (String pair : element.split(";")) {
                        String p = pair.trim();
                        if (p.toLowerCase(Locale.ROOT).startsWith("for=")) hops.add(p.substring(4));
                    }
                }
            } else if (name.equals("x-forwarded-for")) {
                for (String a : h.value().split(",")) hops.add(a);
            }
        }
        for (int i = hops.size() - 1; i >= 0; i--) {
            String raw = hops.get(i).trim();
            Optional<InetAddress> a = literal(raw);
            if (a.isEmpty()) {
                // "unknown", an obfuscated name: a client we cannot place, keyed by what the proxy said
                return new Client(null, "forwarded:" + raw, true);
            }
            if (!trusted(a.get())) return new Client(a.get(), a.get().getHostAddress(), true);
        }
        // the proxy named no client: it is the client, but through a proxy, so never loopback
        return new Client(socket, socket.getHostAddress(), true);
    }

    private boolean trusted(InetAddress a) {
        for (Cidr c : trustedProxies) if (c.contains(a)) return true;
        return false;
    }

    /** An IP literal as a proxy writes it: {@code 192.0.2.1}, {@code 192.0.2.1:4711}, {@code "[2001:db8::1]:4711"}. */
    static Optional<InetAddress> literal(String raw) {
        String s = raw.trim();
        if (s.startsWith("\"") && s.endsWith("\"") && s.length() >= 2) s = s.substring(1, s.length() - 1);
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) return Optional.empty();
            s = s.substring(1, close);
        } else if (s.indexOf(':') > 0 && s.indexOf(':') == s.lastIndexOf(':')) {
            s = s.substring(0, s.indexOf(':')); // IPv4 with a port
        }
        // literals only: InetAddress.getByName would look a name up in DNS
        if (!s.matches("\\d{1,3}(\\.\\d{1,3}){3}") && !(s.contains(":") && s.matches("[0-9A-Fa-f:.]+"))) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByName(s));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    /** An address prefix. */
    record Cidr(byte[] network, int bits) {
        static Cidr parse(String s) {
            int slash = s.indexOf('/');
            String addr = slash < 0 ? s : s.substring(0, slash);
            Optional<InetAddress> a = literal(addr);
            if (a.isEmpty()) {
                throw new IllegalArgumentException("peerdex.http.trusted-proxies: not an IP address or prefix: " + s);
            }
            byte[] b = a.get().getAddress();
            int bits = b.length * 8;
            if (slash >= 0) {
                try {
                    bits = Integer.parseInt(s.substring(slash + 1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("peerdex.http.trusted-proxies: bad prefix length: " + s);
                }
                if (bits < 0 || bits > b.length * 8) {
                    throw new IllegalArgumentException("peerdex.http.trusted-proxies: bad prefix length: " + s);
                }
            }
            return new Cidr(b, bits);
        }

        boolean contains(InetAddress a) {
            byte[] x = a.getAddress();
            if (x.length != network.length) return false;
            for (int i = 0; i < bits; i++) {
                int mask = 0x80 >> (i % 8);
                if ((x[i / 8] & mask) != (network[i / 8] & mask)) return false;
            }
            return true;
        }
    }
}
