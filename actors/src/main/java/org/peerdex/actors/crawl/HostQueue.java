package org.peerdex.actors.crawl;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.frontier.Frontier;
import org.peerdex.storage.meta.UrlMetadata;

/**
 * The URLs of one crawl on one host (scheme://host:port), fetched politely: robots.txt first (shared cache), then
 * one request at a time with the host's delay between the end of one response and the start of the next request
 * (the page is parsed meanwhile; several at once
 * only when the delay is 0), a 429/503 backs the whole host off for Retry-After (capped) and the URL is retried.
 * Fetch and parse run on the fetch dispatcher (a slow host holds a fetch thread, never a search thread); every
 * outcome goes to the {@link Crawler}. Once it has had nothing
 * to do for {@code host-idle-stop} after its politeness delay and any back-off ran out, it tells the crawler
 * ({@link Crawler.HostIdle}), which stops it unless it has sent more URLs meanwhile: a wide crawl does not keep one
 * actor per host it ever met, and a new queue for the host may start at once without breaking politeness.
 */
public final class HostQueue extends AbstractBehavior<HostQueue.Command> {
    /** What a host queue understands. */
    public sealed interface Command {}

    /** A URL to fetch (from the frontier). */
    public record Enqueue(Frontier.Entry entry) implements Command {}

    /** Fetch nothing new until {@link Resume} (the crawl's writes fail: a full disk); requests in flight end. */
    public enum Pause implements Command { INSTANCE }

    public enum Resume implements Command { INSTANCE }

    /** The host's rules; {@code fetched} when robots.txt was requested from the host for them just now. */
    private record RobotsReady(RobotsCache.HostRules rules, boolean unpolite, String refusedKind, String refused,
                               boolean fetched) implements Command {}

    private record FetchDone(Frontier.Entry entry, PageOutcome outcome) implements Command {}

    /** From a fetch worker: the response to this URL is read (its page is being parsed now). */
    private record Responded(Frontier.Entry entry, int status) implements Command {}

    private enum Tick implements Command { INSTANCE }

    private enum IdleCheck implements Command { INSTANCE }

    private final ActorContext<Command> ctx;
    private final TimerScheduler<Command> timers;
    private final String site;
    private final CrawlServices services;
    private final CrawlProfile profile;
    private final CrawlScope scope;
    private final long crawlStartedAt;
    private final boolean readSitemaps;
    private final ActorRef<Crawler.Command> crawler;
    /** This queue, for fetch workers to tell (the context is not theirs to touch). */
    private final ActorRef<Command> self;
    private final Deque<Frontier.Entry> queue = new ArrayDeque<>();
    private final Map<String, Integer> retries = new HashMap<>();
    private final org.peerdex.storage.links.LinkGraph links;
    private RobotsCache.HostRules rules;
    private String refused;
    private String refusedKind;
    private long delayMs;
    private int parallel = 1;
    /** Requests on the wire: the politeness delay runs from the end of each response. */
    private int inFlight;
    /** URLs fetched or being fetched whose outcome (parse, condense) is not back yet. */
    private int processing;
    /** URLs whose response was read and whose request slot was given back before their outcome came. */
    private final java.util.Set<String> released = new java.util.HashSet<>();
    private long nextAt;
    private long backoffUntil;
    private boolean paused;
    /** URLs received from the crawler so far: it stops this queue only if it has sent no more than that. */
    private long received;

