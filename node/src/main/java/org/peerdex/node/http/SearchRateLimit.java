package org.peerdex.node.http;

import com.typesafe.config.Config;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.Uri;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.Route;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequest;
import static org.apache.pekko.http.javadsl.server.Directives.mapRequest;
import static org.apache.pekko.http.javadsl.server.Directives.respondWithHeader;

/**
 * Search rate limits per client address (two token buckets each): a client over its global-search budget is
 * downgraded to a local search (as YaCy does with heavy remote clients; the answer carries
 * {@code X-Peerdex-Downgraded: local}); a client over its search budget gets 429 with Retry-After. The client is
 * the socket's address, or behind a trusted reverse proxy the forwarded one ({@link ClientAddress}); only direct
 * loopback connections are exempt ({@code exempt-loopback}), never proxied ones. Only search
 * paths are counted. Keys in node's reference.conf under {@code peerdex.http.search-rate-limit}.
 */
public final class SearchRateLimit {
    /** The paths that run a query. */
    static final java.util.Set<String> SEARCH_PATHS = java.util.Set.of("/api/search", "/api/search/stream",
            "/yacysearch.json", "/yacysearch.rss", "/solr/select");

    /** Solr's select with any core name, with or without pysolr's trailing slash. */
    private static final Pattern SOLR_SELECT = Pattern.compile("/solr(/[^/]+)?/select/?");

    static boolean isSearchPath(String path) {
        return SEARCH_PATHS.contains(path) || SOLR_SELECT.matcher(path).matches();
    }

    private final boolean enabled;
    private final boolean exemptLoopback;
    private final ClientAddress clients;
    private final TokenBuckets searches;
    private final TokenBuckets global;
    public final AtomicLong limited = new AtomicLong();
    public final AtomicLong downgraded = new AtomicLong();

    public SearchRateLimit(boolean enabled, boolean exemptLoopback, double perSecond, int burst,
                           double globalPerSecond, int globalBurst, int maxClients, ClientAddress clients) {
        this.enabled = enabled;
        this.clients = clients;
        this.exemptLoopback = exemptLoopback;
        this.searches = new TokenBuckets(perSecond, burst, maxClients);
        this.global = new TokenBuckets(globalPerSecond, globalBurst, maxClients);
    }

    /** The limits under {@code peerdex.http.search-rate-limit} of a peer's config (PeerNode passes its ActorSystem's). */
    public static SearchRateLimit from(Config root) {
        String p = "peerdex.http.search-rate-limit.";
        ClientAddress clients = new ClientAddress(root.hasPath("peerdex.http.trusted-proxies")
                ? root.getStringList("peerdex.http.trusted-proxies") : java.util.List.of());
        if (!root.hasPath(p + "enabled")) return new SearchRateLimit(false, true, 1, 1, 1, 1, 1, clients);
        return new SearchRateLimit(root.getBoolean(p + "enabled"),
                root.getBoolean(p + "exempt-loopback"), root.getDouble(p + "per-second"),
                root.getInt(p + "burst"), root.getDouble(p + "global-per-second"), root.getInt(p + "global-burst"),
                root.getInt(p + "max-clients"), clients);
    }

    /** Counts searches under {@code inner} against the client's buckets. */
    public Route limit(Supplier<Route> inner) {
        if (!enabled) return inner.get();
        return extractRequest(req -> {
            String path = req.getUri().path();
            if (!isSearchPath(path)) return inner.get();
            return clients.extract(c -> {
                // the operator's own browser on this machine; never a request a reverse proxy passed on
                if (exemptLoopback && c.loopback()) return inner.get();
                String client = c.key();
                long now = System.nanoTime();
                long wait = searches.acquire(client, now);
                if (wait > 0) {
                    limited.incrementAndGet();
                    long seconds = Math.max(1, (wait + 999_999_999L) / 1_000_000_000L);
                    HttpResponse r = Json.errorResponse(StatusCodes.TOO_MANY_REQUESTS,
                            "too many searches from " + client + "; retry after " + seconds + " s")
                            .addHeader(RawHeader.create("Retry-After", String.valueOf(seconds)));
                    return complete(r);
                }
                String resource = req.getUri().query().get("resource").orElse("");
                boolean wantsGlobal = !resource.equals("local");
                if (wantsGlobal && global.acquire(client, now) > 0) {
                    downgraded.incrementAndGet();
                    return respondWithHeader(RawHeader.create("X-Peerdex-Downgraded", "local"),
                            () -> mapRequest(rq -> rq.withUri(local(rq.getUri())), inner));
                }
                return inner.get();
            });
        });
    }

    private static Uri local(Uri uri) {
        Map<String, String> q = new LinkedHashMap<>(uri.query().toMap());
        q.put("resource", "local");
        return uri.query(org.apache.pekko.http.javadsl.model.Query.create(q.entrySet().stream()
                .map(e -> org.apache.pekko.japi.Pair.create(e.getKey(), e.getValue()))
                .toArray(org.apache.pekko.japi.Pair[]::new)));
    }

    public Map<String, Object> snapshot() {
        return Map.of("limited", limited.get(), "downgraded", downgraded.get(), "clients", searches.size());
    }

    /** Token buckets keyed by client, at most {@code maxClients} of them (the least recently used go first). */
    static final class TokenBuckets {
        private final double perNano;
        private final int burst;
        private final LinkedHashMap<String, Bucket> buckets;

        private static final class Bucket {
            double tokens;
            long at;
        }

        TokenBuckets(double perSecond, int burst, int maxClients) {
            if (perSecond <= 0 || burst < 1 || maxClients < 1) {
                throw new IllegalArgumentException("rate, burst and max-clients must be positive");
            }
            this.perNano = perSecond / 1e9;
            this.burst = burst;
            this.buckets = new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
                    return size() > maxClients;
                }
            };
        }

        /** 0 if a token was taken, else nanoseconds until one is there. */
        synchronized long acquire(String client, long nowNanos) {
            Bucket b = buckets.get(client);
            if (b == null) {
                b = new Bucket();
                b.tokens = burst;
                b.at = nowNanos;
                buckets.put(client, b);
            }
            double tokens = Math.min(burst, b.tokens + (nowNanos - b.at) * perNano);
            b.at = nowNanos;
            if (tokens >= 1) {
                b.tokens = tokens - 1;
                return 0;
            }
            b.tokens = tokens;
            return (long) Math.ceil((1 - tokens) / perNano);
        }

        synchronized int size() {
            return buckets.size();
        }
    }
}
