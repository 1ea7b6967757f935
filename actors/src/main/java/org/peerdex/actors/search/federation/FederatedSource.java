package org.peerdex.actors.search.federation;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import org.apache.pekko.actor.typed.ActorRef;
import org.peerdex.actors.crawl.GuardedHttp;
import org.peerdex.actors.search.Candidate;
import org.peerdex.actors.search.CandidateSource;
import org.peerdex.actors.search.ExternalHit;
import org.peerdex.actors.search.SearchRequest;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.url.UrlClaim;

/**
 * An outside search engine as a candidate source: one HTTP GET per query over the peer's {@link GuardedHttp} stack
 * (run on the blocking executor), bounded by the source's timeout (connect, silence and in all), answer size,
 * result count and concurrent requests; the answer is parsed into external candidates. Whatever goes wrong ends in a {@link CandidateSource.SourceFailed} or
 * {@link CandidateSource.SourceTimedOut} within the timeout, so a bad source never stalls a search.
 */
public final class FederatedSource implements CandidateSource {
    /** Sent with every request; a Peerdex peer does not federate a request that carries it (no loops). */
    public static final String HEADER = "X-Peerdex-Federation";
    private final FederatedSourceConfig config;
    private final GuardedHttp http;
    private final Executor blocking;
    private final Semaphore slots;

    /** @param http the federation stack: its guard lets the configured sources' hosts through, and only those */
    public FederatedSource(FederatedSourceConfig config, GuardedHttp http, Executor blocking) {
        this.config = config;
        this.http = http;
        this.blocking = blocking;
        this.slots = new Semaphore(config.maxConcurrent());
    }

    public FederatedSourceConfig config() {
        return config;
    }

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public boolean remote() {
        return false; // not a peer: nothing it returns is cached in the index
    }

    @Override
    public boolean federated() {
        return true;
    }

    @Override
    public String kind() {
        return config.kind().key();
    }

    @Override
    public void start(SearchRequest request, ActorRef<Answer> replyTo) {
        if (!slots.tryAcquire()) {
            replyTo.tell(new SourceFailed(name(), "busy: " + config.maxConcurrent() + " requests already running"));
            return;
        }
        long timeoutMs = config.timeout().toMillis();
        String url;
        try {
            url = config.uri(request.query().raw(), request.offset() + request.count()).toString();
        } catch (IllegalArgumentException e) {
            slots.release();
            replyTo.tell(new SourceFailed(name(), "bad request URL: " + e.getMessage()));
            return;
        }
        GuardedHttp.Limits limits = new GuardedHttp.Limits(timeoutMs, timeoutMs, timeoutMs, config.maxBytes(), 5);
        Map<String, String> headers = Map.of("User-Agent", "Peerdex federation", "Accept", accept(), HEADER, "1");
        CompletableFuture<List<Candidate>> answer;
        try {
            answer = CompletableFuture.supplyAsync(() -> {
                try {
                    return candidates(http.get(url, limits, headers));
                } catch (GuardedHttp.FetchException e) {
                    throw new CompletionException(e);
                }
            }, blocking);
        } catch (RejectedExecutionException e) {
            slots.release();
            replyTo.tell(new SourceFailed(name(), "busy: " + e.getMessage()));
            return;
        }
        answer.whenComplete((found, error) -> {
            slots.release();
            if (error == null) {
                replyTo.tell(new CandidatesFound(name(), found, null, true));
                return;
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            if (cause instanceof GuardedHttp.FetchException f && f.kind().equals("timeout")) {
                replyTo.tell(new SourceTimedOut(name(), timeoutMs));
            } else {
                replyTo.tell(new SourceFailed(name(), describe(cause)));
            }
        });
    }

    private String accept() {
        return config.kind() == FederatedSourceConfig.Kind.OPENSEARCH_RSS
                ? "application/rss+xml, application/xml;q=0.9, */*;q=0.1"
                : "application/json, */*;q=0.1";
    }

    /** Blocking: checks the status and size, parses the body, turns hits into candidates in the source's order. */
    List<Candidate> candidates(GuardedHttp.Response resp) {
        if (resp.status() / 100 != 2) throw new IllegalArgumentException("HTTP " + resp.status());
        if (resp.truncated()) throw new IllegalArgumentException("answer larger than " + config.maxBytes() + " bytes");
        List<ResultParsers.Hit> hits = ResultParsers.parse(config.kind(), resp.body(), config.maxResults());
        List<Candidate> out = new ArrayList<>(hits.size());
        Set<UrlHash> seen = new HashSet<>();
        int rank = 0;
        for (ResultParsers.Hit h : hits) {
            UrlHash u;
            try {
                u = UrlHash.of(h.url());
            } catch (RuntimeException e) {
                continue; // a URL the hash cannot read is no result
            }
            // the same check as metadata from other peers: only an http(s) URL of its hash becomes a link
            if (UrlClaim.problem(h.url(), u).isPresent()) continue;
            if (!seen.add(u)) continue;
            rank++;
            out.add(Candidate.external(u, new ExternalHit(name(), h.url(), h.title(), h.snippet(), rank,
                    config.weight(), h.lastModified())));
        }
        return out;
    }

    private static String describe(Throwable t) {
        if (t instanceof IllegalArgumentException) return t.getMessage();
        if (t instanceof GuardedHttp.FetchException f) return f.kind().equals("connect") ? "connection refused"
                : f.kind() + ": " + f.getMessage();
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