    /**
     * @param readSitemaps false when an earlier queue of this crawl read the host's sitemaps already
     */
    public static Behavior<Command> create(String site, CrawlServices services, CrawlProfile profile,
                                           CrawlScope scope, long crawlStartedAt, boolean readSitemaps,
                                           ActorRef<Crawler.Command> crawler) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
                new HostQueue(ctx, timers, site, services, profile, scope, crawlStartedAt, readSitemaps, crawler)));
    }

    private HostQueue(ActorContext<Command> ctx, TimerScheduler<Command> timers, String site, CrawlServices services,
                      CrawlProfile profile, CrawlScope scope, long crawlStartedAt, boolean readSitemaps,
                      ActorRef<Crawler.Command> crawler) {
        super(ctx);
        this.ctx = ctx;
        this.timers = timers;
        this.site = site;
        this.services = services;
        this.profile = profile;
        this.scope = scope;
        this.crawlStartedAt = crawlStartedAt;
        this.readSitemaps = readSitemaps;
        this.crawler = crawler;
        this.self = ctx.getSelf();
        this.links = new org.peerdex.storage.links.LinkGraph(services.storage().store());
        String host = URI.create(site).getHost();
        ctx.pipeToSelf(CompletableFuture.supplyAsync(() -> loadRules(host), services.fetch()),
                (r, t) -> r != null ? r : new RobotsReady(null, false, "internal", "robots.txt: " + t, false));
    }

    private RobotsReady loadRules(String host) {
        boolean cached = services.robots().cached(site);
        try {
            RobotsCache.HostRules r = services.robots().rules(site);
            return new RobotsReady(r, services.fetcher().guard().unpolite(host), null, null, !cached);
        } catch (Fetcher.FetchException e) {
            return new RobotsReady(null, false, e.kind(), e.getMessage(), false);
        }
    }

    /**
     * The least time between two requests to a host: the node's floor, raised by the profile's minDelayMs; lowered
     * by it only for unpolite hosts (loopback; private addresses in intranet mode); then raised to the robots.txt
     * Crawl-delay (already capped).
     */
    public static long delayMs(CrawlerSettings settings, CrawlProfile profile, boolean unpolite, long crawlDelayMs) {
        long floor = settings.minDelayMs();
        long base = profile.minDelayMs() < 0 ? floor
                : unpolite ? profile.minDelayMs() : Math.max(floor, profile.minDelayMs());
        return Math.max(base, crawlDelayMs);
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Enqueue.class, this::onEnqueue)
                .onMessage(RobotsReady.class, this::onRobots)
                .onMessage(FetchDone.class, this::onFetchDone)
                .onMessage(Responded.class, this::onResponded)
                .onMessageEquals(Tick.INSTANCE, () -> {
                    pump();
                    return this;
                })
                .onMessageEquals(IdleCheck.INSTANCE, this::onIdleCheck)
                .onMessageEquals(Pause.INSTANCE, () -> {
                    paused = true;
                    return this;
                })
                .onMessageEquals(Resume.INSTANCE, () -> {
                    paused = false;
                    pump();
                    watchIdle();
                    return this;
                })
                .build();
    }

    private Behavior<Command> onEnqueue(Enqueue m) {
        received++;
        timers.cancel(IdleCheck.INSTANCE);
        queue.add(m.entry());
        pump();
        watchIdle(); // URLs refused or disallowed by robots.txt are answered at once
        return this;
    }

    private boolean idle() {
        return rules != null && queue.isEmpty() && inFlight == 0 && processing == 0;
    }

    /** When idle, checks again once the politeness delay, any back-off and the idle time have passed. */
    private void watchIdle() {
        if (!idle()) return;
        long quietFrom = Math.max(nextAt, backoffUntil);
        long wait = Math.max(0, quietFrom - System.currentTimeMillis()) + services.settings().hostIdleStopMs();
        timers.startSingleTimer(IdleCheck.INSTANCE, Duration.ofMillis(wait));
    }

    private Behavior<Command> onIdleCheck() {
        if (!idle()) return this;
        if (System.currentTimeMillis() < Math.max(nextAt, backoffUntil)) {
            watchIdle();
            return this;
        }
        crawler.tell(new Crawler.HostIdle(site, ctx.getSelf(), received));
        return this;
    }

    private Behavior<Command> onRobots(RobotsReady m) {
        if (m.rules() == null) {
            refused = m.refused();
            refusedKind = m.refusedKind();
            delayMs = 0;
            parallel = Integer.MAX_VALUE;
            rules = new RobotsCache.HostRules(new crawlercommons.robots.SimpleRobotRules(
                    crawlercommons.robots.SimpleRobotRules.RobotRulesMode.ALLOW_NONE), 0, List.of(), "refused", 0);
        } else {
            rules = m.rules();
            delayMs = delayMs(services.settings(), profile, m.unpolite(), rules.crawlDelayMs());
            parallel = delayMs == 0 ? Math.max(1, services.settings().maxParallelPerHost()) : 1;
            // robots.txt was a request to the host too: the first page waits the delay after it
            if (m.fetched() && delayMs > 0) nextAt = Math.max(nextAt, System.currentTimeMillis() + delayMs);
        }
        boolean sitemaps = readSitemaps && refused == null && profile.sitemaps() && !rules.sitemaps().isEmpty()
                && profile.depth() >= 1;
        // the crawler learns of the pending sitemaps first, so it does not finish before their URLs arrive
        crawler.tell(new Crawler.HostReady(site, delayMs, refused != null ? "refused" : rules.source(), sitemaps));
        if (sitemaps) readSitemaps();
        pump();
        watchIdle();
        return this;
    }

    private void readSitemaps() {
        List<String> maps = rules.sitemaps();
        int max = services.settings().maxSitemapUrls();
        CompletableFuture.supplyAsync(() -> services.sitemaps().urls(maps, max), services.fetch())
                .whenComplete((urls, t) -> crawler.tell(new Crawler.SitemapUrls(site, urls == null ? List.of() : urls)));
    }

    private void pump() {
        if (rules == null || paused) return;
        long now = System.currentTimeMillis();
        while (!queue.isEmpty() && inFlight < parallel) {
            Frontier.Entry e = queue.peek();
            // URLs that are answered without a request need not wait for the politeness delay
            PageOutcome unfetched = withoutRequest(e);
            if (unfetched != null) {
                queue.poll();
                crawler.tell(new Crawler.PageDone(e, unfetched));
                continue;
            }
            long wait = Math.max(nextAt, backoffUntil) - now;
            if (wait > 0) {
                timers.startSingleTimer(Tick.INSTANCE, Duration.ofMillis(wait));
                return;
            }
            queue.poll();
            inFlight++;
            processing++;
            crawler.tell(new Crawler.Fetching(e.url(), true));
            ctx.pipeToSelf(CompletableFuture.supplyAsync(() -> process(e), services.fetch()),
                    (o, t) -> new FetchDone(e, o != null ? o
                            : new PageOutcome.Failed("internal", 0, String.valueOf(t), List.of())));
        }
    }

    /** What becomes of a URL that is not fetched at all (a refused host, unreadable robots.txt, disallowed), or null. */
    private PageOutcome withoutRequest(Frontier.Entry e) {
        if (refused != null) return new PageOutcome.Failed(refusedKind, 0, refused, List.of());
        // robots.txt could not be read: nothing is fetched (RFC 9309), and the URL is an error of the host's
        // ("host unreachable (connection refused)"), not a page robots.txt disallows
        if (rules.failed()) return new PageOutcome.Failed(rules.failureKind(), 0, rules.failureDetail(), List.of());
        if (!rules.allowed(e.url())) {
            return new PageOutcome.Skipped("robots", 0, "disallowed by " + rules.source(), List.of());
        }
        return null;
    }

    /** Blocking: recrawl check, fetch, parse. */
    private PageOutcome process(Frontier.Entry e) {
        UrlHash h = UrlHash.ofNormalized(e.url());
        UrlMetadata meta = services.storage().metadata().get(h).orElse(null);
        if (meta != null) {
            // indexed by this very crawl already (a restart between the index write and the frontier update)
            if (meta.fetched() >= crawlStartedAt) {
                return new PageOutcome.Skipped("already-indexed", 0, "indexed earlier in this crawl", List.of());
            }
            if (!profile.recrawlAfter().isEmpty() && System.currentTimeMillis() - meta.fetched()
                    < Duration.parse(profile.recrawlAfter()).toMillis()) {
                return new PageOutcome.Skipped("fresh", 0, "indexed less than " + profile.recrawlAfter() + " ago",
                        List.of());
            }
        }
        PageOutcome o = services.processor().process(e.url(), scope, status -> self.tell(new Responded(e, status)));
        // a date the URL came with (a sitemap's lastmod) dates the document, as the sitemap protocol means it
        if (o instanceof PageOutcome.Fetched f && e.lastModified() != 0) o = f.withLastModified(e.lastModified());
        if (o instanceof PageOutcome.Fetched f && !f.doc().noindex()) {
            // condense here, in parallel with other fetches; the indexer only checks duplicates and writes
            o = f.withPrepared(Indexer.document(links, UrlHash.ofNormalized(f.url()), f, System.currentTimeMillis()));
        }
        return o;
    }

    /**
     * The response is read: the next request to the host may go out once the delay has passed from now, while this
     * page is still parsed (parsing is not the host's time). A 429/503 keeps its slot until its outcome sets the
     * back-off.
     */
    private Behavior<Command> onResponded(Responded m) {
        if (m.status() == 429 || m.status() == 503) return this;
        inFlight--;
        released.add(m.entry().url());
        if (delayMs > 0) nextAt = System.currentTimeMillis() + delayMs;
        crawler.tell(new Crawler.Fetching(m.entry().url(), false));
        pump();
        return this;
    }

    private Behavior<Command> onFetchDone(FetchDone m) {
        processing--;
        long now = System.currentTimeMillis();
        if (!released.remove(m.entry().url())) {
            // no response was read (an error, a skip before fetching) or a 429/503: the slot is given back now
            inFlight--;
            if (delayMs > 0) nextAt = now + delayMs;
        }
        if (m.outcome() instanceof PageOutcome.RetryLater r) {
            int n = retries.merge(m.entry().url(), 1, Integer::sum);
            CrawlerSettings s = services.settings();
            long wait = Math.min(r.retryAfterMs() > 0 ? r.retryAfterMs() : s.retryDefaultMs(), s.maxRetryAfterMs());
            backoffUntil = Math.max(backoffUntil, now + wait);
            ctx.getLog().info("{} answered HTTP {}: backing off {} ms (attempt {} of {})", site, r.status(), wait, n,
                    s.maxRetries());
            crawler.tell(new Crawler.Fetching(m.entry().url(), false));
            if (n > s.maxRetries()) {
                retries.remove(m.entry().url());
                crawler.tell(new Crawler.PageDone(m.entry(), new PageOutcome.Failed("http-" + r.status(), r.status(),
                        "HTTP " + r.status() + " after " + s.maxRetries() + " retries", List.of())));
            } else {
                queue.addFirst(m.entry());
            }
        } else {
            retries.remove(m.entry().url());
            crawler.tell(new Crawler.PageDone(m.entry(), m.outcome()));
        }
        pump();
        watchIdle();
        return this;
    }
}
