package org.peerdex.node.http;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.put;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.Query;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.japi.Pair;
import org.peerdex.actors.search.federation.FederatedSource;
import org.peerdex.actors.search.federation.FederatedSourceConfig;
import org.peerdex.node.federation.FederationBackend;

/** {@code GET/PUT /api/federation} (admin): the federated sources, {@code {"sources": [...]}} (docs/federation.md). */
public final class FederationRoutes {
    private final FederationBackend federation;
    private final AdminGuard admin;
    private final Executor blocking;

    public FederationRoutes(FederationBackend federation, AdminGuard admin, Executor blocking) {
        this.federation = federation;
        this.admin = admin;
        this.blocking = blocking;
    }

    public Route route() {
        return path("federation", () -> admin.admin(() -> concat(
                get(() -> Json.ok(json(federation.sources()))),
                put(() -> entity(Jackson.unmarshaller(SearchRoutes.PLAIN, Map.class), body -> {
                    if (!(body.get("sources") instanceof List<?> items)) {
                        throw new IllegalArgumentException("body must be {\"sources\": [...]}");
                    }
                    return onSuccess(CompletableFuture.supplyAsync(() -> federation.replace(items), blocking),
                            list -> Json.ok(json(list)));
                })))));
    }

    private Map<String, Object> json(List<FederatedSourceConfig> list) {
        List<Map<String, Object>> items = new ArrayList<>();
        for (FederatedSourceConfig c : list) items.add(c.toMap());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("sources", items);
        out.put("origin", federation.origin());
        return out;
    }

    /**
     * A request another peer sent while federating (it carries {@link FederatedSource#HEADER}) is answered without
     * federating again: {@code federated=false} is set, so two peers that federate each other do not loop.
     */
    static HttpRequest noFederationForFederated(HttpRequest req) {
        if (req.getHeader(FederatedSource.HEADER).isEmpty()) return req;
        List<Pair<String, String>> params = new ArrayList<>();
        for (Pair<String, String> p : req.getUri().query().toList()) {
            if (!p.first().equals("federated")) params.add(p);
        }
        params.add(Pair.create("federated", "false"));
        @SuppressWarnings("unchecked")
        Pair<String, String>[] arr = params.toArray(new Pair[0]);
        return req.withUri(req.getUri().query(Query.create(arr)));
    }
}
