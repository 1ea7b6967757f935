package org.peerdex.node.http;

import static org.apache.pekko.http.javadsl.server.Directives.completeOK;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.parameterMap;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathEnd;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.Directives.put;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.marshalling.sse.EventStreamMarshalling;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.sse.ServerSentEvent;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.javadsl.Source;
import org.peerdex.actors.search.Navigators;
import org.peerdex.actors.search.QueryCoordinator;
import org.peerdex.actors.search.SearchRequest;
import org.peerdex.actors.search.SearchResult;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.actors.search.ranking.Factor;
import org.peerdex.actors.search.ranking.Feedback;
import org.peerdex.actors.search.ranking.FeedbackStore;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.UrlHash;

/**
 * {@code GET /api/search} (JSON), {@code GET /api/search/stream} (Server-Sent Events: query, result, progress,
 * navigators, done), {@code GET/PUT /api/ranking}, {@code GET/POST /api/feedback}.
 */
public final class SearchRoutes {
    /** Reads request bodies into plain Java maps and lists (the shared mapper would make Scala maps). */
    static final ObjectMapper PLAIN = new ObjectMapper();
    private final SearchBackend backend;
    private final AdminGuard admin;

    public SearchRoutes(SearchBackend backend, AdminGuard admin) {
        this.backend = backend;
        this.admin = admin;
    }

    public Route route() {
        return concat(
                pathPrefix("search", () -> concat(
                        pathEnd(() -> get(() -> parameterMap(params -> {
                            SearchRequest r = request(backend.withDefaultResource(params), "q");
                            CompletionStage<QueryCoordinator.Done> done = backend.service().search(r);
                            return onSuccess(done, d -> Json.ok(response(d, r)));
                        }))),
                        path("stream", () -> get(() -> parameterMap(params -> {
                            SearchRequest r = request(backend.withDefaultResource(params), "q");
                            return completeOK(events(r), EventStreamMarshalling.toEventStream());
                        }))))),
                path("ranking", () -> concat(
                        get(() -> Json.ok(rankingJson(backend.profile()))),
                        put(() -> admin.admin(() -> entity(Jackson.unmarshaller(PLAIN, Map.class), body -> {
                            @SuppressWarnings("unchecked")
                            RankingProfile p = RankingProfile.fromJson((Map<String, ?>) body, backend.profile());
                            backend.setProfile(p);
                            return Json.ok(rankingJson(p));
                        }))))),
                path("feedback", () -> concat(
                        get(() -> Json.ok(feedbackList())),
                        post(() -> admin.admin(() -> entity(Jackson.unmarshaller(PLAIN, Map.class), body -> {
                            Object hash = body.get("urlHash");
                            if (!(hash instanceof String h) || !Base64Order.isHash(h, UrlHash.LENGTH)) {
                                return Json.error(StatusCodes.BAD_REQUEST, "urlHash must be a 12-character URL hash");
                            }
                            Feedback action = Feedback.parse(body.get("action") == null ? null
                                    : String.valueOf(body.get("action")));
                            FeedbackStore.Entry e = backend.feedback().record(new UrlHash(h), action);
                            return Json.ok(feedbackJson(h, e));
                        }))))));
    }

    /** Builds a request from query parameters; bad input throws IllegalArgumentException (HTTP 400). */
    static SearchRequest request(Map<String, String> p, String queryParam) {
        String q = p.get(queryParam);
        if (q == null) throw new IllegalArgumentException("missing query parameter '" + queryParam + "'");
        return new SearchRequest(QueryParser.parse(q), intParam(p, "count", 10), intParam(p, "offset", 0),
                p.get("resource"), p.get("verify"), Navigators.parse(p.getOrDefault("nav", "all")),
                Boolean.parseBoolean(p.getOrDefault("explain", "false")), p.get("contentdom"),
                SearchRequest.parseFederated(p.get("federated")));
    }

