package org.peerdex.node.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.peerdex.actors.Dispatchers;
import org.peerdex.actors.crawl.GuardedHttp;
import org.peerdex.actors.search.CandidateSource;
import org.peerdex.actors.search.LocalIndexSource;
import org.peerdex.actors.search.MetadataSource;
import org.peerdex.actors.search.SearchContext;
import org.peerdex.actors.search.SearchService;
import org.peerdex.actors.search.Suggestions;
import org.peerdex.actors.search.ranking.FeedbackStore;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.node.NodeContext;
import org.peerdex.node.settings.SettingsBackend;

/**
 * The search side of a running peer, one per peer (built by PeerNode): the {@link SearchService}, the stored ranking
 * profile, feedback, the pluggable link rank, remote candidate sources (added by the network layer) and the
 * suggestion snapshot.
 */
public final class SearchBackend {
    static final String PROFILE_SETTING = "ranking.profile";

    private final NodeContext ctx;
    private final SettingsBackend settings;
    private final Executor blocking;
    private final Executor io;
    private final SearchService service;
    private final FeedbackStore feedback;
    private final AtomicReference<RankingProfile> profile = new AtomicReference<>();
    private final AtomicReference<LinkRank> linkRank = new AtomicReference<>(LinkRank.NONE);
    private final List<CandidateSource> remoteSources = new CopyOnWriteArrayList<>();
    private volatile Suggestions suggestions;
    private volatile long suggestionsBuiltAt;
    private volatile long suggestionsDocs = -1;
    private volatile long suggestionsSettings = -1;
    private final AtomicReference<CompletableFuture<Suggestions>> rebuilding = new AtomicReference<>();
    private final int suggestionTitles;

    /**
     * @param verifierHttp the crawler's guarded HTTP stack, which verify=true re-reads pages through (the same
     *                     address policy as crawling); null: no verification
     * @param settings     the console's settings (the suggestion dictionary)
     */
    public SearchBackend(NodeContext ctx, GuardedHttp verifierHttp, SettingsBackend settings) {
        this.ctx = ctx;
        this.settings = settings;
        this.blocking = Dispatchers.search(ctx.system());
        this.io = Dispatchers.index(ctx.system());
        this.feedback = new FeedbackStore(ctx.storage().store());
        this.profile.set(loadProfile());
        SearchContext sc = new SearchContext(new LocalIndexSource(ctx.storage(), blocking),
                () -> List.copyOf(remoteSources), new org.peerdex.actors.search.BlacklistFilter(
                MetadataSource.of(ctx.storage().metadata()), ctx.storage().blacklist()), profile::get,
                linkRank::get, feedback, blocking, Duration.ofSeconds(10), ctx.storage().rwi(), Duration.ofDays(1), "");
        // verify=true re-reads pages through the crawler's guarded stack (same address policy as crawling)
        if (verifierHttp != null) sc = sc.withVerifier(new org.peerdex.actors.search.PageVerifier(verifierHttp));
        this.service = new SearchService(ctx.system(), sc);
        this.suggestionTitles = ctx.config().raw().getInt("peerdex.scan-limits.suggestion-titles");
    }

    public SearchService service() {
        return service;
    }

    /** The search dispatcher: blocking reads made for a search (lookups, metadata, suggestions, Solr scans). */
    public Executor blocking() {
        return blocking;
    }

    /** The index dispatcher: writes and admin reads of the index and settings, kept off the search threads. */
    public Executor io() {
        return io;
    }

    public FeedbackStore feedback() {
        return feedback;
    }

    public RankingProfile profile() {
        return profile.get();
    }

    /** Stores a new ranking profile; later queries use it. */
    public void setProfile(RankingProfile p) {
        ctx.storage().putSetting(PROFILE_SETTING, Json.write(p.toJson()));
        profile.set(p);
    }

    /** Plugs in a link rank (e.g. PageRank over the crawl's host graph); {@link LinkRank#NONE} by default. */
    public void setLinkRank(LinkRank rank) {
        linkRank.set(rank == null ? LinkRank.NONE : rank);
    }

    private volatile java.util.function.BooleanSupplier peersKnown = () -> false;

    /** The network layer tells whether other peers are known: resource=global is then the default. */
    public void setPeersKnown(java.util.function.BooleanSupplier known) {
        peersKnown = known;
    }

    /**
     * The parameters with resource=global added when none was given and other peers are known or a federated
     * source is enabled (a thin index is what federation is for).
     */
    public Map<String, String> withDefaultResource(Map<String, String> params) {
        if (params.containsKey("resource")) return params;
        if (!peersKnown.getAsBoolean() && remoteSources.stream().noneMatch(CandidateSource::federated)) return params;
        Map<String, String> out = new java.util.HashMap<>(params);
        out.put("resource", "global");
        return out;
    }

    /** Sources asked for resource=global; the network layer registers its remote sources here. */
    public List<CandidateSource> remoteSources() {
        return remoteSources;
    }

    @SuppressWarnings("unchecked")
    private RankingProfile loadProfile() {
        return ctx.storage().setting(PROFILE_SETTING).map(s -> {
            try {
                return RankingProfile.fromJson(Json.MAPPER.readValue(s, Map.class), RankingProfile.defaults());
            } catch (Exception e) {
                return RankingProfile.defaults();
            }
        }).orElse(RankingProfile.defaults());
    }

    /**
     * Completions from a snapshot of the titles (at most {@code peerdex.scan-limits.suggestion-titles}, read on the
     * blocking dispatcher) and the settings' word list, rebuilt when the index has grown and a minute has passed,
     * or at once when the suggestion settings changed. Requests that arrive during a rebuild share it.
     */
    public CompletionStage<Suggestions> suggestions() {
        long docs = ctx.storage().stats().documents();
        long now = System.currentTimeMillis();
        long version = settings.version();
        Suggestions current = suggestions;
        if (current != null && version == suggestionsSettings
                && (docs == suggestionsDocs || (current.size() > 0 && now - suggestionsBuiltAt <= 60_000))) {
            return CompletableFuture.completedFuture(current);
        }
        CompletableFuture<Suggestions> mine = new CompletableFuture<>();
        CompletableFuture<Suggestions> running = rebuilding.compareAndExchange(null, mine);
        if (running != null) return running;
        CompletableFuture.supplyAsync(() -> {
            var dictionary = settings.current().suggestions();
            List<String> titles = new ArrayList<>();
            if (dictionary.fromIndex()) {
                ctx.storage().metadata().scan(suggestionTitles, m -> titles.add(m.title()));
            }
            Suggestions built = new Suggestions(titles, dictionary.minFrequency(), dictionary.words());
            suggestions = built;
            suggestionsBuiltAt = now;
            suggestionsDocs = docs;
            suggestionsSettings = version;
            return built;
        }, blocking).whenComplete((built, failure) -> {
            rebuilding.set(null);
            if (failure != null) mine.completeExceptionally(failure);
            else mine.complete(built);
        });
        return mine;
    }
}
