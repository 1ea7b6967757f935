package org.peerdex.actors.search;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.peerdex.actors.search.ranking.FeedbackStore;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * What a query coordinator needs from its peer: candidate sources (local, and remote for resource=global),
 * metadata, ranking inputs, the executor of blocking search work (the search dispatcher), and where to cache remote answers.
 *
 * @param remoteSources     sources used for resource=global (empty on a peer without a network yet)
 * @param cache             where remote postings are kept as CACHED with {@code cacheTtl}; null = no caching
 * @param preferredLanguage the peer's language for the LANGUAGE factor ("" = none)
 * @param verifier          re-reads pages for verify=true through the peer's guarded HTTP stack
 * @param clock             now in milliseconds since the epoch, what cached copies expire by (the wall clock; a
 *                          simulation's virtual peers: simulated time, as their DHT's own cache uses)
 */
public record SearchContext(CandidateSource localSource, Supplier<List<CandidateSource>> remoteSources,
                            MetadataSource metadata, Supplier<RankingProfile> profile, Supplier<LinkRank> linkRank,
                            FeedbackStore feedback, Executor blocking, Duration sourceTimeout,
                            ReverseWordIndex cache, Duration cacheTtl, String preferredLanguage,
                            PageVerifier verifier, LongSupplier clock) {
    public SearchContext(CandidateSource localSource, Supplier<List<CandidateSource>> remoteSources,
                         MetadataSource metadata, Supplier<RankingProfile> profile, Supplier<LinkRank> linkRank,
                         FeedbackStore feedback, Executor blocking, Duration sourceTimeout,
                         ReverseWordIndex cache, Duration cacheTtl, String preferredLanguage, PageVerifier verifier) {
        this(localSource, remoteSources, metadata, profile, linkRank, feedback, blocking, sourceTimeout, cache,
                cacheTtl, preferredLanguage, verifier, System::currentTimeMillis);
    }

    /** A context that verifies nothing by fetching (verify=true leaves results unverified). */
    public SearchContext(CandidateSource localSource, Supplier<List<CandidateSource>> remoteSources,
                         MetadataSource metadata, Supplier<RankingProfile> profile, Supplier<LinkRank> linkRank,
                         FeedbackStore feedback, Executor blocking, Duration sourceTimeout,
                         ReverseWordIndex cache, Duration cacheTtl, String preferredLanguage) {
        this(localSource, remoteSources, metadata, profile, linkRank, feedback, blocking, sourceTimeout, cache,
                cacheTtl, preferredLanguage, PageVerifier.NONE);
    }

    /** The same context with another verifier. */
    public SearchContext withVerifier(PageVerifier v) {
        return new SearchContext(localSource, remoteSources, metadata, profile, linkRank, feedback, blocking,
                sourceTimeout, cache, cacheTtl, preferredLanguage, v == null ? PageVerifier.NONE : v, clock);
    }

    /** The local index always; remote peers for resource=global; federated sources when the request federates. */
    public List<CandidateSource> sources(SearchRequest r) {
        boolean global = r.resource().equals("global");
        boolean federates = r.federates();
        if (!global && !federates) return List.of(localSource);
        List<CandidateSource> out = new ArrayList<>();
        out.add(localSource);
        for (CandidateSource s : remoteSources.get()) if (s.federated() ? federates : global) out.add(s);
        return out;
    }
}