    static int intParam(Map<String, String> p, String name, int def) {
        String v = p.get(name);
        if (v == null || v.isBlank()) return def;
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter '" + name + "' must be an integer, not '" + v + "'");
        }
    }

    Source<ServerSentEvent, NotUsed> events(SearchRequest r) {
        // first the query as the peer read it (what to highlight), so streamed results are marked like final ones
        ServerSentEvent query = ServerSentEvent.create(Json.write(Map.of("query", r.query().raw(),
                "highlight", r.query().highlights())), "query");
        return Source.single(query).concat(backend.service().stream(r).map(e -> {
            if (e instanceof QueryCoordinator.ResultFound f) {
                Map<String, Object> m = resultJson(f.result());
                m.put("rank", f.rank());
                return ServerSentEvent.create(Json.write(m), "result");
            }
            if (e instanceof QueryCoordinator.Progress p) {
                return ServerSentEvent.create(Json.write(Map.of("peersAsked", p.peersAsked(),
                        "peersAnswered", p.peersAnswered(), "candidates", p.candidates())), "progress");
            }
            if (e instanceof QueryCoordinator.NavigatorsFound n) {
                return ServerSentEvent.create(Json.write(n.navigators()), "navigators");
            }
            QueryCoordinator.Done d = (QueryCoordinator.Done) e;
            return ServerSentEvent.create(Json.write(response(d, r)), "done");
        }));
    }

    static Map<String, Object> response(QueryCoordinator.Done d, SearchRequest r) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("query", d.query());
        out.put("total", d.total());
        out.put("offset", r.offset());
        out.put("count", r.count());
        // the words and phrases a page of results marks: function words only when the query has nothing else
        out.put("highlight", r.query().highlights());
        List<Map<String, Object>> results = new ArrayList<>();
        for (SearchResult sr : d.results()) results.add(resultJson(sr));
        out.put("results", results);
        out.put("navigators", d.navigators());
        // navigator counts cover the best navigatorsOver results, not every match when total is larger
        out.put("navigatorsOver", d.navigatorsOver());
        out.put("timing", Map.of("total", d.timing().total(), "firstResult", d.timing().firstResult()));
        Map<String, Object> network = new LinkedHashMap<>(Map.of("peersAsked", d.network().peersAsked(), "peersAnswered",
                d.network().peersAnswered(), "messages", d.network().messages(), "bytes", d.network().bytes()));
        network.put("sources", sourcesJson(d.sources()));
        out.put("network", network);
        return out;
    }

    /** How each source fared: name, kind, status (answered|timedOut|failed), ms, results, error. */
    static List<Map<String, Object>> sourcesJson(List<QueryCoordinator.SourceReport> reports) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (QueryCoordinator.SourceReport s : reports) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", s.name());
            m.put("kind", s.kind());
            m.put("status", s.status());
            m.put("ms", s.millis());
            m.put("results", s.results());
            if (!s.error().isEmpty()) m.put("error", s.error());
            out.add(m);
        }
        return out;
    }

    static Map<String, Object> resultJson(SearchResult sr) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("url", sr.url());
        m.put("urlHash", sr.urlHash());
        m.put("title", sr.title());
        m.put("snippet", sr.snippet());
        m.put("score", sr.score());
        m.put("host", sr.host());
        m.put("filetype", sr.filetype());
        m.put("language", sr.language());
        m.put("date", sr.date());
        m.put("author", sr.author());
        m.put("size", sr.size());
        m.put("cached", sr.cached());
        m.put("source", sr.source());
        if (!sr.verification().isEmpty()) m.put("verification", sr.verification());
        if (sr.explain() != null) {
            Map<String, Object> ex = new LinkedHashMap<>();
            ex.put("score", sr.explain().score());
            ex.put("factors", sr.explain().factors());
            m.put("explain", ex);
        }
        return m;
    }

    static Map<String, Object> rankingJson(RankingProfile p) {
        Map<String, Object> out = new LinkedHashMap<>(p.toJson());
        List<Map<String, Object>> factors = new ArrayList<>();
        for (Factor f : Factor.values()) {
            factors.add(Map.of("key", f.key(), "description", f.description(), "post", f.post()));
        }
        out.put("factors", factors);
        return out;
    }

    private Map<String, Object> feedbackList() {
        List<Map<String, Object>> list = new ArrayList<>();
        backend.feedback().all().forEach((u, e) -> list.add(feedbackJson(u.value(), e)));
        return Map.of("feedback", list);
    }

    private static Map<String, Object> feedbackJson(String hash, FeedbackStore.Entry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("urlHash", hash);
        m.put("promotes", e.promotes());
        m.put("demotes", e.demotes());
        m.put("bookmarked", e.bookmarked());
        m.put("value", e.value());
        return m;
    }

    static int parseLimit(String v) {
        int n = intParam(Map.of("limit", v), "limit", 100);
        if (n < 1 || n > 10_000) throw new IllegalArgumentException("limit must be in 1..10000");
        return n;
    }

    static Optional<String> nonBlank(String s) {
        return s == null || s.isBlank() ? Optional.empty() : Optional.of(s);
    }
}
