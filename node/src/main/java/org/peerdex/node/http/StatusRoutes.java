package org.peerdex.node.http;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.node.NodeContext;
import org.peerdex.node.Version;

import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.path;

/** {@code GET /api/status}: who this peer is and what it holds. */
public final class StatusRoutes {
    private final NodeContext ctx;

    public StatusRoutes(NodeContext ctx) {
        this.ctx = ctx;
    }

    public Route route() {
        return path("status", () -> get(() -> Json.ok(status())));
    }

    public Map<String, Object> status() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("peerId", ctx.peerId().value());
        s.put("network", ctx.config().network());
        s.put("mode", ctx.config().mode().key());
        s.put("position", ctx.peerId().position());
        s.put("documents", ctx.storage().stats().documents());
        s.put("postings", ctx.storage().stats().postings());
        org.peerdex.node.crawl.CrawlBackend crawls = org.peerdex.node.crawl.CrawlBackend.of(ctx);
        s.put("pagesPerMinute", crawls == null ? 0.0 : crawls.pagesPerMinute());
        org.peerdex.actors.dht.DhtPeer dht = org.peerdex.node.NetworkBackend.of(ctx);
        org.peerdex.actors.dht.PeerView view = dht == null ? null : dht.view().get();
        s.put("peers", view == null ? 1 : view.peers().size());
        if (dht != null) s.put("dht", dht.stats().snapshot());
        s.put("partitions", ctx.placement().partitions().count());
        s.put("redundancy", ctx.placement().redundancy());
        long up = Duration.between(ctx.started(), Instant.now()).toSeconds();
        s.put("uptime", up);
        s.put("searchRateLimit", SearchRateLimit.of(ctx).snapshot());
        s.put("version", Version.VERSION);
        Runtime rt = Runtime.getRuntime();
        s.put("heapUsedBytes", rt.totalMemory() - rt.freeMemory());
        s.put("heapMaxBytes", rt.maxMemory());
        s.put("diskUsedBytes", org.peerdex.node.DiskUsage.of(ctx.config().dataDir()));
        s.put("queriesPerMinute", SearchBackend.of(ctx).service().queriesPerMinute());
        s.put("threads", java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount());
        return s;
    }
}
