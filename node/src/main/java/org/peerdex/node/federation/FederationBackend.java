package org.peerdex.node.federation;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.peerdex.actors.search.CandidateSource;
import org.peerdex.actors.search.federation.FederatedSource;
import org.peerdex.actors.search.federation.FederatedSourceConfig;
import org.peerdex.node.NodeContext;
import org.peerdex.node.http.SearchBackend;

/**
 * The federated sources of a peer (docs/federation.md): read from {@code peerdex.federation.sources}, or from the
 * list last stored with {@code PUT /api/federation} (which wins), and plugged into search as candidate sources.
 */
public final class FederationBackend {
    private static final Map<NodeContext, FederationBackend> BACKENDS = new WeakHashMap<>();
    static final String SETTING = "federation.sources";
    private static final ObjectMapper PLAIN = new ObjectMapper();

    private final NodeContext ctx;
    private final SearchBackend search;
    private final HttpClient http;
    private volatile List<FederatedSourceConfig> sources;
    private volatile boolean stored;

    private FederationBackend(NodeContext ctx) {
        this.ctx = ctx;
        this.search = SearchBackend.of(ctx);
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
                .followRedirects(HttpClient.Redirect.NORMAL).build();
        this.sources = load();
        apply();
    }

    /** The backend of a peer (created on first use, which registers the configured sources with search). */
    public static synchronized FederationBackend of(NodeContext ctx) {
        return BACKENDS.computeIfAbsent(ctx, FederationBackend::new);
    }

    public List<FederatedSourceConfig> sources() {
        return sources;
    }

    /** "stored" once a list was PUT, else "config" (peerdex.federation.sources). */
    public String origin() {
        return stored ? "stored" : "config";
    }

    /** Validates, stores and applies a new list; later searches use it. Blocking (writes storage). */
    public synchronized List<FederatedSourceConfig> replace(List<?> items) {
        List<FederatedSourceConfig> list = FederatedSourceConfig.listFromMaps(items);
        List<Map<String, Object>> maps = new ArrayList<>();
        for (FederatedSourceConfig c : list) maps.add(c.toMap());
        try {
            ctx.storage().putSetting(SETTING, PLAIN.writeValueAsString(maps));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        sources = list;
        stored = true;
        apply();
        return list;
    }

    private List<FederatedSourceConfig> load() {
        var setting = ctx.storage().setting(SETTING);
        if (setting.isPresent()) {
            try {
                List<?> items = PLAIN.readValue(setting.get(), List.class);
                stored = true;
                return FederatedSourceConfig.listFromMaps(items);
            } catch (Exception e) {
                org.slf4j.LoggerFactory.getLogger(FederationBackend.class)
                        .warn("stored federation sources unreadable, using the config's: {}", e.getMessage());
            }
        }
        var raw = ctx.config().raw();
        if (!raw.hasPath("peerdex.federation.sources")) return List.of();
        return FederatedSourceConfig.listFromMaps(raw.getList("peerdex.federation.sources").unwrapped());
    }

    /** Swaps the enabled sources into search's remote sources (a query running meanwhile keeps its own list). */
    private void apply() {
        List<CandidateSource> enabled = new ArrayList<>();
        for (FederatedSourceConfig c : sources) {
            if (c.enabled()) enabled.add(new FederatedSource(c, http, search.blocking()));
        }
        List<CandidateSource> remote = search.remoteSources();
        synchronized (remote) {
            remote.removeIf(CandidateSource::federated);
            remote.addAll(enabled);
        }
    }
}
