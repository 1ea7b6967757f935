package org.peerdex.actors.crawl;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.peerdex.protocol.url.UrlNormalizer;
import org.peerdex.storage.frontier.Frontier;

/**
 * One crawl job: owns its profile, its LevelDB {@link Frontier} and its counters. Reads queued URLs from the
 * frontier (a window at a time) into one {@link HostQueue} per host, admits the links of fetched pages through the
 * {@link CrawlScope} and the frontier's limits, and hands every outcome to the {@link Indexer}, which marks the URL
 * done once its result is durable. Finished when nothing is queued or in flight. Runs on the index dispatcher
 * (frontier reads and writes are LevelDB calls).
 */
public final class Crawler extends AbstractBehavior<Crawler.Command> {
    /** What a crawler understands. */
    public sealed interface Command {}

    public record GetProgress(ActorRef<Optional<CrawlProgress>> replyTo) implements Command {}

    public record Stop(ActorRef<Optional<CrawlProgress>> replyTo) implements Command {}

    /** From a host queue: what became of a URL. */
    public record PageDone(Frontier.Entry entry, PageOutcome outcome) implements Command {}

    /** From a host queue: a request for this URL went on the wire ({@code active}), or ended in a retry later. */
    public record Fetching(String url, boolean active) implements Command {}

    /** The start sitemaps of a crawl that starts from sitemaps: their page URLs, and what could not be read. */
    private record StartSitemaps(Sitemaps.Read read) implements Command {}

    /** From a host queue: its robots rules are in and its delay is known. */
    public record HostReady(String site, long delayMs, String robots, boolean sitemapsPending) implements Command {}

    /**
     * From a host queue: it has had nothing to do for a while, after {@code received} URLs. The crawler stops it if
     * it sent it no more than that (otherwise the queue has work again), and starts a new one on the next URL.
     */
    public record HostIdle(String site, ActorRef<HostQueue.Command> queue, long received) implements Command {}

    /** From a host queue: page URLs listed in the host's sitemaps. */
    public record SitemapUrls(String site, List<String> urls) implements Command {}

    /** From the indexer: these URLs are done (their results are durable). */
    public record Indexed(List<Indexer.Verdict> verdicts, long flushMs) implements Command {}

    /** From the indexer: its writes fail (a full disk); this crawl's pages wait in its buffer. */
    public record WritesPaused(String why) implements Command {}

    /** From the indexer: its writes succeed again. */
    public enum WritesResumed implements Command { INSTANCE }

    private enum Tick implements Command { INSTANCE }

    private static final Duration PUSH_INTERVAL = Duration.ofMillis(500);

