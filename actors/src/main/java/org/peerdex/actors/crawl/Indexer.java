package org.peerdex.actors.crawl;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.peerdex.actors.dht.replication.ReplicationHook;
import org.peerdex.actors.parse.ParsedDocument;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.frontier.ContentHashes;
import org.peerdex.storage.frontier.Frontier;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.links.LinkGraph;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.meta.UrlMetadataStore;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.text.Tokenizer;

/**
 * Turns crawl outcomes into index entries, in batches (at most {@code max-batch-documents}, at least every
 * {@code flush-interval}): a parsed page becomes URL metadata and postings (the condenser, usually run already on
 * the fetch worker), with the anchor texts of links pointing to it indexed for it (as YaCy does; the crawler records
 * each page's out-links in the link graph before it follows them); {@code noindex},
 * a canonical URL elsewhere and duplicate content (by content hash) keep it out of the index. Every URL gets its
 * crawl history (fetched, redirects, why skipped). After the write is durable the URLs are marked done in their
 * frontiers, the crawlers told, and the DHT replication hook called. A failing write (a full disk) or a replication
 * backlog over its bound ({@link ReplicationHook#holdBack}) pauses it: the batch is kept, the crawlers stop fetching,
 * and it tries again every pause-retry-interval. One per node, on the index dispatcher.
 */
public final class Indexer extends AbstractBehavior<Indexer.Command> {
    /** What the indexer understands. */
    public sealed interface Command {}

    /** The outcome of one frontier entry, to be recorded. */
    public record Index(Frontier frontier, Frontier.Entry entry, PageOutcome outcome,
                        ActorRef<Crawler.Command> replyTo) implements Command {}

    private enum Flush implements Command { INSTANCE }

    /** Writes what is buffered now and answers Done (node shutdown). */
    public record FlushNow(ActorRef<org.apache.pekko.Done> replyTo) implements Command {}

    /** What became of a URL: {@code kind} is indexed, skipped or error; {@code reason} says why. */
    public record Verdict(Frontier.Entry entry, String kind, String reason) {
        public static final String INDEXED = "indexed";
        public static final String SKIPPED = "skipped";
        public static final String ERROR = "error";
    }

    private static final int MAX_ANCHORS = 50;
    private final ActorContext<Command> ctx;
    private final TimerScheduler<Command> timers;
    private final PeerStorage storage;
    private final ReplicationHook replication;
    private final CrawlerSettings settings;
    private final LinkGraph links;
    private final ContentHashes contentHashes;
    private final List<Index> buffer = new ArrayList<>();
    /** Why writes fail (the batch is kept and retried), or null while they succeed. */
    private String pausedBy;
    private final java.util.Set<ActorRef<Crawler.Command>> notified = new java.util.LinkedHashSet<>();

