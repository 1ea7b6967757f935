package org.peerdex.node.http;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.delete;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathEndOrSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.peerdex.actors.crawl.CrawlManager;
import org.peerdex.actors.crawl.CrawlProfile;
import org.peerdex.actors.crawl.CrawlProgress;
import org.peerdex.node.crawl.CrawlBackend;
import org.peerdex.node.settings.SettingsBackend;

/**
 * Crawls over HTTP (admin only, DESIGN §6): {@code POST /api/crawl} (JSON profile → {@code {"id": ...}}),
 * {@code GET /api/crawl} ({@code {"crawls": [...]}}), {@code GET /api/crawl/{id}} (progress),
 * {@code DELETE /api/crawl/{id}} (stop; answers the final progress).
 */
public final class CrawlRoutes {
    private final CrawlBackend backend;
    private final AdminGuard admin;
    private final Executor blocking;
    private final SettingsBackend settings;

    public CrawlRoutes(CrawlBackend backend, AdminGuard admin, Executor blocking) {
        this(backend, admin, blocking, null);
    }

    /** @param settings whose crawl defaults fill what a profile leaves out (null: the profile's own defaults) */
    public CrawlRoutes(CrawlBackend backend, AdminGuard admin, Executor blocking,
                       SettingsBackend settings) {
        this.backend = backend;
        this.admin = admin;
        this.blocking = blocking;
        this.settings = settings;
    }

    public Route route() {
        return pathPrefix("crawl", () -> admin.admin(() -> concat(
                pathEndOrSingleSlash(() -> concat(
                        post(() -> entity(Unmarshaller.entityToString(), this::start)),
                        get(() -> onSuccess(backend.list(), list -> Json.ok(Map.of("crawls", list)))))),
                path(segment(), id -> concat(
                        get(() -> onSuccess(backend.progress(id), p -> found(id, p))),
                        delete(() -> onSuccess(backend.stop(id), p -> found(id, p))))))));
    }

    private static Route found(String id, Optional<CrawlProgress> p) {
        return p.map(Json::ok).orElseGet(() -> Json.error(StatusCodes.NOT_FOUND, "no crawl with id '" + id + "'"));
    }

    private Route start(String body) {
        CrawlProfile profile;
        try {
            if (body.isBlank()) throw new IllegalArgumentException("a crawl needs a JSON profile with a 'url'");
            if (settings != null && body.strip().startsWith("{")) {
                @SuppressWarnings("unchecked")
                Map<String, Object> raw = SearchRoutes.PLAIN.readValue(body, Map.class);
                body = Json.write(settings.current().withCrawlDefaults(raw));
            }
            profile = Json.MAPPER.readValue(body, CrawlProfile.class);
            if (profile == null) throw new IllegalArgumentException("a crawl needs a JSON profile with a 'url'");
        } catch (JsonProcessingException e) {
            Throwable c = e;
            while (c.getCause() != null && !(c instanceof IllegalArgumentException)) c = c.getCause();
            return Json.error(StatusCodes.BAD_REQUEST, c instanceof IllegalArgumentException ? c.getMessage()
                    : "the crawl profile is not valid JSON: " + e.getOriginalMessage());
        } catch (IllegalArgumentException e) {
            return Json.error(StatusCodes.BAD_REQUEST, e.getMessage());
        }
        CrawlProfile p = profile;
        CompletionStage<Object> started = CompletableFuture.supplyAsync(() -> backend.refusal(p), blocking)
                .thenCompose(refused -> refused.isPresent()
                        ? CompletableFuture.completedFuture((Object) refused.get())
                        : backend.start(p).thenApply(s -> (Object) s));
        return onSuccess(started, r -> {
            if (r instanceof String refusal) return Json.error(StatusCodes.BAD_REQUEST, refusal);
            var s = (CrawlManager.Started) r;
            if (s.error() != null) {
                return Json.error(s.error().contains("disk is full") ? StatusCodes.INSUFFICIENT_STORAGE
                        : StatusCodes.SERVICE_UNAVAILABLE, "the crawl could not be recorded: " + s.error());
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("id", s.id());
            return Json.ok(out);
        });
    }
}