    private final ActorContext<Command> ctx;
    private final CrawlServices services;
    private final ActorRef<Indexer.Command> indexer;
    private final ActorRef<CrawlManager.Command> manager;
    private final CrawlProfile profile;
    private final CrawlScope scope;
    private final Frontier frontier;
    private final RateMeter meter = new RateMeter();
    private final org.peerdex.storage.links.LinkGraph links;
    private CrawlRecord record;
    private long fetched;
    private long indexed;
    private long skipped;
    private long errors;
    private final Map<String, Long> skippedBy = new TreeMap<>();
    private final Map<String, Long> errorsBy = new TreeMap<>();
    private final Map<String, Long> linksRejected = new TreeMap<>();
    /** The live host queue of each host with work, and how many URLs it was sent. */
    private final Map<String, Host> hosts = new HashMap<>();
    /** Hosts whose sitemaps this crawl has read (a new queue for the host does not read them again). */
    private final java.util.Set<String> sitemapsRead = new java.util.HashSet<>();
    private long hostQueuesStarted;
    private final Map<String, long[]> hostPending = new LinkedHashMap<>();
    private final Map<String, CrawlProgress.HostProgress> hostInfo = new HashMap<>();
    private long lastSeq = -1;
    private long pending;
    private long lastPersist = System.currentTimeMillis();
    private long lastPush;
    private long lastLog = System.currentTimeMillis();
    private int sitemapsPending;
    private long fetchMs;
    private long parseMs;
    private long indexMs;
    private final int window;
    /** Why the indexer cannot write (null while it can): no URL is dispatched meanwhile. */
    private String indexerPaused;
    /** Why this crawler's own writes (frontier, record) fail, or null; its unhandled pages wait in {@link #deferred}. */
    private String writesFailed;
    /** Start and sitemap URLs until the frontier has admitted them (a full disk can delay that). */
    private final List<Frontier.Candidate> waitingUrls = new ArrayList<>();
    private final java.util.ArrayDeque<PageDone> deferred = new java.util.ArrayDeque<>();
    /** Requests on the wire now: URL → since when. */
    private final Map<String, Long> fetchingNow = new LinkedHashMap<>();
    /** Pages fetched over this run of the crawl, sampled every {@link #sampleEveryMs}, thinned when full. */
    private final List<CrawlProgress.Sample> history = new ArrayList<>();
    private long sampleEveryMs = 1000;
    /** What went wrong with the first start URL that failed or was skipped ("URL: detail"), or null. */
    private String startProblem;
    /** The last errors of this run, "URL: detail" (the monitor and imports show them). */
    private final java.util.ArrayDeque<String> recentErrors = new java.util.ArrayDeque<>();
    /** Redirect targets this crawl claimed for a page whose later writes failed; the page's retry keeps them. */
    private final java.util.Set<String> claimedRedirects = new java.util.HashSet<>();

    /** The crawl's scope, then the crawler-scope blacklist (PeerStorage.blacklist()). */
    private Optional<String> reject(String url, int depth) {
        Optional<String> why = scope.reject(url, depth);
        if (why.isPresent()) return why;
        return services.storage().blacklist().blocks(org.peerdex.storage.blacklist.BlacklistRule.Scope.CRAWLER, url)
                ? Optional.of("blacklist") : Optional.empty();
    }

