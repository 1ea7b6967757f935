package org.peerdex.node.http;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.node.DiskUsage;
import org.peerdex.node.NodeContext;
import org.peerdex.node.NodeServices;
import org.peerdex.node.OpenNetwork;
import org.peerdex.node.Version;

/**
 * {@code GET /api/status}: who this peer is and what it holds; {@code GET /api/status/rates}: pages fetched and
 * queries started in each minute of the last hour (the console's plots).
 */
public final class StatusRoutes {
    private final NodeContext ctx;
    private final NodeServices services;

    public StatusRoutes(NodeContext ctx, NodeServices services) {
        this.ctx = ctx;
        this.services = services;
    }

    public Route route() {
        return concat(
                path("status", () -> get(() -> Json.ok(status()))),
                path(segment("status").slash("rates"), () -> get(() -> Json.ok(rates()))));
    }

    /** Per-minute counts over the last hour, oldest first; the last entry is the current minute so far. */
    public Map<String, Object> rates() {
        long now = System.currentTimeMillis();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("at", now);
        r.put("minuteStart", now / 60_000 * 60_000);
        r.put("pages", services.crawl().pagesLastHour());
        r.put("queries", services.search().service().queriesLastHour());
        return r;
    }

    public Map<String, Object> status() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("peerId", ctx.peerId().value());
        s.put("network", ctx.config().network());
        s.put("mode", ctx.config().mode().key());
        s.put("position", ctx.peerId().position());
        s.put("documents", ctx.storage().stats().documents());
        s.put("postings", ctx.storage().stats().postings());
        var fold = ctx.storage().foldStatus();
        s.put("indexLayout", Map.of("layout", fold.layout(), "folding", fold.folding(),
                "foldedPostings", fold.foldedPostings(), "freshWritesSinceFold", fold.freshWritesSinceRound()));
        s.put("pagesPerMinute", services.crawl().pagesPerMinute());
        DhtPeer dht = services.network().dht();
        PeerView view = dht == null ? null : dht.view().get();
        s.put("peers", view == null ? 1 : view.peers().size());
        if (dht != null) s.put("dht", dht.stats().snapshot());
        s.put("transport", OpenNetwork.selected(ctx.config().raw()) ? "peer" : "cluster");
        OpenNetwork open = services.network().open();
        if (open != null) s.put("peerProtocol", openStatus(open));
        s.put("partitions", ctx.placement().partitions().count());
        s.put("redundancy", ctx.placement().redundancy());
        s.put("positionsPerPeer", ctx.placement().positionsPerPeer());
        long up = Duration.between(ctx.started(), Instant.now()).toSeconds();
        s.put("uptime", up);
        s.put("searchRateLimit", services.rateLimit().snapshot());
        s.put("version", Version.VERSION);
        Runtime rt = Runtime.getRuntime();
        s.put("heapUsedBytes", rt.totalMemory() - rt.freeMemory());
        s.put("heapMaxBytes", rt.maxMemory());
        s.put("diskUsedBytes", DiskUsage.of(ctx.config().dataDir()));
        s.put("queriesPerMinute", services.search().service().queriesPerMinute());
        s.put("threads", ManagementFactory.getThreadMXBean().getThreadCount());
        return s;
    }

    /** The open network: this peer's address and key, its membership (and why it is passive), the endpoint's counts. */
    private static Map<String, Object> openStatus(OpenNetwork open) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("address", open.address());
        p.put("publicKey", open.keys().publicKey());
        p.put("identityWorkBits", open.keys().workBits());
        try {
            var m = open.membership().status().toCompletableFuture().get(2, TimeUnit.SECONDS);
            p.put("role", m.role());
            p.put("reachable", m.reachable());
            p.put("why", m.reason());
            p.put("admitted", m.admitted());
            p.put("candidates", m.candidates());
            p.put("refusedRecords", m.refusedByReason());
        } catch (Exception e) {
            p.put("role", "unknown");
        }
        var st = open.stats();
        p.put("requestsAccepted", st.accepted.get());
        p.put("requestsRefused", st.refusedByReason());
        p.put("requestsSent", st.sent.get());
        p.put("sendFailures", st.sendFailures.get());
        p.put("bytesIn", st.bytesIn.get());
        p.put("bytesOut", st.bytesOut.get());
        p.put("droppedReplyItems", st.droppedReplyItems.get());
        p.put("joinTablesRead", st.joinTablesRead.get());
        return p;
    }
}
