package org.peerdex.node.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.node.NetworkBackend;
import org.peerdex.node.NodeContext;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.url.UrlNormalizer;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.meta.UrlMetadataStore;
import org.peerdex.storage.text.DocumentText;
import org.peerdex.storage.text.Tokenizer;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;

/**
 * {@code POST /api/index/document} (admin): indexes one document given as {@code {"url", "title", "text"}} and
 * answers only after the write is durable (logged by LevelDB: it survives kill -9), so a 200 is an
 * acknowledgement. Then offers it to its DHT holders.
 */
public final class DocumentRoutes {
    static final int MAX_URL = 4096;
    static final int MAX_TITLE = 1000;
    static final int MAX_TEXT = 1 << 20;
    /** what a client told to wait for a replication backlog is asked to wait */
    static final int RETRY_AFTER_SECONDS = 5;
    private final NodeContext ctx;
    private final NetworkBackend network;
    private final SearchBackend backend;
    private final AdminGuard admin;

    public DocumentRoutes(NodeContext ctx, NetworkBackend network, SearchBackend backend, AdminGuard admin) {
        this.ctx = ctx;
        this.network = network;
        this.backend = backend;
        this.admin = admin;
    }

    public Route route() {
        return pathPrefix("index", () -> path("document", () -> post(() -> admin.admin(() ->
                entity(Jackson.unmarshaller(SearchRoutes.PLAIN, Map.class), body -> {
                    IndexedDocument doc = document(body);
                    // the crawler's indexer pauses while replication is backlogged; a client is told to come back
                    // (nothing is taken, so nothing is lost) instead of growing the outbox without bound
                    DhtPeer dht = network.dht();
                    String held = dht == null ? null : dht.stats().backlog();
                    if (held != null) {
                        return complete(Json.errorResponse(StatusCodes.SERVICE_UNAVAILABLE, held + "; retry later")
                                .addHeader(RawHeader.create("Retry-After", String.valueOf(RETRY_AFTER_SECONDS))));
                    }
                    return onSuccess(CompletableFuture.supplyAsync(() -> index(doc), backend.io()), Json::ok);
                })))));
    }

    /** Validates the body; bad input throws IllegalArgumentException (HTTP 400). */
    public static IndexedDocument document(Map<?, ?> body) {
        String url = string(body, "url", MAX_URL);
        String title = body.get("title") == null ? "" : string(body, "title", MAX_TITLE);
        String text = string(body, "text", MAX_TEXT);
        String normal = UrlNormalizer.normalize(url)
                .orElseThrow(() -> new IllegalArgumentException("url must be an http(s) URL: " + clip(url)));
        UrlHash hash = UrlHash.ofNormalized(normal);
        DocumentText dt = new DocumentText(normal, title, "", List.of(), "", List.of(), List.of(), List.of(), text);
        UrlMetadata meta = new UrlMetadata(hash, normal, title, "", "", List.of(), "", "t", "text/plain",
                text.length(), 0, System.currentTimeMillis(), 0, 0, Tokenizer.plainWords(text).size(), null,
                Integer.toHexString(text.hashCode()), List.of());
        return PostingFactory.build(meta, dt);
    }

    private static String string(Map<?, ?> body, String key, int max) {
        Object v = body.get(key);
        if (!(v instanceof String s)) throw new IllegalArgumentException("'" + key + "' must be a string");
        if (s.length() > max) throw new IllegalArgumentException("'" + key + "' is longer than " + max + " characters");
        return s;
    }

    private static String clip(String s) {
        return s.length() > 100 ? s.substring(0, 100) + "..." : s;
    }

    /** The durable write; blocking. */
    Map<String, Object> index(IndexedDocument doc) {
        ctx.storage().writer().add(doc);
        ctx.storage().writer().flush();
        ctx.storage().metadata().appendHistory(doc.metadata().urlHash(), new UrlMetadataStore.HistoryEvent(
                System.currentTimeMillis(), "indexed", 200, "indexed through POST /api/index/document"));
        DhtPeer dht = network.dht();
        if (dht != null) dht.replicate(doc.postings(), List.of(doc.metadata()));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("urlHash", doc.metadata().urlHash().value());
        out.put("url", doc.metadata().url());
        out.put("postings", doc.postings().size());
        out.put("durable", true);
        return out;
    }
}
