package org.peerdex.actors.search;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.peerdex.actors.search.query.Query;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.url.UrlClaim;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.text.Tokenizer;

/**
 * One query, from start to the last result: starts every candidate source at once, feeds what they return (late
 * and in any order) to its {@link Ranking} actor, fetches metadata once per URL on the blocking executor, checks
 * filters, phrases and (optionally) the live page, builds snippets, and streams {@link Event}s to its
 * subscriber: {@link ResultFound} as soon as a result is known, {@link Progress}, {@link NavigatorsFound} and
 * finally {@link Done} with the final order.
 */
public final class QueryCoordinator extends AbstractBehavior<QueryCoordinator.Command> {
    /** What the coordinator accepts from outside. */
    public sealed interface Command {}

    /** Stop early (the client went away); a Done is still sent with what is known. */
    public enum Cancel implements Command { INSTANCE }

    private record FromSource(CandidateSource.Answer answer) implements Command {}

    private record RankedUpdate(Ranking.Ranked ranked) implements Command {}

    private record Resolved(Map<UrlHash, Resolution> resolutions) implements Command {}

    /** An answer of an exclusion lookup: a remote source asked for the query's terms plus one excluded word. */
    private record FromExclusionLookup(String lookup, CandidateSource.Answer answer) implements Command {}

    private enum Timeout implements Command { INSTANCE }

    /** What the subscriber receives. */
    public sealed interface Event {}

    /** A result in the requested window, with its provisional rank (1-based, counted from offset 0). */
    public record ResultFound(SearchResult result, int rank) implements Event {}

    public record Progress(int peersAsked, int peersAnswered, int candidates) implements Event {}

    public record NavigatorsFound(Map<String, List<Navigators.Entry>> navigators) implements Event {}

    /** How long it took, in milliseconds since the query started (firstResult -1 if none). */
    public record Timing(long firstResult, long total) {}

    public record Network(int peersAsked, int peersAnswered, long messages, long bytes) {}

    /**
     * How one candidate source fared: {@code status} is "answered", "timedOut" or "failed" (with {@code error});
     * {@code millis} since the query started until it answered, failed or was given up; {@code results} how many
     * candidates it returned.
     */
    public record SourceReport(String name, String kind, String status, long millis, int results, String error) {}

    /**
     * The end: the final window of results, best first, and how each source fared. {@code navigatorsOver}: how
     * many of the best results the navigators counted (at most {@value #NAV_SAMPLE}; all of them when it equals
     * {@code total}).
     */
    public record Done(String query, long total, List<SearchResult> results, Map<String, List<Navigators.Entry>> navigators,
                       Timing timing, Network network, List<SourceReport> sources, int navigatorsOver) implements Event {}

    /** What is known of one URL after its metadata (and maybe text) were read; {@code external}: from a federated hit. */
    record Resolution(UrlMetadata metadata, boolean pass, String snippet, boolean external, String verification) {
        Resolution(UrlMetadata metadata, boolean pass, String snippet) {
            this(metadata, pass, snippet, false, "");
        }
    }

    /** A source's report while the query runs. */
    private static final class SourceState {
        final String kind;
        String status = "pending";
        long millis = -1;
        int results;
        String error = "";

        SourceState(String kind) {
            this.kind = kind;
        }
    }

    /** Navigators count over this many of the best results (each needs its metadata read). */
    public static final int NAV_SAMPLE = 50;

