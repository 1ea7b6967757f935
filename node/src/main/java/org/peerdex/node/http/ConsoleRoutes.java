package org.peerdex.node.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.node.NetworkBackend;
import org.peerdex.node.NodeContext;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.meta.UrlMetadataStore;
import org.peerdex.storage.text.Tokenizer;

import static org.apache.pekko.http.javadsl.server.Directives.delete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

/**
 * What the console needs beyond DESIGN §6's endpoints: {@code DELETE /api/index/host/{host}} (admin: delete every
 * document of a host, subdomains not included) and {@code GET /api/peers/word/{word-or-hash}} (where a word's
 * partitions sit on the ring and which peers hold each: primary first, then mirrors), {@code GET /api/peers/traffic}
 * (DHT messages and bytes sent to and received from each remote peer).
 */
public final class ConsoleRoutes {
    /** Bounds one host delete (run it again for more). */
    static final int MAX_HOST_DELETE = 100_000;
    private final NodeContext ctx;
    private final NetworkBackend network;
    private final SearchBackend backend;
    private final AdminGuard admin;

    public ConsoleRoutes(NodeContext ctx, NetworkBackend network, SearchBackend backend, AdminGuard admin) {
        this.ctx = ctx;
        this.network = network;
        this.backend = backend;
        this.admin = admin;
    }

    public Route route() {
        return concat(
                path(segment("index").slash("host").slash(segment()), host -> delete(() -> admin.admin(() ->
                        onSuccess(CompletableFuture.supplyAsync(() -> deleteHost(host), backend.io()),
                                r -> ((int) r.get("deletedDocuments")) == 0
                                        ? Json.error(StatusCodes.NOT_FOUND, "no document of host " + host + " in the index")
                                        : Json.ok(r))))),
                path(segment("peers").slash("word").slash(segment()), w -> get(() -> Json.ok(placement(w)))),
                path(segment("peers").slash("traffic"), () -> get(() -> Json.ok(traffic()))));
    }

    /** DHT messages and bytes exchanged with each remote peer since this peer started (cumulative). */
    Map<String, Object> traffic() {
        DhtPeer dht = network.dht();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("at", System.currentTimeMillis());
        out.put("peers", dht == null ? Map.of() : dht.stats().traffic.snapshot());
        return out;
    }

    Map<String, Object> deleteHost(String host) {
        String h = host.trim().toLowerCase(Locale.ROOT);
        if (h.isEmpty()) throw new IllegalArgumentException("host must not be empty");
        List<UrlHash> urls = new ArrayList<>();
        ctx.storage().metadata().scanAll(m -> {
            if (urls.size() < MAX_HOST_DELETE && m.host().toLowerCase(Locale.ROOT).equals(h)) urls.add(m.urlHash());
        });
        long postings = 0;
        for (UrlHash u : urls) {
            int n = ctx.storage().rwi().deleteUrl(u);
            ctx.storage().metadata().delete(u);
            ctx.storage().stats().add(-1, -n);
            ctx.storage().metadata().appendHistory(u, new UrlMetadataStore.HistoryEvent(System.currentTimeMillis(),
                    "deleted", 0, "host " + h + " deleted through the index browser"));
            postings += n;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("host", h);
        out.put("deletedDocuments", urls.size());
        out.put("deletedPostings", postings);
        return out;
    }

    Map<String, Object> placement(String wordOrHash) {
        String word = null;
        WordHash hash;
        if (Base64Order.isHash(wordOrHash, WordHash.LENGTH) && !wordOrHash.equals(Tokenizer.normalize(wordOrHash))) {
            hash = new WordHash(wordOrHash);
        } else {
            word = Tokenizer.normalize(wordOrHash.trim());
            hash = WordHash.of(word);
        }
        DhtPeer dht = network.dht();
        PeerView view = dht == null ? null : dht.view().get();
        List<Map<String, Object>> parts = new ArrayList<>();
        for (int p = 0; p < ctx.placement().partitions().count(); p++) {
            long pos = ctx.placement().partitions().position(hash, p);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("partition", p);
            m.put("position", pos);
            List<String> holders = new ArrayList<>();
            if (view != null && !view.ring().isEmpty()) {
                for (PeerId id : ctx.placement().holders(pos, view.ring())) holders.add(id.value());
            } else {
                holders.add(ctx.peerId().value()); // without a network this peer holds everything it has
            }
            m.put("holders", holders);
            parts.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("word", word);
        out.put("wordHash", hash.value());
        out.put("partitions", parts);
        return out;
    }
}
