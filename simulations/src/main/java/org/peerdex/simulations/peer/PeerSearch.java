package org.peerdex.simulations.peer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorSystem;
import org.peerdex.actors.Dispatchers;
import org.peerdex.actors.dht.DhtEnvironment;
import org.peerdex.actors.search.BlacklistFilter;
import org.peerdex.actors.search.CandidateSource;
import org.peerdex.actors.search.LocalIndexSource;
import org.peerdex.actors.search.MetadataSource;
import org.peerdex.actors.search.PageVerifier;
import org.peerdex.actors.search.SearchContext;
import org.peerdex.actors.search.ranking.FeedbackStore;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.storage.PeerStorage;

/**
 * The search context of one virtual peer, wired as a node's SearchBackend wires it: the peer's own index as
 * {@link LocalIndexSource}, the given remote sources (the DHT), metadata through the blacklist, the default
 * ranking profile, no link rank, the peer's feedback store, the search dispatcher (simulated), a 10-second
 * source timeout, and remote answers cached in the peer's own index for a day of simulated time.
 */
public final class PeerSearch {
    /** As a node's SearchBackend: how long the coordinator waits for its sources. */
    public static final Duration SOURCE_TIMEOUT = Duration.ofSeconds(10);

    private PeerSearch() {}

    public static SearchContext context(ActorSystem<?> system, PeerStorage storage, List<CandidateSource> remote) {
        Executor blocking = Dispatchers.search(system);
        List<CandidateSource> sources = List.copyOf(remote);
        // simulated time, the clock the peer's DHT search gives its cached copies their expiry by
        DhtEnvironment env = DhtEnvironment.get(system);
        return new SearchContext(new LocalIndexSource(storage, blocking, LocalIndexSource.MAX_CANDIDATES, env::millis),
                () -> sources, new BlacklistFilter(MetadataSource.of(storage.metadata()), storage.blacklist()),
                RankingProfile::defaults, () -> LinkRank.NONE, new FeedbackStore(storage.store()), blocking,
                SOURCE_TIMEOUT, storage.rwi(), Duration.ofDays(1), "", PageVerifier.NONE, env::millis);
    }
}
