package org.peerdex.actors.search.federation;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorRef;
import org.peerdex.actors.search.Candidate;
import org.peerdex.actors.search.CandidateSource;
import org.peerdex.actors.search.ExternalHit;
import org.peerdex.actors.search.SearchRequest;
import org.peerdex.protocol.hash.UrlHash;

/**
 * An outside search engine as a candidate source: one non-blocking HTTP GET per query (java.net.http), bounded by
 * the source's timeout, answer size, result count and concurrent requests; the answer is parsed on the search
 * executor into external candidates. Whatever goes wrong ends in a {@link CandidateSource.SourceFailed} or
 * {@link CandidateSource.SourceTimedOut} within the timeout, so a bad source never stalls a search.
 */
public final class FederatedSource implements CandidateSource {
    /** Sent with every request; a Peerdex peer does not federate a request that carries it (no loops). */
    public static final String HEADER = "X-Peerdex-Federation";
    private final FederatedSourceConfig config;
    private final HttpClient http;
    private final Executor blocking;
    private final Semaphore slots;

    public FederatedSource(FederatedSourceConfig config, HttpClient http, Executor blocking) {
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
        HttpRequest req;
        try {
            req = HttpRequest.newBuilder(config.uri(request.query().raw(), request.offset() + request.count()))
                    .timeout(config.timeout()).header("User-Agent", "Peerdex federation")
                    .header("Accept", accept()).header(HEADER, "1").GET().build();
        } catch (IllegalArgumentException e) {
            slots.release();
            replyTo.tell(new SourceFailed(name(), "bad request URL: " + e.getMessage()));
            return;
        }
        CompletableFuture<HttpResponse<byte[]>> exchange = http.sendAsync(req, CappedBody.handler(config.maxBytes()));
        // the bound on a copy, so that a timeout can still cancel (and so abort) the exchange itself
        exchange.copy().orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .thenApplyAsync(this::candidates, blocking)
                .whenComplete((found, error) -> {
                    slots.release();
                    if (error == null) {
                        replyTo.tell(new CandidatesFound(name(), found, null, true));
                        return;
                    }
                    Throwable cause = error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error;
                    if (cause instanceof TimeoutException || cause instanceof HttpTimeoutException) {
                        exchange.cancel(true); // stop reading a source that is still talking
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

    /** Blocking: checks the status, parses the body, turns hits into candidates in the source's order. */
    List<Candidate> candidates(HttpResponse<byte[]> resp) {
        if (resp.statusCode() / 100 != 2) throw new IllegalArgumentException("HTTP " + resp.statusCode());
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
            if (!seen.add(u)) continue;
            rank++;
            out.add(Candidate.external(u, new ExternalHit(name(), h.url(), h.title(), h.snippet(), rank,
                    config.weight(), h.lastModified())));
        }
        return out;
    }

    private static String describe(Throwable t) {
        if (t instanceof CappedBody.TooLarge || t instanceof IllegalArgumentException) return t.getMessage();
        if (t instanceof java.net.ConnectException) return "connection refused";
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
