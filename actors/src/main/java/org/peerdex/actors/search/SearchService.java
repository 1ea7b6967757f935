package org.peerdex.actors.search;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.typed.javadsl.ActorSource;

/**
 * The entry point for callers outside the actor world (HTTP routes, benchmarks): starts one
 * {@link QueryCoordinator} per query and hands back its final answer or its stream of events.
 */
public final class SearchService {
    private final ActorSystem<?> system;
    private final SearchContext context;
    /** Shared by every service of the JVM: actor names stay unique when several services share a system. */
    private static final AtomicLong ids = new AtomicLong();
    private final org.peerdex.actors.crawl.RateMeter queries = new org.peerdex.actors.crawl.RateMeter();

    public SearchService(ActorSystem<?> system, SearchContext context) {
        this.system = system;
        this.context = context;
    }

    public SearchContext context() {
        return context;
    }

    public ActorSystem<?> system() {
        return system;
    }

    /** Queries started in the last minute (searches and streams). */
    public double queriesPerMinute() {
        return queries.perMinute(System.currentTimeMillis());
    }

    /** Queries started in each of the last 60 minutes of the clock, oldest first (the current one last). */
    public long[] queriesLastHour() {
        return queries.lastHour(System.currentTimeMillis());
    }

    /** Runs a query to its end. */
    public CompletionStage<QueryCoordinator.Done> search(SearchRequest request) {
        CompletableFuture<QueryCoordinator.Done> done = new CompletableFuture<>();
        queries.record(System.currentTimeMillis(), 1);
        long id = ids.incrementAndGet();
        ActorRef<QueryCoordinator.Event> collector = system.systemActorOf(
                Behaviors.<QueryCoordinator.Event>receiveMessage(e -> {
                    if (e instanceof QueryCoordinator.Done d) {
                        done.complete(d);
                        return Behaviors.stopped();
                    }
                    return Behaviors.same();
                }), "search-result-" + id, Props.empty());
        system.systemActorOf(QueryCoordinator.create(request, context, collector), "query-" + id, Props.empty());
        return done;
    }

    /** Runs a query and streams its events; the stream completes after {@link QueryCoordinator.Done}. */
    public Source<QueryCoordinator.Event, NotUsed> stream(SearchRequest request) {
        Source<QueryCoordinator.Event, ActorRef<QueryCoordinator.Event>> source = ActorSource.actorRef(
                e -> false,
                e -> java.util.Optional.empty(),
                1024, OverflowStrategy.dropHead());
        return source
                .takeWhile(e -> !(e instanceof QueryCoordinator.Done), true)
                .mapMaterializedValue(ref -> {
                    queries.record(System.currentTimeMillis(), 1);
                    long id = ids.incrementAndGet();
                    system.systemActorOf(QueryCoordinator.create(request, context, ref), "query-" + id, Props.empty());
                    return NotUsed.getInstance();
                });
    }
}