    private final SearchRequest request;
    private final SearchContext context;
    private final ActorRef<Event> subscriber;
    private final RankingProfile profile;
    private final LinkRank linkRank;
    private final ActorRef<Ranking.Command> ranking;
    private final ActorRef<CandidateSource.Answer> sourceAdapter;
    private final ActorRef<Ranking.Ranked> rankedAdapter;
    private final long started = System.nanoTime();
    private long firstResultNanos = -1;
    private final Set<String> pendingSources = new LinkedHashSet<>();
    private final Set<String> remoteSourceNames = new HashSet<>();
    private final Map<String, SourceState> sourceStates = new LinkedHashMap<>();
    /** The index source (local or dht) that first returned a URL; federated hits carry their own. */
    private final Map<UrlHash, String> indexSource = new HashMap<>();
    private int peersAsked;
    private int peersAnswered;
    private long messages;
    private long bytes;
    private final int need;
    private int topSize;
    private List<Ranking.RankedCandidate> top = List.of();
    private int total;
    private boolean resolving;
    private int rankingInFlight;
    private final Map<UrlHash, Resolution> resolved = new HashMap<>();
    private final Set<UrlHash> emitted = new HashSet<>();
    /** URLs a source returned while a resolution ran: a miss of their metadata in it may be out of date */
    private final Set<UrlHash> offeredWhileResolving = new HashSet<>();
    private final List<Candidate> fromRemote = new ArrayList<>();
    /** Index candidates by URL: their postings settle a phrase where no text is stored (a DHT result). */
    private final Map<UrlHash, Candidate> candidates = new HashMap<>();
    /** Exclusion lookups still running; results wait for them, so that no excluded page is ever streamed. */
    private final Set<String> pendingExclusionLookups = new LinkedHashSet<>();
    /** URLs a remote source returned for the terms plus an excluded word: they contain that word. */
    private final Set<UrlHash> excludedByLookup = new HashSet<>();
    private boolean finished;

