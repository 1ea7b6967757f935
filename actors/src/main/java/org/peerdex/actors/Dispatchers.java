package org.peerdex.actors;

import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

/**
 * The peer's dispatchers for blocking work, one per kind of work so that slow work of one kind cannot starve
 * another (a crawl over many slow hosts must not stall search): crawler fetches, import jobs, index I/O, and
 * search. Each is configured in actors' reference.conf.
 */
public final class Dispatchers {
    /** Crawler fetches and parses, robots.txt and sitemaps: each may take up to the crawler's total-timeout. */
    public static final String FETCH = "peerdex.fetch-dispatcher";
    /** Import jobs: one job holds a thread for its whole run (hours for a MediaWiki dump). */
    public static final String IMPORT = "peerdex.import-dispatcher";
    /** Index and other storage I/O: the crawl actors and indexer, replication, stored transfers, admin writes. */
    public static final String INDEX = "peerdex.index-dispatcher";
    /** Search: local lookups, metadata and snippets, lookups for other peers, suggestion and Solr scans. */
    public static final String SEARCH = "peerdex.search-dispatcher";

    private Dispatchers() {
    }

    public static DispatcherSelector selector(String name) {
        return DispatcherSelector.fromConfig(name);
    }

    public static Executor executor(ActorSystem<?> system, String name) {
        return system.dispatchers().lookup(DispatcherSelector.fromConfig(name));
    }

    public static Executor fetch(ActorSystem<?> system) {
        return executor(system, FETCH);
    }

    public static Executor imports(ActorSystem<?> system) {
        return executor(system, IMPORT);
    }

    public static Executor index(ActorSystem<?> system) {
        return executor(system, INDEX);
    }

    public static Executor search(ActorSystem<?> system) {
        return executor(system, SEARCH);
    }
}
