package org.peerdex.node.http;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.actors.search.SearchContext;
import org.peerdex.actors.search.SearchRequest;
import org.peerdex.actors.search.SearchService;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.actors.search.ranking.RankingProfile;

import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;

/**
 * {@code POST /api/ranking/preview} (admin): {@code {"q": ..., "profile": {"coefficients": {...}}, "count": 10}}
 * answers the local ranking of the query under that profile, unsaved, each result with its score by factor. Coefficients
 * left out are the active profile's; the active profile is not touched.
 */
public final class RankingPreviewRoutes {
    private final SearchBackend backend;
    private final AdminGuard admin;

    public RankingPreviewRoutes(SearchBackend backend, AdminGuard admin) {
        this.backend = backend;
        this.admin = admin;
    }

    public Route route() {
        return pathPrefix("ranking", () -> path("preview", () -> post(() -> admin.admin(() ->
                entity(Jackson.unmarshaller(SearchRoutes.PLAIN, Map.class), body -> {
                    Object q = body.get("q");
                    if (!(q instanceof String query) || query.isBlank()) {
                        throw new IllegalArgumentException("a preview needs a query 'q'");
                    }
                    Object p = body.get("profile");
                    if (p != null && !(p instanceof Map)) throw new IllegalArgumentException("profile must be an object");
                    @SuppressWarnings("unchecked")
                    RankingProfile profile = p == null ? backend.profile()
                            : RankingProfile.fromJson((Map<String, ?>) p, backend.profile());
                    Object c = body.getOrDefault("count", 10);
                    if (!(c instanceof Integer count)) throw new IllegalArgumentException("count must be a whole number");
                    SearchRequest r = new SearchRequest(QueryParser.parse(query), count, 0, "local", "false", Set.of(),
                            true, null);
                    return onSuccess(preview(profile).search(r), d -> {
                        Map<String, Object> out = SearchRoutes.response(d, r);
                        out.put("profile", profile.toJson());
                        out.remove("navigators");
                        return Json.ok(out);
                    });
                })))));
    }

    /** A search service like the peer's own but ranking with the given profile, over the local index only. */
    private SearchService preview(RankingProfile profile) {
        SearchContext sc = backend.service().context();
        return new SearchService(backend.service().system(), new SearchContext(sc.localSource(), List::of,
                sc.metadata(), () -> profile, sc.linkRank(), sc.feedback(), sc.blocking(), sc.sourceTimeout(), null,
                sc.cacheTtl(), sc.preferredLanguage()));
    }
}
