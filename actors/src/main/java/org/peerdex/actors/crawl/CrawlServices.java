package org.peerdex.actors.crawl;

import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorSystem;
import org.peerdex.actors.Dispatchers;
import org.peerdex.actors.dht.replication.ReplicationHook;
import org.peerdex.actors.parse.HtmlDocumentParser;
import org.peerdex.storage.PeerStorage;

/**
 * What the crawl actors of one node share: settings, storage, the HTTP fetcher (one connection pool), robots
 * cache, node-wide fetch rate, the DHT replication hook, a listener for ended crawls, the fetch dispatcher
 * (fetch and parse workers; the crawl actors themselves run on the index dispatcher) and the node-wide budget of
 * pages in flight.
 */
public record CrawlServices(CrawlerSettings settings, PeerStorage storage, Fetcher fetcher, PageProcessor processor,
                            RobotsCache robots, Sitemaps sitemaps, CrawlStore crawls, RateMeter rates,
                            ReplicationHook replication, Consumer<CrawlProgress> onEnded, Executor fetch,
                            PageBudget pages) {

    public static CrawlServices create(ActorSystem<?> system, CrawlerSettings settings, PeerStorage storage,
                                       ReplicationHook replication, Consumer<CrawlProgress> onEnded) {
        return create(system, settings, storage, replication, onEnded, new GuardedHttp(new AddressGuard(settings)));
    }

    /** The services over a given HTTP stack (the node's one, shared with snippet verification). */
    public static CrawlServices create(ActorSystem<?> system, CrawlerSettings settings, PeerStorage storage,
                                       ReplicationHook replication, Consumer<CrawlProgress> onEnded,
                                       GuardedHttp http) {
        Fetcher fetcher = new Fetcher(settings, http);
        HtmlDocumentParser parser = new HtmlDocumentParser(settings.maxBodyBytes(),
                HtmlDocumentParser.DEFAULT_MAX_DEPTH, HtmlDocumentParser.DEFAULT_MAX_LINKS,
                HtmlDocumentParser.DEFAULT_MAX_TEXT_CHARS);
        return new CrawlServices(settings, storage, fetcher, new PageProcessor(fetcher, parser),
                new RobotsCache(settings, fetcher), new Sitemaps(fetcher), new CrawlStore(storage.store()),
                new RateMeter(), replication == null ? ReplicationHook.NONE : replication,
                onEnded == null ? p -> { } : onEnded,
                Dispatchers.fetch(system), new PageBudget(maxPagesInFlight(system)));
    }

    /** The same services under another node-wide budget of pages in flight. */
    public CrawlServices withPageBudget(PageBudget budget) {
        return new CrawlServices(settings, storage, fetcher, processor, robots, sitemaps, crawls, rates, replication,
                onEnded, fetch, budget);
    }

    /** The same services, the page processor reading these document formats too (PDF, office documents, ...). */
    public CrawlServices withDocuments(PageProcessor.Documents documents) {
        return new CrawlServices(settings, storage, fetcher, processor.withDocuments(documents), robots, sitemaps,
                crawls, rates, replication, onEnded, fetch, pages);
    }

    private static int maxPagesInFlight(ActorSystem<?> system) {
        var c = system.settings().config();
        return c.hasPath("peerdex.crawler.max-pages-in-flight") ? c.getInt("peerdex.crawler.max-pages-in-flight") : 2000;
    }
}
