package org.peerdex.protocol.hash;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Set;
import org.peerdex.protocol.ring.RingPosition;
import org.peerdex.protocol.url.UrlNormalizer;

/**
 * YaCy's URL hash, 12 characters: 5 of the MD5 of the normalized URL, 1 of subdomain/port/first path segment,
 * 5 of protocol/host/port, 1 flag character (non-http bit, domain class, domain-length class). The last 6 are
 * the host hash. No DNS lookup is ever made: the domain class comes from the name alone.
 */
public record UrlHash(String value) implements Comparable<UrlHash> {
    public static final int LENGTH = 12;
    private static final Set<String> GENERIC_TLDS = Set.of("com", "net", "org", "edu", "gov", "mil", "int", "info",
            "biz", "name", "pro", "aero", "coop", "museum", "mobi", "asia", "tel", "travel", "jobs", "cat", "io", "dev",
            "app");

    public UrlHash {
        if (!Base64Order.isHash(value, LENGTH)) throw new IllegalArgumentException("not a URL hash: " + value);
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static UrlHash parse(String value) {
        return new UrlHash(value);
    }

    /** Hashes a URL after normalizing it; throws IllegalArgumentException for a URL that does not normalize. */
    public static UrlHash of(String url) {
        String normal = UrlNormalizer.normalize(url)
                .orElseThrow(() -> new IllegalArgumentException("not an http(s) URL: " + url));
        return ofNormalized(normal);
    }

    /** Hashes a URL that is already in {@link UrlNormalizer} normal form. */
    public static UrlHash ofNormalized(String normalUrl) {
        URI uri;
        try {
            uri = new URI(normalUrl);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URL: " + normalUrl, e);
        }
        String protocol = uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        int port = uri.getPort() >= 0 ? uri.getPort() : protocol.equals("https") ? 443 : 80;
        String path = uri.getRawPath() == null ? "/" : uri.getRawPath();

        int lastDot = host.lastIndexOf('.');
        String tld = lastDot > 0 ? host.substring(lastDot + 1) : "";
        String dom = lastDot > 0 ? host.substring(0, lastDot) : host;
        int subDot = dom.lastIndexOf('.');
        String subdom = subDot <= 0 ? "" : dom.substring(0, subDot);
        int start = path.startsWith("/") ? 1 : 0;
        int end = path.endsWith("/") ? path.length() - 2 : path.length() - 1;
        int slash = path.indexOf('/', start);
        String rootPath = slash > 0 && slash < end ? path.substring(start, slash) : "";

        int l = dom.length();
        int domLengthKey = l <= 8 ? 0 : l <= 12 ? 1 : l <= 16 ? 2 : 3;
        int flag = (protocol.startsWith("http") ? 0 : 32) | (domainClass(host, tld) << 2) | domLengthKey;

        String hash = Base64Order.md5Prefix(normalUrl, 5)
                + Base64Order.md5Prefix(subdom + ":" + port + ":" + rootPath, 1)
                + Base64Order.md5Prefix(protocol + ":" + host + ":" + port, 5)
                + Base64Order.character(flag);
        return new UrlHash(hash);
    }

    /** 7 = local (loopback, private or link-local literal, .local, localhost); 6 = other IP literal; 0..2 by TLD. */
    static int domainClass(String host, String tld) {
        if (host.equals("localhost") || host.endsWith(".localhost") || host.endsWith(".local")
                || host.endsWith(".internal") || host.endsWith(".lan")) return 7;
        if (host.startsWith("[") || host.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            return isPrivateLiteral(host) ? 7 : 6;
        }
        if (GENERIC_TLDS.contains(tld)) return 0;
        if (tld.length() == 2) return 1;
        return 2;
    }

    private static boolean isPrivateLiteral(String host) {
        return host.startsWith("127.") || host.startsWith("10.") || host.startsWith("192.168.")
                || host.startsWith("169.254.") || host.matches("172\\.(1[6-9]|2\\d|3[01])\\..*")
                || host.equals("[::1]") || host.startsWith("[fc") || host.startsWith("[fd") || host.startsWith("[fe80");
    }

    /** The last 6 characters: the same for every URL of one protocol, host and port. */
    public String hostHash() {
        return value.substring(6);
    }

    /** The URL's position on the ring; its top bits choose the vertical partition of all its postings. */
    public long position() {
        return RingPosition.of(value);
    }

    @JsonValue
    @Override
    public String value() {
        return value;
    }

    @Override
    public int compareTo(UrlHash o) {
        return Base64Order.compare(value, o.value); // ring order, as stored
    }

    @Override
    public String toString() {
        return value;
    }
}
