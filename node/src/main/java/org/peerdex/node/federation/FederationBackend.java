package org.peerdex.node.federation;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.peerdex.actors.crawl.AddressGuard;
import org.peerdex.actors.crawl.CrawlerSettings;
import org.peerdex.actors.crawl.GuardedHttp;
import org.peerdex.actors.search.CandidateSource;
import org.peerdex.actors.search.federation.FederatedSource;
import org.peerdex.actors.search.federation.FederatedSourceConfig;
import org.peerdex.node.NodeContext;

/**
 * The federated sources of a peer (docs/federation.md): read from {@code peerdex.federation.sources}, or from the
 * list last stored with {@code PUT /api/federation} (which wins), and plugged into search as candidate sources.
 */
public final class FederationBackend {
    static final String SETTING = "federation.sources";
    private static final ObjectMapper PLAIN = new ObjectMapper();

    private final NodeContext ctx;
    private final List<CandidateSource> remoteSources;
    private final Executor blocking;
    private final GuardedHttp http;
    private volatile List<FederatedSourceConfig> sources;
    private volatile boolean stored;

    /**
     * Reads the sources and plugs the enabled ones into search: {@code remoteSources} is search's list of remote
     * candidate sources, {@code blocking} the search dispatcher their requests run on.
     */
    public FederationBackend(NodeContext ctx, List<CandidateSource> remoteSources, Executor blocking) {
        this.ctx = ctx;
        this.remoteSources = remoteSources;
        this.blocking = blocking;
        // the shared stack under the crawler's address policy, plus the hosts of the configured sources: naming a
        // source (config or PUT /api/federation, both admin-only) is the admin's explicit allow for its host, so a
        // local Solr or SearXNG works; a redirect from a source to any other internal host is still refused
        CrawlerSettings crawler = CrawlerSettings.from(ctx.config().raw(),
                ctx.config().mode() == org.peerdex.node.NodeConfig.Mode.INTRANET);
        this.http = new GuardedHttp(new AddressGuard(crawler).allowing(this::sourceHosts));
        org.apache.pekko.actor.CoordinatedShutdown.get(ctx.system()).addTask(
                org.apache.pekko.actor.CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "close-federation-http",
                () -> {
                    http.close();
                    return java.util.concurrent.CompletableFuture.completedFuture(org.apache.pekko.Done.getInstance());
                });
        this.sources = load();
        apply();
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

    /** The hosts of the enabled sources (read on every guard check, so an edited list applies at once). */
    private List<String> sourceHosts() {
        List<FederatedSourceConfig> list = sources;
        List<String> hosts = new ArrayList<>();
        if (list == null) return hosts;
        for (FederatedSourceConfig c : list) {
            String h = c.enabled() ? c.host() : null;
            if (h == null) continue;
            hosts.add(h);
            if (h.startsWith("[")) hosts.add(h.substring(1, h.length() - 1)); // IPv6 literal, as the resolver sees it
        }
        return hosts;
    }

    /** Swaps the enabled sources into search's remote sources (a query running meanwhile keeps its own list). */
    private void apply() {
        List<CandidateSource> enabled = new ArrayList<>();
        for (FederatedSourceConfig c : sources) {
            if (c.enabled()) enabled.add(new FederatedSource(c, http, blocking));
        }
        List<CandidateSource> remote = remoteSources;
        synchronized (remote) {
            remote.removeIf(CandidateSource::federated);
            remote.addAll(enabled);
        }
    }
}