    public static Behavior<Command> create(SearchRequest request, SearchContext context, ActorRef<Event> subscriber) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
                new QueryCoordinator(ctx, timers, request, context, subscriber)));
    }

    private QueryCoordinator(ActorContext<Command> ctx, TimerScheduler<Command> timers, SearchRequest request,
                             SearchContext context, ActorRef<Event> subscriber) {
        super(ctx);
        this.request = request;
        this.context = context;
        this.subscriber = subscriber;
        this.need = request.offset() + request.count();
        this.topSize = Math.max(need, request.navigators().isEmpty() ? 0 : NAV_SAMPLE) * 2 + 10;
        this.profile = context.profile().get();
        this.linkRank = context.linkRank().get();
        this.ranking = ctx.spawn(Ranking.create(scorer()), "ranking");
        this.sourceAdapter = ctx.messageAdapter(CandidateSource.Answer.class, FromSource::new);
        this.rankedAdapter = ctx.messageAdapter(Ranking.Ranked.class, RankedUpdate::new);
        // every source at once: the local index and (for resource=global) the remote peers
        for (CandidateSource s : context.sources(request)) {
            pendingSources.add(s.name());
            sourceStates.put(s.name(), new SourceState(s.kind()));
            if (s.remote()) remoteSourceNames.add(s.name());
            peersAsked++;
            try {
                s.start(request, this::scorer, sourceAdapter);
            } catch (RuntimeException e) {
                ctx.getLog().warn("source {} failed to start", s.name(), e);
                pendingSources.remove(s.name());
                settle(s.name(), "failed", "could not start: " + e.getMessage());
            }
        }
        startExclusionLookups(ctx);
        timers.startSingleTimer(Timeout.INSTANCE, context.sourceTimeout());
        if (pendingSources.isEmpty() && pendingExclusionLookups.isEmpty()) finish();
    }

    /**
     * A remote source joins over the query's terms only, and a holder of a term knows nothing of the document's
     * other words: for each excluded word, the DHT is asked once more for the terms <em>plus</em> that word, and
     * what it returns is excluded (the stored fields and this peer's own postings are checked as well, in
     * {@link #excluded}). Federated sources are not asked: their hits are checked on their title, snippet and URL.
     */
    private void startExclusionLookups(ActorContext<Command> ctx) {
        Query q = request.query();
        if (q.exclusions().isEmpty()) return;
        for (CandidateSource s : context.sources(request)) {
            if (!s.remote() || s.federated()) continue;
            for (String word : q.exclusions()) {
                List<String> terms = new ArrayList<>(q.terms());
                terms.add(word);
                Query withWord = new Query(q.raw(), terms, List.of(), List.of(), Optional.empty(), Optional.empty(),
                        Optional.empty(), q.language(), Optional.empty());
                SearchRequest lookup = new SearchRequest(withWord, request.count(), request.offset(),
                        request.resource(), "false", Set.of(), false, request.contentDomain(), false);
                String name = s.name() + " -" + word;
                ActorRef<Command> self = ctx.getSelf();
                ActorRef<CandidateSource.Answer> forward = ctx.spawnAnonymous(
                        Behaviors.<CandidateSource.Answer>receiveMessage(a -> {
                            self.tell(new FromExclusionLookup(name, a));
                            return Behaviors.same();
                        }));
                pendingExclusionLookups.add(name);
                try {
                    s.start(lookup, forward);
                } catch (RuntimeException e) {
                    ctx.getLog().warn("exclusion lookup {} failed to start", name, e);
                    pendingExclusionLookups.remove(name);
                }
            }
        }
    }

    /**
     * A scorer of this query (the ranking's, and one for each source that keeps only its best candidates), all
     * with the profile and link rank the query started with.
     */
    private Scorer scorer() {
        return new Scorer(request.query(), profile, new CorpusStats(1, Map.of(), 0), linkRank,
                url -> context.feedback() == null ? 0 : context.feedback().value(url), context.preferredLanguage(),
                request.contentDomain());
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(FromSource.class, m -> onAnswer(m.answer()))
                .onMessage(RankedUpdate.class, this::onRanked)
                .onMessage(Resolved.class, this::onResolved)
                .onMessage(FromExclusionLookup.class, this::onExclusionLookup)
                .onMessageEquals(Timeout.INSTANCE, this::onTimeout)
                .onMessageEquals(Cancel.INSTANCE, this::onTimeout)
                .build();
    }

    private Behavior<Command> onAnswer(CandidateSource.Answer a) {
        if (finished) return this;
        if (a instanceof CandidateSource.CandidatesFound f) {
                if (remoteSourceNames.contains(f.source())) fromRemote.addAll(f.candidates());
                SourceState st = sourceStates.get(f.source());
                if (st != null) st.results += f.candidates().size();
                for (Candidate c : f.candidates()) {
                    if (c.isExternal()) continue;
                    indexSource.putIfAbsent(c.url(), f.source());
                    candidates.putIfAbsent(c.url(), c);
                    // an index candidate replaces a federated hit of the same URL: resolve it again from the index;
                    // and a URL that had no metadata here (a DHT holder's posting of a page it holds no metadata
                    // of) is resolved again: a remote source stores the metadata before passing its candidates on
                    Resolution r = resolved.get(c.url());
                    if (r != null && (r.external() || r.metadata() == null)) resolved.remove(c.url());
                    if (resolving) offeredWhileResolving.add(c.url());
                }
                if (f.last() && pendingSources.remove(f.source())) {
                    peersAnswered++;
                    settle(f.source(), "answered", "");
                }
                rankingInFlight++;
                ranking.tell(new Ranking.AddCandidates(f.candidates(), f.stats(), topSize, request.explain(),
                        rankedAdapter));
        } else if (a instanceof CandidateSource.PeersContacted p) {
                peersAsked += p.peersAsked();
                peersAnswered += p.peersAnswered();
                messages += p.messages();
                bytes += p.bytes();
        } else if (a instanceof CandidateSource.SourceFailed f) {
                getContext().getLog().info("source {} failed: {}", f.source(), f.reason());
                pendingSources.remove(f.source());
                settle(f.source(), "failed", f.reason());
        } else if (a instanceof CandidateSource.SourceTimedOut t) {
                getContext().getLog().info("source {} timed out after {} ms", t.source(), t.afterMillis());
                pendingSources.remove(t.source());
                settle(t.source(), "timedOut", "no answer within " + t.afterMillis() + " ms");
        }
        progress();
        advance();
        return this;
    }

    private Behavior<Command> onExclusionLookup(FromExclusionLookup m) {
        if (finished || !pendingExclusionLookups.contains(m.lookup())) return this;
        CandidateSource.Answer a = m.answer();
        if (a instanceof CandidateSource.CandidatesFound f) {
            for (Candidate c : f.candidates()) excludedByLookup.add(c.url());
            if (f.last()) pendingExclusionLookups.remove(m.lookup());
        } else if (a instanceof CandidateSource.PeersContacted p) {
            messages += p.messages();
            bytes += p.bytes();
        } else {
            // failed or timed out: the stored fields and this peer's postings still exclude what they can
            getContext().getLog().info("exclusion lookup {} ended without an answer: {}", m.lookup(), a);
            pendingExclusionLookups.remove(m.lookup());
        }
        advance();
        return finished ? Behaviors.stopped() : this;
    }

    /** A resolved URL that is shown: it passed the filters and no exclusion lookup returned it. */
    private boolean shown(UrlHash u, Resolution r) {
        return r.pass() && !excludedByLookup.contains(u);
    }

    /** Records how a source ended (the first word counts: a late answer after a timeout changes nothing). */
    private void settle(String source, String status, String error) {
        SourceState st = sourceStates.get(source);
        if (st == null || !st.status.equals("pending")) return;
        st.status = status;
        st.error = error == null ? "" : error;
        st.millis = (System.nanoTime() - started) / 1_000_000;
    }

    private List<SourceReport> sourceReports() {
        List<SourceReport> out = new ArrayList<>();
        sourceStates.forEach((name, st) -> out.add(new SourceReport(name, st.kind, st.status, st.millis, st.results,
                st.error)));
        return out;
    }

    private void progress() {
        subscriber.tell(new Progress(peersAsked, peersAnswered, total));
    }

    private Behavior<Command> onRanked(RankedUpdate m) {
        rankingInFlight--;
        top = m.ranked().top();
        total = m.ranked().total();
        advance();
        return this;
    }

    private Behavior<Command> onTimeout() {
        if (!pendingSources.isEmpty()) getContext().getLog().debug("sources timed out: {}", pendingSources);
        for (String s : pendingSources) settle(s, "timedOut", "no answer within the query's "
                + context.sourceTimeout().toMillis() + " ms");
        pendingSources.clear();
        if (!pendingExclusionLookups.isEmpty()) {
            getContext().getLog().info("exclusion lookups timed out: {}", pendingExclusionLookups);
            pendingExclusionLookups.clear();
        }
        advance();
        if (!finished && !resolving && rankingInFlight == 0) finish();
        return finished ? Behaviors.stopped() : this;
    }

    /** Resolves what the window needs next, emits what is known, finishes when nothing more can come. */
    private void advance() {
        if (finished || resolving) return;
        List<UrlHash> toResolve = new ArrayList<>();
        Map<UrlHash, ExternalHit> externals = new HashMap<>();
        Set<UrlHash> needText = new HashSet<>();
        int passing = 0;
        int wanted = Math.max(need, request.navigators().isEmpty() ? 0 : Math.min(NAV_SAMPLE, total));
        boolean walkedAll = true;
        for (Ranking.RankedCandidate rc : top) {
            if (passing + toResolve.size() >= wanted) {
                walkedAll = false;
                break;
            }
            UrlHash u = rc.candidate().url();
            Resolution r = resolved.get(u);
            boolean inWindow = passing + toResolve.size() < need;
            if (r == null) {
                toResolve.add(u);
                if (rc.candidate().isExternal()) externals.put(u, rc.candidate().external());
                if (inWindow) needText.add(u);
            } else if (shown(u, r)) {
                if (inWindow && r.snippet() == null) {
                    toResolve.add(u);
                    needText.add(u);
                    continue;
                }
                passing++;
            }
        }
        if (!toResolve.isEmpty()) {
            resolving = true;
            Map<UrlHash, Resolution> known = new HashMap<>();
            for (UrlHash u : toResolve) if (resolved.containsKey(u)) known.put(u, resolved.get(u));
            Map<UrlHash, Candidate> postings = new HashMap<>();
            for (UrlHash u : toResolve) if (candidates.containsKey(u)) postings.put(u, candidates.get(u));
            CompletableFuture.supplyAsync(() -> resolve(toResolve, needText, known, externals, postings),
                            context.blocking())
                    .whenComplete((res, err) -> getContext().getSelf().tell(new Resolved(res != null ? res
                            : failedAll(toResolve))));
            return;
        }
        emit();
        if (walkedAll && top.size() < total && passing < wanted) {
            // filters rejected too many: look further down the ranking
            topSize *= 2;
            rankingInFlight++;
            ranking.tell(new Ranking.GetTop(topSize, request.explain(), rankedAdapter));
            return;
        }
        if (pendingSources.isEmpty() && pendingExclusionLookups.isEmpty() && rankingInFlight == 0) finish();
    }

    private static Map<UrlHash, Resolution> failedAll(List<UrlHash> urls) {
        Map<UrlHash, Resolution> m = new HashMap<>();
        for (UrlHash u : urls) m.put(u, new Resolution(null, false, null));
        return m;
    }

    private Behavior<Command> onResolved(Resolved m) {
        resolving = false;
        m.resolutions().forEach((u, r) -> {
            // the index returned this URL while its federated hit was being resolved: the index's version wins
            if (r.external() && indexSource.containsKey(u)) return;
            // no metadata then, but a source has returned the URL since (with its metadata stored): read again
            if (r.metadata() == null && offeredWhileResolving.contains(u)) return;
            resolved.put(u, r);
        });
        offeredWhileResolving.clear();
        advance();
        return finished ? Behaviors.stopped() : this;
    }

    /** Sends ResultFound for window results not sent yet, in rank order. */
    private void emit() {
        // an exclusion lookup still running may yet exclude any of them
        if (!pendingExclusionLookups.isEmpty()) return;
        int passing = 0;
        for (Ranking.RankedCandidate rc : top) {
            Resolution r = resolved.get(rc.candidate().url());
            if (r == null) return; // an unresolved URL ahead: later ranks are not known yet
            if (!shown(rc.candidate().url(), r)) continue;
            if (passing >= need) return;
            if (passing >= request.offset() && r.snippet() != null && emitted.add(rc.candidate().url())) {
                if (firstResultNanos < 0) firstResultNanos = System.nanoTime();
                subscriber.tell(new ResultFound(result(rc, r), passing + 1));
            }
            passing++;
        }
    }

    private SearchResult result(Ranking.RankedCandidate rc, Resolution r) {
        UrlMetadata m = r.metadata();
        String date = m.lastModified() > 0
                ? Instant.ofEpochMilli(m.lastModified()).atOffset(ZoneOffset.UTC).toLocalDate().toString() : "";
        return new SearchResult(m.url(), m.urlHash().value(), m.title().isBlank() ? m.url() : m.title(), r.snippet(),
                round(rc.score()), m.host(), m.filetype(), m.language(), date, m.author(), m.size(), m.lastModified(),
                rc.candidate().cached(), rc.explanation(), rc.candidate().isExternal() ? rc.candidate().external().source()
                : indexSource.getOrDefault(rc.candidate().url(), "local"), r.verification());
    }

    private static double round(double v) {
        return Math.round(v * 10000) / 10000.0;
    }

    private void finish() {
        if (finished) return;
        finished = true;
        List<SearchResult> results = new ArrayList<>();
        Navigators nav = new Navigators(request.navigators(), request.query().highlightWords());
        int passing = 0;
        int rejected = 0;
        int examined = 0;
        for (Ranking.RankedCandidate rc : top) {
            Resolution r = resolved.get(rc.candidate().url());
            if (r == null) break;
            examined++;
            if (!shown(rc.candidate().url(), r)) {
                rejected++;
                continue;
            }
            if (passing >= request.offset() && passing < need && r.snippet() != null) {
                SearchResult sr = result(rc, r);
                results.add(sr);
                if (emitted.add(rc.candidate().url())) {
                    if (firstResultNanos < 0) firstResultNanos = System.nanoTime();
                    subscriber.tell(new ResultFound(sr, passing + 1));
                }
            }
            if (passing < NAV_SAMPLE) nav.add(r.metadata(), r.snippet());
            passing++;
        }
        long estimatedTotal = total - rejected;
        if (rejected > 0 && examined < total) {
            // extrapolate the rejection rate of the examined head to the rest
            estimatedTotal = Math.round(total * (double) (examined - rejected) / examined);
        }
        if (examined >= total) estimatedTotal = passing;
        progress();
        Map<String, List<Navigators.Entry>> navigators = nav.result();
        if (!request.navigators().isEmpty()) subscriber.tell(new NavigatorsFound(navigators));
        long now = System.nanoTime();
        subscriber.tell(new Done(request.query().raw(), Math.max(estimatedTotal, results.size()), results, navigators,
                new Timing(firstResultNanos < 0 ? -1 : (firstResultNanos - started) / 1_000_000,
                        (now - started) / 1_000_000),
                new Network(peersAsked, peersAnswered, messages, bytes), sourceReports(),
                request.navigators().isEmpty() ? 0 : Math.min(passing, NAV_SAMPLE)));
        cacheRemote();
        ranking.tell(Ranking.Stop.INSTANCE);
    }

    /** Keeps what remote peers returned in the local index, flagged CACHED with a TTL (DESIGN.md §5.6). */
    private void cacheRemote() {
        if (fromRemote.isEmpty() || context.cache() == null) return;
        long expires = context.clock().getAsLong() / 1000 + context.cacheTtl().toSeconds();
        List<Posting> postings = new ArrayList<>();
        for (Candidate c : fromRemote) {
            for (Posting p : c.postings()) {
                if (p.has(Posting.CACHED) && p.expiresAt() > 0) postings.add(p);
                else postings.add(p.asCached(p.holder(), expires));
            }
        }
        var rwi = context.cache();
        // a posting this peer holds for real (as crawler or DHT holder) must not become an expiring cached copy
        CompletableFuture.runAsync(() -> rwi.add(postings.stream()
                .filter(p -> rwi.get(p.word(), p.url()).map(x -> x.has(Posting.CACHED)).orElse(true)).toList(), false),
                context.blocking());
    }

    /** Blocking: reads metadata (and text where needed), checks filters, phrases and verification. */
    private Map<UrlHash, Resolution> resolve(List<UrlHash> urls, Set<UrlHash> needText, Map<UrlHash, Resolution> known,
                                             Map<UrlHash, ExternalHit> externals, Map<UrlHash, Candidate> postings) {
        Map<UrlHash, Resolution> out = new HashMap<>();
        var q = request.query();
        for (UrlHash u : urls) {
            ExternalHit hit = externals.get(u);
            if (hit != null) {
                out.put(u, resolveExternal(u, hit));
                continue;
            }
            Resolution before = known.get(u);
            UrlMetadata m = before != null ? before.metadata() : context.metadata().metadata(u).orElse(null);
            if (m == null || !filtersPass(m)) {
                out.put(u, new Resolution(m, false, null));
                continue;
            }
            boolean wantText = needText.contains(u) || !q.phrases().isEmpty() || !q.exclusions().isEmpty()
                    || !request.verify().equals("false");
            if (!wantText) {
                out.put(u, new Resolution(m, true, null));
                continue;
            }
            Optional<String> stored = context.metadata().text(u);
            if (request.verify().equals("cacheonly") && stored.isEmpty()) {
                out.put(u, new Resolution(m, false, null));
                continue;
            }
            String text = stored.orElse("");
            if (excluded(u, m, text)) {
                out.put(u, new Resolution(m, false, null));
                continue;
            }
            String verification = "";
            if (request.verify().equals("true") && needText.contains(u)) {
                // through the guarded stack: a refused address is never fetched and the result stays unverified
                PageVerifier.Outcome live = context.verifier().fetch(m.url());
                if (live instanceof PageVerifier.Fetched f) {
                    if (!PhraseMatcher.containsAll(f.text(), q.terms())) {
                        out.put(u, new Resolution(m, false, null));
                        continue;
                    }
                    text = f.text();
                    verification = "verified";
                } else if (live instanceof PageVerifier.Refused) {
                    verification = "unverified";
                } else {
                    out.put(u, new Resolution(m, false, null));
                    continue;
                }
            }
            String searchable = m.title() + " \n " + String.join(" \n ", m.headings()) + " \n " + m.description()
                    + " \n " + text;
            boolean phrasesOk = true;
            Candidate c = postings.get(u);
            for (List<String> phrase : q.phrases()) {
                if (PhraseMatcher.inText(searchable, phrase)) continue;
                // no text here (a DHT result whose page this peer never stored): its postings' positions decide
                if (text.isEmpty() && c != null && possibleByPositions(phrase, c)) continue;
                phrasesOk = false;
                break;
            }
            if (!phrasesOk) {
                out.put(u, new Resolution(m, false, null));
                continue;
            }
            String snippet = needText.contains(u) ? Snippets.build(text, q.highlightWords(), q.phrases(), m.description()) : null;
            out.put(u, new Resolution(m, true, snippet, false, verification));
        }
        return out;
    }

    /**
     * A federated hit is shown from its own fields: the query's filters and the search-scope blacklist apply; it has
     * no stored text, so verify=cacheonly drops it, and the source's snippet is used as it is.
     */
    private Resolution resolveExternal(UrlHash u, ExternalHit hit) {
        UrlMetadata m = new UrlMetadata(u, hit.url(), hit.title(), hit.snippet(), "", List.of(), "", "h", "", 0,
                hit.lastModified(), 0, 0, 0, 0, null, "", List.of());
        // an outside engine may ignore -word and "phrases": what it shows of the page (title, snippet, URL) must
        // not hold an excluded word and must hold each phrase
        String shownText = hit.title() + " \n " + hit.snippet();
        boolean phrasesOk = request.query().phrases().stream().allMatch(p -> PhraseMatcher.inText(shownText, p));
        boolean pass = filtersPass(m) && phrasesOk && !excluded(u, m, "") && context.metadata().shows(m)
                && !request.verify().equals("cacheonly");
        return new Resolution(m, pass, pass ? hit.snippet() : null, true,
                request.verify().equals("true") ? "unverified" : "");
    }

    /**
     * True if the page holds an excluded word: in its stored fields (title, description, keywords, headings,
     * author, URL) or text, or in a posting this peer holds for it. The local index excludes by its postings
     * already, but a DHT result's postings cover only the query's terms (the exclusion lookups cover the rest).
     */
    private boolean excluded(UrlHash u, UrlMetadata m, String text) {
        List<String> exclusions = request.query().exclusions();
        if (exclusions.isEmpty()) return false;
        var rwi = context.cache();
        if (rwi != null) {
            for (String e : exclusions) if (rwi.get(WordHash.of(e), u).isPresent()) return true;
        }
        String fields = m.title() + " \n " + m.description() + " \n " + String.join(" \n ", m.keywords()) + " \n "
                + String.join(" \n ", m.headings()) + " \n " + m.author() + " \n " + m.url() + " \n " + text;
        Set<String> words = new HashSet<>(Tokenizer.words(fields));
        for (String e : exclusions) if (words.contains(e)) return true;
        return false;
    }

    /** Whether the candidate's postings leave the phrase possible (PhraseMatcher over the phrase's words). */
    private boolean possibleByPositions(List<String> phrase, Candidate c) {
        if (c.isExternal()) return false;
        List<Posting> ps = new ArrayList<>();
        for (String w : phrase) {
            int i = request.query().terms().indexOf(w);
            ps.add(i < 0 || i >= c.postings().size() ? null : c.postings().get(i));
        }
        return PhraseMatcher.possibleByPositions(ps);
    }

    private boolean filtersPass(UrlMetadata m) {
        // a record stored before metadata was validated on receipt (a javascript: URL cached by an older peer)
        // never reaches a result, whatever format the result is rendered in
        if (UrlClaim.formProblem(m.url()).isPresent()) return false;
        var q = request.query();
        if (q.site().isPresent()) {
            String host = m.host().toLowerCase(Locale.ROOT);
            String site = q.site().get();
            if (!host.equals(site) && !host.endsWith("." + site)) return false;
        }
        if (q.filetype().isPresent() && !q.filetype().get().equals(m.filetype())) return false;
        if (q.inurl().isPresent() && !m.url().toLowerCase(Locale.ROOT).contains(q.inurl().get())) return false;
        if (q.author().isPresent() && !m.author().toLowerCase(Locale.ROOT).contains(q.author().get())) return false;
        if (q.language().isPresent() && !m.language().isEmpty() && !m.language().equals(q.language().get())) return false;
        return true;
    }
}
