package org.peerdex.node;

import org.peerdex.node.crawl.CrawlBackend;
import org.peerdex.node.federation.FederationBackend;
import org.peerdex.node.http.ImportService;
import org.peerdex.node.http.SearchBackend;
import org.peerdex.node.http.SearchRateLimit;
import org.peerdex.node.settings.SettingsBackend;

/**
 * The services of one running peer, built once by {@link PeerNode} (its composition root) and handed to the routes
 * that need them; tests and labs reach them through {@link PeerNode#services()}. The import service is built with
 * the others: feed schedules stored before a restart resume at start-up.
 */
public final class NodeServices {
    private final SettingsBackend settings;
    private final NetworkBackend network;
    private final CrawlBackend crawl;
    private final SearchBackend search;
    private final FederationBackend federation;
    private final SearchRateLimit rateLimit;
    private final ImportService imports;

    NodeServices(SettingsBackend settings, NetworkBackend network, CrawlBackend crawl, SearchBackend search,
                 FederationBackend federation, SearchRateLimit rateLimit,
                 ImportService imports) {
        this.settings = settings;
        this.network = network;
        this.crawl = crawl;
        this.search = search;
        this.federation = federation;
        this.rateLimit = rateLimit;
        this.imports = imports;
    }

    /** The console's settings (DATA_DIR/settings.json). */
    public SettingsBackend settings() {
        return settings;
    }

    /** The DHT actors and the open network's endpoint, once the network has started. */
    public NetworkBackend network() {
        return network;
    }

    public CrawlBackend crawl() {
        return crawl;
    }

    public SearchBackend search() {
        return search;
    }

    public FederationBackend federation() {
        return federation;
    }

    public SearchRateLimit rateLimit() {
        return rateLimit;
    }

    /** The importers. */
    public ImportService imports() {
        return imports;
    }
}