    public static Behavior<Command> create(PeerStorage storage, ReplicationHook replication, CrawlerSettings settings) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(t -> new Indexer(ctx, t, storage, replication, settings)));
    }

    private Indexer(ActorContext<Command> ctx, TimerScheduler<Command> timers, PeerStorage storage,
                    ReplicationHook replication, CrawlerSettings settings) {
        super(ctx);
        this.ctx = ctx;
        this.timers = timers;
        this.storage = storage;
        this.replication = replication;
        this.settings = settings;
        this.links = new LinkGraph(storage.store());
        this.contentHashes = new ContentHashes(storage.store());
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Index.class, this::onIndex)
                .onMessageEquals(Flush.INSTANCE, () -> {
                    flush();
                    return this;
                })
                .onMessage(FlushNow.class, m -> {
                    flush();
                    m.replyTo().tell(org.apache.pekko.Done.getInstance());
                    return this;
                })
                .build();
    }

    private Behavior<Command> onIndex(Index m) {
        buffer.add(m);
        if (pausedBy != null) {
            // paused: the retry timer runs; the crawlers' dispatch windows bound what waits here
            if (notified.add(m.replyTo())) m.replyTo().tell(new Crawler.WritesPaused(pausedBy));
        } else if (buffer.size() >= settings.maxBatchDocuments()) flush();
        else if (!timers.isTimerActive(Flush.INSTANCE)) {
            timers.startSingleTimer(Flush.INSTANCE, Duration.ofMillis(settings.flushIntervalMs()));
        }
        return this;
    }

    private void flush() {
        timers.cancel(Flush.INSTANCE);
        if (buffer.isEmpty()) return;
        List<Index> items = new ArrayList<>(buffer);
        // back-pressure: while the replication outbox is over its bound the batch waits, as on a full disk
        String held = replication.holdBack();
        if (held != null) {
            pause(held, items);
            return;
        }
        try {
            write(items);
        } catch (RuntimeException e) {
            // nothing of the batch is acknowledged (no URL left its frontier): keep it all and retry until it writes
            pause(org.peerdex.storage.kv.WriteFailure.describe(e), items);
            return;
        }
        buffer.subList(0, items.size()).clear();
        if (pausedBy != null) {
            ctx.getLog().info("indexing resumed: the kept pages are written ({})", items.size());
            pausedBy = null;
            for (ActorRef<Crawler.Command> c : notified) c.tell(Crawler.WritesResumed.INSTANCE);
            notified.clear();
        }
        if (!buffer.isEmpty()) timers.startSingleTimer(Flush.INSTANCE, Duration.ofMillis(settings.flushIntervalMs()));
    }

    /** Keeps the batch, tells its crawlers to stop fetching, and tries again after pause-retry-interval. */
    private void pause(String why, List<Index> items) {
        if (pausedBy == null) {
            ctx.getLog().warn("indexing paused, crawls wait: {}; {} pages kept, retrying every {} ms", why,
                    items.size(), settings.pauseRetryMs());
        }
        pausedBy = why;
        for (Index item : items) {
            if (notified.add(item.replyTo())) item.replyTo().tell(new Crawler.WritesPaused(why));
        }
        timers.startSingleTimer(Flush.INSTANCE, Duration.ofMillis(settings.pauseRetryMs()));
    }

    /** Writes one batch; throws (and acknowledges nothing) if a write fails. */
    private void write(List<Index> items) {
        long now = System.currentTimeMillis();
        long t0 = System.nanoTime();
        List<Verdict> verdicts = new ArrayList<>(items.size());
        Map<String, UrlHash> batchHashes = new HashMap<>();
        List<IndexedDocument> docs = new ArrayList<>();
        List<UrlMetadataStore.HistoryEvent[]> history = new ArrayList<>();
        List<UrlHash> historyUrls = new ArrayList<>();
        for (Index item : items) {
            Verdict v;
            List<UrlMetadataStore.HistoryEvent> events = new ArrayList<>();
            UrlHash target = UrlHash.ofNormalized(item.entry().url());
            PageOutcome o = item.outcome();
            if (o instanceof PageOutcome.Fetched f) {
                target = UrlHash.ofNormalized(f.url());
                events.add(new UrlMetadataStore.HistoryEvent(now, "fetched", f.status(), fetchDetail(item.entry(), f)));
                ParsedDocument doc = f.doc();
                String reason = null;
                String detail = "";
                if (doc.noindex()) {
                    reason = "noindex";
                    detail = "robots noindex";
                } else if (!doc.canonical().isEmpty() && !doc.canonical().equals(f.url())) {
                    reason = "canonical";
                    detail = "canonical URL is " + doc.canonical();
                } else {
                    UrlHash owner = batchHashes.get(doc.contentHash());
                    if (owner == null) owner = contentHashes.owner(doc.contentHash()).orElse(null);
                    if (owner != null && !owner.equals(target)) {
                        reason = "duplicate";
                        detail = "same content as " + owner.value();
                    }
                }
                if (reason != null) {
                    v = new Verdict(item.entry(), Verdict.SKIPPED, reason);
                    events.add(new UrlMetadataStore.HistoryEvent(now, "skipped", f.status(), reason + ": " + detail));
                } else {
                    IndexedDocument d = f.prepared() != null ? f.prepared() : document(links, target, f, now);
                    storage.writer().add(d);
                    docs.add(d);
                    batchHashes.put(doc.contentHash(), target);
                    v = new Verdict(item.entry(), Verdict.INDEXED, "");
                    events.add(new UrlMetadataStore.HistoryEvent(now, "indexed", f.status(), d.postings().size()
                            + " postings" + (f.truncated() ? ", body truncated" : "")));
                }
            } else if (o instanceof PageOutcome.Skipped s) {
                v = new Verdict(item.entry(), Verdict.SKIPPED, s.reason());
                events.add(new UrlMetadataStore.HistoryEvent(now, "skipped", s.status(), s.reason() + ": " + s.detail()
                        + redirects(s.redirects())));
            } else if (o instanceof PageOutcome.Failed e) {
                v = new Verdict(item.entry(), Verdict.ERROR, e.kind());
                events.add(new UrlMetadataStore.HistoryEvent(now, "error", e.status(), e.kind() + ": " + e.detail()
                        + redirects(e.redirects())));
            } else {
                PageOutcome.RetryLater r = (PageOutcome.RetryLater) o;
                v = new Verdict(item.entry(), Verdict.ERROR, "http-" + r.status());
                events.add(new UrlMetadataStore.HistoryEvent(now, "error", r.status(), r.detail()));
            }
            verdicts.add(v);
            history.add(events.toArray(new UrlMetadataStore.HistoryEvent[0]));
            historyUrls.add(target);
        }
        storage.writer().flush();
        if (!batchHashes.isEmpty()) {
            KeyValueStore.Batch b = storage.store().newBatch();
            batchHashes.forEach((hash, url) -> contentHashes.putTo(b, hash, url));
            storage.store().write(b, false);
        }
        for (int i = 0; i < historyUrls.size(); i++) {
            for (UrlMetadataStore.HistoryEvent e : history.get(i)) storage.metadata().appendHistory(historyUrls.get(i), e);
        }
        // only now, with the results durable, do the URLs leave their frontiers
        Map<Frontier, List<Frontier.Entry>> done = new IdentityHashMap<>();
        Map<ActorRef<Crawler.Command>, List<Verdict>> replies = new LinkedHashMap<>();
        for (int i = 0; i < items.size(); i++) {
            done.computeIfAbsent(items.get(i).frontier(), k -> new ArrayList<>()).add(items.get(i).entry());
            replies.computeIfAbsent(items.get(i).replyTo(), k -> new ArrayList<>()).add(verdicts.get(i));
        }
        done.forEach(Frontier::markDone);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        // a batch's write time is shared among the crawls in it, by their number of pages
        replies.forEach((to, vs) -> to.tell(new Crawler.Indexed(vs, ms * vs.size() / items.size())));
        if (!docs.isEmpty()) {
            List<Posting> postings = new ArrayList<>();
            List<UrlMetadata> metas = new ArrayList<>();
            for (IndexedDocument d : docs) {
                postings.addAll(d.postings());
                metas.add(d.metadata());
            }
            try {
                replication.indexed(postings, metas);
            } catch (RuntimeException e) {
                ctx.getLog().warn("replication hook failed: {}", e.toString());
            }
        }
    }

    /**
     * The index entry of a fetched page: metadata, and postings over its text plus the anchor texts of the links to
     * it recorded so far. Thread-safe (fetch workers call it to build entries in parallel).
     */
    static IndexedDocument document(LinkGraph links, UrlHash hash, PageOutcome.Fetched f, long now) {
        ParsedDocument doc = f.doc();
        String host = host(f.url());
        int local = 0;
        int other = 0;
        for (ParsedDocument.Link l : doc.links()) {
            if (host.equals(host(l.url()))) local++;
            else other++;
        }
        List<String> anchors = links.inboundAnchors(hash, MAX_ANCHORS);
        var text = doc.toDocumentText(anchors);
        List<String> headings = doc.headings().size() > 20 ? doc.headings().subList(0, 20) : doc.headings();
        UrlMetadata meta = new UrlMetadata(hash, f.url(), doc.title(), doc.description(), doc.author(),
                doc.keywords(), doc.language(), String.valueOf(doc.doctype()), doc.mimeType(), f.bytes(),
                f.lastModified(), now, local, other, Tokenizer.plainWords(doc.body()).size(), null, doc.contentHash(),
                headings);
        return PostingFactory.build(meta, text, doc.images());
    }

    static List<LinkGraph.OutLink> outLinks(ParsedDocument doc) {
        List<LinkGraph.OutLink> out = new ArrayList<>();
        for (ParsedDocument.Link l : doc.links()) {
            if (!l.nofollow()) out.add(new LinkGraph.OutLink(UrlHash.ofNormalized(l.url()), l.anchor()));
        }
        return out;
    }

    private static String fetchDetail(Frontier.Entry e, PageOutcome.Fetched f) {
        return f.doc().mimeType() + " " + f.doc().charset() + ", " + f.bytes() + " bytes in " + f.fetchMs()
                + " ms, parsed in " + f.parseMs() + " ms, depth " + e.depth() + (f.truncated() ? ", truncated" : "")
                + redirects(f.redirects());
    }

    private static String redirects(List<String> r) {
        return r.isEmpty() ? "" : ", redirects " + r;
    }

    private static String host(String url) {
        try {
            String h = URI.create(url).getHost();
            return h == null ? "" : h;
        } catch (IllegalArgumentException e) {
            return "";
        }
    }
}
