package org.peerdex.node.http;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The names this peer answers to, checked against the {@code Host} header of every request and the {@code Origin}
 * of every state-changing one. A page of a hostile site whose name is made to resolve to 127.0.0.1 (DNS rebinding)
 * reaches the peer with its own name in {@code Host} and {@code Origin}; comparing Origin with Host would let it
 * pass, comparing both with this list does not.
 * <p>Defaults: {@code localhost}, {@code 127.0.0.1}, {@code [::1]} and the bound address (every local interface's
 * address when bound to a wildcard), each with the bound port. Configured entries ({@code peerdex.http.allowed-hosts})
 * are {@code name} (any port: the name a reverse proxy passes on) or {@code name:port}.
 */
public final class HostAllowlist {
    private record Entry(String host, int port) {}

    private static final int ANY = -1;
    /** the bound port, for the default entries; 0 until the server is bound */
    private volatile int boundPort;
    private final Set<String> defaults;
    private final List<Entry> configured;

    private HostAllowlist(Set<String> defaults, List<Entry> configured, int boundPort) {
        this.defaults = Collections.unmodifiableSet(defaults);
        this.configured = List.copyOf(configured);
        this.boundPort = boundPort;
    }

    /**
     * @param bindHost   the address the HTTP server binds ({@code peerdex.http.host})
     * @param bindPort   its port (0: learnt later through {@link #boundTo})
     * @param configured {@code peerdex.http.allowed-hosts}
     */
    public static HostAllowlist of(String bindHost, int bindPort, List<String> configured) {
        Set<String> d = new LinkedHashSet<>();
        for (String n : List.of("localhost", "127.0.0.1", "[::1]")) d.add(normalizeHost(n));
        String bind = normalizeHost(bindHost);
        if (isWildcard(bind)) d.addAll(interfaceAddresses());
        else if (!bind.isEmpty()) d.add(bind);
        List<Entry> c = new ArrayList<>();
        for (String s : configured) {
            String t = s.trim().toLowerCase(Locale.ROOT);
            if (t.isEmpty()) continue;
            Optional<Entry> e = authority(t, ANY);
            if (e.isEmpty() || e.get().host().isEmpty()) {
                throw new IllegalArgumentException("peerdex.http.allowed-hosts: not a host or host:port: " + s);
            }
            c.add(e.get());
        }
        return new HostAllowlist(d, c, bindPort);
    }

    /** The port the server was bound to (when configured as 0). */
    public void boundTo(int port) {
        this.boundPort = port;
    }

    /**
     * May a request with this {@code Host} header be answered? A header without a port is let in for a default name
     * (only a client that is not a browser leaves out a port other than 80).
     */
    public boolean allowsHost(String hostHeader) {
        if (hostHeader == null || hostHeader.isBlank()) return true; // HTTP/1.0 clients: no name, nothing to rebind
        return authority(hostHeader.trim().toLowerCase(Locale.ROOT), ANY).map(this::allows).orElse(false);
    }

    /** Is this {@code Origin} (or Referer) a page of this peer under one of its allowed names? */
    public boolean allowsOrigin(String origin) {
        if (origin == null) return false;
        URI uri;
        try {
            uri = URI.create(origin.trim());
        } catch (IllegalArgumentException e) {
            return false;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) return false;
        String raw = uri.getRawAuthority();
        if (raw == null || raw.contains("@")) return false;
        int implied = scheme.equals("https") ? 443 : 80;
        return authority(raw.toLowerCase(Locale.ROOT), implied).map(this::allows).orElse(false);
    }

    private boolean allows(Entry e) {
        for (Entry c : configured) {
            if (c.host().equals(e.host()) && (c.port() == ANY || c.port() == e.port())) return true;
        }
        if (!defaults.contains(e.host())) return false;
        int bound = boundPort;
        return e.port() == ANY || bound == 0 || e.port() == bound;
    }

    /** What the list holds, for error messages and the log. */
    public String describe() {
        List<String> out = new ArrayList<>();
        int bound = boundPort;
        for (String d : defaults) out.add(bound == 0 ? d : d + ":" + bound);
        for (Entry c : configured) out.add(c.port() == ANY ? c.host() : c.host() + ":" + c.port());
        return String.join(", ", out);
    }

    /** host[:port] with an IPv6 literal in brackets; {@code impliedPort} when no port is given. */
    static Optional<Entry> authority(String a, int impliedPort) {
        String host;
        String port = "";
        if (a.startsWith("[")) {
            int close = a.indexOf(']');
            if (close < 0) return Optional.empty();
            host = a.substring(0, close + 1);
            String rest = a.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) return Optional.empty();
                port = rest.substring(1);
            }
        } else {
            int colon = a.lastIndexOf(':');
            if (colon >= 0 && a.indexOf(':') != colon) return Optional.empty(); // an unbracketed IPv6 literal
            host = colon >= 0 ? a.substring(0, colon) : a;
            port = colon >= 0 ? a.substring(colon + 1) : "";
        }
        host = normalizeHost(host);
        if (host.isEmpty() || !host.matches("[a-z0-9._\\-]+|\\[[0-9a-f:.]+\\]")) return Optional.empty();
        int p = impliedPort;
        if (!port.isEmpty()) {
            if (!port.matches("\\d{1,5}")) return Optional.empty();
            p = Integer.parseInt(port);
            if (p > 65535) return Optional.empty();
        }
        return Optional.of(new Entry(host, p));
    }

    /** Lower case, no trailing dot, IPv6 literals bracketed and without a zone. */
    static String normalizeHost(String h) {
        String s = h == null ? "" : h.trim().toLowerCase(Locale.ROOT);
        if (s.endsWith(".")) s = s.substring(0, s.length() - 1);
        if (s.startsWith("[") && s.endsWith("]")) s = s.substring(1, s.length() - 1);
        if (s.contains(":")) {
            int zone = s.indexOf('%');
            if (zone >= 0) s = s.substring(0, zone);
            if (!s.matches("[0-9a-f:.]+")) return "[" + s + "]";
            try {
                // an IPv6 literal in its one canonical form (no DNS: a literal is parsed, never looked up)
                s = "[" + InetAddress.getByName(s).getHostAddress().replaceAll("%.*$", "") + "]";
            } catch (UnknownHostException | SecurityException e) {
                s = "[" + s + "]";
            }
        }
        return s;
    }

    private static boolean isWildcard(String bind) {
        return bind.equals("0.0.0.0") || bind.equals("[0:0:0:0:0:0:0:0]");
    }

    private static List<String> interfaceAddresses() {
        List<String> out = new ArrayList<>();
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    String s = a.getHostAddress().replaceAll("%.*$", "");
                    out.add(a instanceof Inet6Address ? normalizeHost(s) : s);
                }
            }
        } catch (SocketException e) {
            // no interfaces listed: the configured names remain
        }
        return out;
    }
}