    public static Behavior<Command> create(CrawlRecord record, CrawlServices services,
                                           ActorRef<Indexer.Command> indexer, ActorRef<CrawlManager.Command> manager) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
                new Crawler(ctx, timers, record, services, indexer, manager)));
    }

    private Crawler(ActorContext<Command> ctx, TimerScheduler<Command> timers, CrawlRecord record,
                    CrawlServices services, ActorRef<Indexer.Command> indexer, ActorRef<CrawlManager.Command> manager) {
        super(ctx);
        this.ctx = ctx;
        this.services = services;
        this.indexer = indexer;
        this.manager = manager;
        this.record = record;
        this.profile = record.profile();
        this.scope = new CrawlScope(profile);
        this.window = Math.max(1, services.settings().dispatchWindow());
        fetched = record.fetched();
        indexed = record.indexed();
        skipped = record.skipped();
        errors = record.errors();
        skippedBy.putAll(record.skippedBy());
        errorsBy.putAll(record.errorsBy());
        this.frontier = new Frontier(services.storage().store(), record.id());
        this.links = new org.peerdex.storage.links.LinkGraph(services.storage().store());
        boolean resumed = frontier.admitted() > 0;
        if (resumed) recountIndexed();
        if (profile.startsFromSitemaps()) {
            if (!resumed) readStartSitemaps();
        } else {
            for (String u : profile.urls()) waitingUrls.add(new Frontier.Candidate(u, 0));
        }
        history.add(new CrawlProgress.Sample(System.currentTimeMillis(), fetched));
        try {
            offerWaitingUrls();
        } catch (RuntimeException e) {
            // a full disk at the very start: the crawl exists and waits, paused, until the start URLs can be written
            writesFailed(e);
        }
        // a crawl whose seeds the manager admitted has a frontier already, and nothing done yet
        boolean worked = fetched + skipped + errors > 0 || frontier.queued() < frontier.admitted();
        ctx.getLog().info("crawl {} {} at {} (depth {}, range {}, {} queued)", record.id(),
                resumed && worked ? "resumed" : "started", profile.url(), profile.depth(), profile.range(),
                frontier.queued());
        timers.startTimerWithFixedDelay(Tick.INSTANCE, PUSH_INTERVAL);
        ctx.getSelf().tell(Tick.INSTANCE);
    }

    /**
     * The counters of a resumed crawl come from its last persist (once a second): after kill -9 the pages indexed
     * in that last second are in the index and done in the frontier but not counted. Those done URLs of this crawl
     * that are in the index are counted instead, when they are more.
     */
    private void recountIndexed() {
        var metadata = services.storage().metadata();
        long inIndex = 0;
        for (var url : frontier.doneUrls()) if (metadata.contains(url)) inIndex++;
        if (inIndex > indexed) {
            ctx.getLog().info("crawl {}: {} pages indexed, {} counted at the last persist", record.id(), inIndex, indexed);
            fetched += inIndex - indexed;
            indexed = inIndex;
        }
    }

    /** The crawl starts from the pages its sitemaps list (at depth 0); it does not end before they are read. */
    private void readStartSitemaps() {
        sitemapsPending++;
        int max = (int) Math.min(services.settings().maxSitemapUrls(),
                profile.maxPages() > 0 ? profile.maxPages() : Integer.MAX_VALUE);
        ctx.pipeToSelf(java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> services.sitemaps().read(profile.urls(), max), services.fetch()),
                (r, t) -> new StartSitemaps(r != null ? r
                        : new Sitemaps.Read(List.of(), List.of(profile.url() + ": " + t))));
    }

    private Behavior<Command> onStartSitemaps(StartSitemaps m) {
        sitemapsPending--;
        Sitemaps.Read read = m.read();
        if (!read.problems().isEmpty()) {
            ctx.getLog().info("crawl {}: sitemap problems: {}", record.id(), read.problems());
            if (read.urls().isEmpty()) startProblem = String.join("; ", read.problems());
        }
        if (read.urls().isEmpty() && startProblem == null) startProblem = profile.url() + ": the sitemap lists no pages";
        List<Frontier.Candidate> candidates = sitemapCandidates(read.urls(), 0);
        if (!candidates.isEmpty()) {
            ctx.getLog().info("crawl {}: starts from {} URLs of its sitemaps", record.id(), candidates.size());
            waitingUrls.addAll(candidates);
            try {
                offerWaitingUrls();
            } catch (RuntimeException e) {
                writesFailed(e);
                return this;
            }
        } else if (startProblem == null) {
            startProblem = profile.url() + ": no page of the sitemap is in the crawl's scope";
        }
        return fill();
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(PageDone.class, this::onPageDone)
                .onMessage(Fetching.class, m -> {
                    if (m.active()) fetchingNow.put(m.url(), System.currentTimeMillis());
                    else fetchingNow.remove(m.url());
                    return this;
                })
                .onMessage(StartSitemaps.class, this::onStartSitemaps)
                .onMessage(Indexed.class, this::onIndexed)
                .onMessage(HostReady.class, this::onHostReady)
                .onMessage(HostIdle.class, this::onHostIdle)
                .onMessage(SitemapUrls.class, this::onSitemapUrls)
                .onMessage(GetProgress.class, m -> {
                    m.replyTo().tell(Optional.of(progress()));
                    return this;
                })
                .onMessage(Stop.class, this::onStop)
                .onMessage(WritesPaused.class, m -> {
                    if (!paused()) pauseHosts(true);
                    if (indexerPaused == null) ctx.getLog().warn("crawl {} paused: {}", record.id(), m.why());
                    indexerPaused = m.why();
                    manager.tell(new CrawlManager.ProgressUpdate(progress()));
                    return this;
                })
                .onMessageEquals(WritesResumed.INSTANCE, () -> {
                    indexerPaused = null;
                    if (!paused()) resumed();
                    manager.tell(new CrawlManager.ProgressUpdate(progress()));
                    return fill();
                })
                .onMessageEquals(Tick.INSTANCE, this::onTick)
                .onSignal(org.apache.pekko.actor.typed.PostStop.class, s -> {
                    // stopped from outside (node shutdown): keep the crawl running in the store, with fresh counters
                    if (record.state().equals(CrawlRecord.RUNNING)) tryPersist(CrawlRecord.RUNNING, 0, "");
                    // its pages still at the indexer will never be counted back here: the budget gets them now
                    services.pages().release((int) pending);
                    pending = 0;
                    return this;
                })
                .build();
    }

    /** First message after setup goes through here too: the first tick starts dispatching. */
    private Behavior<Command> onTick() {
        if (writesFailed != null) retryDeferred();
        if (pending == 0 || pending <= window / 2) {
            Behavior<Command> b = fill();
            if (b != this) return b;
        }
        long now = System.currentTimeMillis();
        sample(now);
        manager.tell(new CrawlManager.ProgressUpdate(progress()));
        // counters are persisted every second (a resumed crawl continues from them), logged every progress-interval
        if (now - lastPersist >= Math.min(1000, services.settings().progressIntervalMs())) {
            lastPersist = now;
            tryPersist(CrawlRecord.RUNNING, 0, "");
        }
        if (now - lastLog >= services.settings().progressIntervalMs()) {
            lastLog = now;
            ctx.getLog().info("crawl {}: {} queued, {} fetched, {} indexed, {} skipped, {} errors, {} pages/min",
                    record.id(), frontier.queued(), fetched, indexed, skipped, errors, meter.perMinute(now));
        }
        return this;
    }

    /** Dispatches queued URLs up to the window; finishes the crawl when nothing is left. */
    private Behavior<Command> fill() {
        // paused by a failing write: nothing new is fetched, and the crawl does not end while pages wait
        if (paused()) return this;
        long room = window - pending;
        boolean starved = false;
        if (room > 0) {
            // the node-wide budget first: other crawls' pages in flight count too
            int granted = services.pages().acquireUpTo((int) room);
            List<Frontier.Entry> next = granted == 0 ? List.of() : frontier.next(lastSeq, granted);
            services.pages().release(granted - next.size());
            // cut short by the budget while the frontier may hold more (it filled all that was granted)
            starved = granted < room && next.size() == granted;
            for (Frontier.Entry e : next) {
                lastSeq = e.seq();
                pending++;
                String site = site(e.url());
                hostPending.computeIfAbsent(site, s -> new long[1])[0]++;
                Host h = hosts.computeIfAbsent(site, s -> new Host(ctx.spawn(HostQueue.create(s, services, profile,
                        scope, record.createdAt(), !sitemapsRead.contains(s), ctx.getSelf()),
                        "host-" + hostQueuesStarted++)));
                h.sent++;
                h.queue.tell(new HostQueue.Enqueue(e));
            }
        }
        // a crawl the budget kept from dispatching is not done: the tick tries again
        if (pending == 0 && sitemapsPending == 0 && !starved) return finish();
        return this;
    }

    /** Records pages fetched so far every {@link #sampleEveryMs}; when full, keeps every other sample. */
    private void sample(long now) {
        CrawlProgress.Sample last = history.isEmpty() ? null : history.get(history.size() - 1);
        if (last != null && now - last.at() < sampleEveryMs) return;
        history.add(new CrawlProgress.Sample(now, fetched));
        if (history.size() > CrawlProgress.MAX_HISTORY) {
            List<CrawlProgress.Sample> kept = new ArrayList<>();
            for (int i = 0; i < history.size(); i += 2) kept.add(history.get(i));
            if (kept.get(kept.size() - 1) != history.get(history.size() - 1)) kept.add(history.get(history.size() - 1));
            history.clear();
            history.addAll(kept);
            sampleEveryMs *= 2;
        }
    }

    /**
     * Nothing is left: the crawl finished, or failed when it indexed nothing for a reason of its own (its start
     * URL failed, its host was unreachable, robots.txt disallowed it). A crawl whose pages were all up to date or
     * duplicates (a recrawl) indexed nothing and still finished.
     */
    private Behavior<Command> finish() {
        boolean upToDate = false;
        for (String reason : List.of("fresh", "already-indexed", "duplicate", "canonical", "redirect-seen")) {
            upToDate |= skippedBy.containsKey(reason);
        }
        if (indexed == 0 && !upToDate) {
            String why = startProblem != null ? startProblem : summary();
            return end(CrawlRecord.FAILED, "nothing indexed: " + why);
        }
        return end(CrawlRecord.FINISHED, startProblem == null ? "" : "a start URL failed: " + startProblem);
    }

    /** "3 errors (http-404 2, host-unreachable 1), 1 skipped (robots 1)", or what else is known. */
    private String summary() {
        List<String> parts = new ArrayList<>();
        if (errors > 0) parts.add(errors + " errors " + breakdown(errorsBy));
        if (skipped > 0) parts.add(skipped + " skipped " + breakdown(skippedBy));
        if (parts.isEmpty()) parts.add("no URL was fetched" + (linksRejected.isEmpty() ? ""
                : " (links not followed: " + breakdown(linksRejected) + ")"));
        return String.join(", ", parts);
    }

    private static String breakdown(Map<String, Long> counts) {
        List<String> parts = new ArrayList<>();
        counts.forEach((k, v) -> parts.add(k + " " + v));
        return "(" + String.join(", ", parts) + ")";
    }

    static String site(String url) {
        URI u = URI.create(url);
        return u.getScheme().toLowerCase(Locale.ROOT) + "://" + u.getRawAuthority().toLowerCase(Locale.ROOT);
    }

    private Behavior<Command> onPageDone(PageDone m) {
        fetchingNow.remove(m.entry().url());
        if (m.entry().depth() == 0 && startProblem == null && !profile.startsFromSitemaps()) {
            String detail = m.outcome() instanceof PageOutcome.Failed f ? f.detail()
                    : m.outcome() instanceof PageOutcome.Skipped s ? s.reason() + ": " + s.detail() : null;
            if (detail != null) startProblem = m.entry().url() + ": " + detail;
        }
        if (writesFailed != null) {
            deferred.add(m);
            return this;
        }
        try {
            handle(m);
        } catch (RuntimeException e) {
            // the page's links could not be admitted (the frontier write failed): keep it and retry on the tick
            writesFailed(e);
            deferred.add(m);
            return this;
        }
        // new links are dispatched now, not when the indexer has written this page: fetching never waits for it
        if (pending <= window / 2) return fill();
        return this;
    }

    /** Retries the pages whose frontier writes failed, oldest first, and the crawl record; resumes if all succeed. */
    private void retryDeferred() {
        try {
            offerWaitingUrls();
            while (!deferred.isEmpty()) {
                handle(deferred.peek());
                deferred.poll();
            }
            persist(CrawlRecord.RUNNING, 0, "");
        } catch (RuntimeException e) {
            writesFailed = org.peerdex.storage.kv.WriteFailure.describe(e);
            return;
        }
        writesFailed = null;
        if (!paused()) resumed();
        manager.tell(new CrawlManager.ProgressUpdate(progress()));
    }

    /** Admits the start (and sitemap) URLs into the frontier once; they stay pending while the write fails. */
    private void offerWaitingUrls() {
        if (waitingUrls.isEmpty()) return;
        frontier.offer(waitingUrls, profile.maxPages(), profile.maxPagesPerHost());
        waitingUrls.clear();
    }

    private void resumed() {
        ctx.getLog().info("crawl {} resumed: writes succeed again", record.id());
        pauseHosts(false);
    }

    private void pauseHosts(boolean pause) {
        for (Host h : hosts.values()) h.queue.tell(pause ? HostQueue.Pause.INSTANCE : HostQueue.Resume.INSTANCE);
    }

    private void writesFailed(RuntimeException e) {
        String why = org.peerdex.storage.kv.WriteFailure.describe(e);
        if (!paused()) pauseHosts(true);
        if (writesFailed == null) ctx.getLog().warn("crawl {} paused: {}", record.id(), why);
        writesFailed = why;
        manager.tell(new CrawlManager.ProgressUpdate(progress()));
    }

    private boolean paused() {
        return indexerPaused != null || writesFailed != null;
    }

    /** Counts the page, admits its links into the frontier and hands it to the indexer; throws if a write fails. */
    private void handle(PageDone m) {
        PageOutcome out = m.outcome();
        if (out instanceof PageOutcome.Fetched f) {
            boolean redirected = !f.url().equals(m.entry().url());
            if (redirected && !claimedRedirects.contains(f.url()) && !frontier.claim(f.url())) {
                out = new PageOutcome.Skipped("redirect-seen", f.status(), "redirected to " + f.url()
                        + ", which this crawl reaches under its own entry", f.redirects());
            } else {
                // a claim written before a failed link write stays this page's when the page is retried
                if (redirected) claimedRedirects.add(f.url());
                admitLinks(m.entry(), f);
                if (redirected) claimedRedirects.remove(f.url());
            }
            // counted after the writes above: a page retried after a failed write counts once
            fetchMs += f.fetchMs();
            parseMs += f.parseMs();
        }
        if (out instanceof PageOutcome.Failed failed) {
            if (recentErrors.size() >= CrawlProgress.RECENT_ERRORS) recentErrors.removeFirst();
            recentErrors.addLast(m.entry().url() + ": " + failed.detail());
        }
        if (out.status() > 0) {
            fetched++;
            long now = System.currentTimeMillis();
            meter.record(now, 1);
            services.rates().record(now, 1);
        }
        indexer.tell(new Indexer.Index(frontier, m.entry(), out, ctx.getSelf()));
    }

    private void admitLinks(Frontier.Entry entry, PageOutcome.Fetched f) {
        List<Frontier.Candidate> candidates = new ArrayList<>();
        if (!f.doc().nofollow()) {
            // recorded before the links are followed, so a target's anchors are there when its entry is built
            links.record(org.peerdex.protocol.hash.UrlHash.ofNormalized(f.url()), Indexer.outLinks(f.doc()));
            for (var link : f.doc().links()) {
                if (link.nofollow()) {
                    linksRejected.merge("nofollow", 1L, Long::sum);
                    continue;
                }
                Optional<String> url = presetUrl(link.url());
                if (url.isEmpty()) continue;
                Optional<String> why = reject(url.get(), entry.depth() + 1);
                if (why.isPresent()) linksRejected.merge(why.get(), 1L, Long::sum);
                else candidates.add(new Frontier.Candidate(url.get(), entry.depth() + 1));
            }
        }
        String canonical = f.doc().canonical();
        if (!canonical.isEmpty()) canonical = presetUrl(canonical).orElse("");
        if (!canonical.isEmpty() && !canonical.equals(f.url()) && reject(canonical, entry.depth()).isEmpty()) {
            candidates.add(new Frontier.Candidate(canonical, entry.depth()));
        }
        if (candidates.isEmpty()) return;
        for (Frontier.Offer o : frontier.offer(candidates, profile.maxPages(), profile.maxPagesPerHost())) {
            if (o == Frontier.Offer.CRAWL_FULL) linksRejected.merge("max-pages", 1L, Long::sum);
            else if (o == Frontier.Offer.HOST_FULL) linksRejected.merge("max-pages-per-host", 1L, Long::sum);
        }
    }

    /**
     * The URL to crawl for a link under the profile's preset (session ids stripped, one URL per page), or empty,
     * counted as a "preset-NAME" rejection, for a link the preset's rules do not follow; the link itself without one.
     */
    private Optional<String> presetUrl(String url) {
        ForumRules rules = profile.rules();
        if (rules == null) return Optional.of(url);
        Optional<String> c = rules.canonical(url);
        if (c.isEmpty()) linksRejected.merge("preset-" + rules.name(), 1L, Long::sum);
        return c;
    }

    /** A sitemap's URLs at this depth that pass the crawl's scope; the others counted as "sitemap-" rejections. */
    private List<Frontier.Candidate> sitemapCandidates(List<String> urls, int depth) {
        List<Frontier.Candidate> candidates = new ArrayList<>();
        for (String u : urls) {
            Optional<String> n = UrlNormalizer.normalize(u).flatMap(this::presetUrl);
            if (n.isEmpty()) continue;
            Optional<String> why = reject(n.get(), depth);
            if (why.isPresent()) linksRejected.merge("sitemap-" + why.get(), 1L, Long::sum);
            else candidates.add(new Frontier.Candidate(n.get(), depth));
        }
        return candidates;
    }

    private Behavior<Command> onSitemapUrls(SitemapUrls m) {
        sitemapsPending--;
        List<Frontier.Candidate> candidates = sitemapCandidates(m.urls(), 1);
        if (!candidates.isEmpty()) {
            ctx.getLog().info("crawl {}: {} URLs from the sitemaps of {}", record.id(), candidates.size(), m.site());
            // admitted like the start URLs: while the frontier cannot be written they wait, and the crawl pauses
            waitingUrls.addAll(candidates);
            try {
                offerWaitingUrls();
            } catch (RuntimeException e) {
                writesFailed(e);
                return this;
            }
        }
        return fill();
    }

    private Behavior<Command> onHostReady(HostReady m) {
        hostInfo.put(m.site(), new CrawlProgress.HostProgress(m.site(), 0, m.delayMs(), m.robots()));
        if (m.sitemapsPending()) {
            sitemapsPending++;
            sitemapsRead.add(m.site());
        }
        return this;
    }

    private Behavior<Command> onHostIdle(HostIdle m) {
        Host h = hosts.get(m.site());
        // a URL sent after the queue reported idle is on its way to it: the queue lives on
        if (h == null || !h.queue.equals(m.queue()) || h.sent != m.received()) return this;
        ctx.stop(h.queue);
        hosts.remove(m.site());
        long[] hp = hostPending.get(m.site());
        if (hp == null || hp[0] <= 0) forgetHost(m.site());
        return this;
    }

    /** Drops what progress shows of a host without a queue and without pages at the indexer. */
    private void forgetHost(String site) {
        hostPending.remove(site);
        hostInfo.remove(site);
    }

    private Behavior<Command> onIndexed(Indexed m) {
        indexMs += m.flushMs();
        for (Indexer.Verdict v : m.verdicts()) {
            pending--;
            services.pages().release(1);
            String site = site(v.entry().url());
            long[] hp = hostPending.get(site);
            if (hp != null && --hp[0] <= 0 && !hosts.containsKey(site)) forgetHost(site);
            switch (v.kind()) {
                case Indexer.Verdict.INDEXED -> indexed++;
                case Indexer.Verdict.SKIPPED -> {
                    skipped++;
                    skippedBy.merge(v.reason(), 1L, Long::sum);
                }
                default -> {
                    errors++;
                    errorsBy.merge(v.reason(), 1L, Long::sum);
                }
            }
        }
        long now = System.currentTimeMillis();
        if (now - lastPush >= 100) {
            lastPush = now;
            manager.tell(new CrawlManager.ProgressUpdate(progress()));
        }
        if (pending <= window / 2) return fill();
        return this;
    }

    private Behavior<Command> onStop(Stop m) {
        Behavior<Command> b = end(CrawlRecord.STOPPED, "stopped by request");
        m.replyTo().tell(Optional.of(b == this ? progress() : progressOf(record)));
        return b;
    }

    private Behavior<Command> end(String state, String why) {
        long now = System.currentTimeMillis();
        try {
            persist(state, now, why);
            frontier.deleteAll();
        } catch (RuntimeException e) {
            // the end could not be recorded (a full disk): the crawl stays running and ends on a later tick
            record = record.withState(CrawlRecord.RUNNING, 0, "");
            writesFailed(e);
            return this;
        }
        CrawlProgress p = progressOf(record);
        ctx.getLog().info("crawl {} {}: {} fetched, {} indexed, {} skipped {}, {} errors {} in {} s ({} pages/min)",
                record.id(), state, fetched, indexed, skipped, skippedBy, errors, errorsBy,
                (now - record.createdAt()) / 1000, p.pagesPerMinute());
        manager.tell(new CrawlManager.CrawlEnded(p));
        return Behaviors.stopped();
    }

    private CrawlProgress progressOf(CrawlRecord r) {
        CrawlProgress p = CrawlProgress.of(r);
        List<CrawlProgress.Sample> h = new ArrayList<>(history);
        h.add(new CrawlProgress.Sample(r.finishedAt() > 0 ? r.finishedAt() : System.currentTimeMillis(), fetched));
        return new CrawlProgress(p.id(), p.state(), p.url(), 0, p.fetched(), p.indexed(), p.skipped(), p.errors(),
                p.pagesPerMinute(), p.skippedBy(), p.errorsBy(), Map.copyOf(linksRejected), List.of(), p.startedAt(),
                p.finishedAt(), p.message(), p.profile(), timing(), false, "", 0, List.of(), List.copyOf(h),
                List.copyOf(recentErrors));
    }

    /** Persists the counters; a failure (a full disk) pauses the crawl until a retry succeeds. */
    private void tryPersist(String state, long finishedAt, String why) {
        try {
            persist(state, finishedAt, why);
        } catch (RuntimeException e) {
            writesFailed(e);
        }
    }

    private void persist(String state, long finishedAt, String why) {
        record = new CrawlRecord(record.id(), profile, state, record.createdAt(), finishedAt, fetched, indexed,
                skipped, errors, skippedBy, errorsBy, why);
        services.crawls().put(record);
    }

    private Map<String, Long> timing() {
        return Map.of("fetch", fetchMs, "parse", parseMs, "index", indexMs);
    }

    private CrawlProgress progress() {
        // the hosts with the most URLs dispatched first: the ones a wide crawl waits for
        List<Map.Entry<String, long[]>> busiest = new ArrayList<>(hostPending.entrySet());
        busiest.sort((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]));
        List<CrawlProgress.HostProgress> hs = new ArrayList<>();
        for (Map.Entry<String, long[]> e : busiest) {
            if (hs.size() >= 100) break;
            CrawlProgress.HostProgress info = hostInfo.get(e.getKey());
            hs.add(new CrawlProgress.HostProgress(e.getKey(), e.getValue()[0], info == null ? -1 : info.delayMs(),
                    info == null ? "pending" : info.robots()));
        }
        List<CrawlProgress.Fetching> now = new ArrayList<>();
        for (Map.Entry<String, Long> e : fetchingNow.entrySet()) {
            if (now.size() >= 50) break;
            now.add(new CrawlProgress.Fetching(e.getKey(), e.getValue()));
        }
        return new CrawlProgress(record.id(), CrawlRecord.RUNNING, profile.url(), frontier.queued(), fetched, indexed,
                skipped, errors, meter.perMinute(System.currentTimeMillis()), Map.copyOf(skippedBy),
                Map.copyOf(errorsBy), Map.copyOf(linksRejected), hs, record.createdAt(), 0, "", profile, timing(),
                paused(), indexerPaused != null ? indexerPaused : writesFailed != null ? writesFailed : "",
                ctx.getChildren().size(), now, List.copyOf(history), List.copyOf(recentErrors));
    }

    /** A host's live queue and the URLs this crawl sent it. */
    private static final class Host {
        final ActorRef<HostQueue.Command> queue;
        long sent;

        Host(ActorRef<HostQueue.Command> queue) {
            this.queue = queue;
        }
    }
}
