package org.peerdex.node.http;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequest;
import static org.apache.pekko.http.javadsl.server.Directives.handleExceptions;
import static org.apache.pekko.http.javadsl.server.Directives.handleRejections;
import static org.apache.pekko.http.javadsl.server.Directives.mapResponse;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.withRequestTimeoutResponse;

import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Directives;
import org.apache.pekko.http.javadsl.server.ExceptionHandler;
import org.apache.pekko.http.javadsl.server.MalformedQueryParamRejection;
import org.apache.pekko.http.javadsl.server.MalformedRequestContentRejection;
import org.apache.pekko.http.javadsl.server.MethodRejection;
import org.apache.pekko.http.javadsl.server.MissingQueryParamRejection;
import org.apache.pekko.http.javadsl.server.RejectionHandler;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.server.UnsupportedRequestContentTypeRejection;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;
import org.peerdex.actors.Dispatchers;
import org.peerdex.node.ModePolicy;
import org.peerdex.node.NodeContext;
import org.peerdex.node.NodeServices;
import org.peerdex.node.accounts.Accounts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The peer's whole HTTP surface: /api/... plus the compatible interfaces and the UI. */
public final class ApiRoutes {
    private static final Logger log = LoggerFactory.getLogger(ApiRoutes.class);
    private final NodeContext ctx;
    private final NodeServices services;
    private final AdminGuard admin;
    private final Accounts accounts;
    private final SearchGuard searchGuard;
    private final WebBoundary boundary;

    public ApiRoutes(NodeContext ctx, NodeServices services) {
        this.ctx = ctx;
        this.services = services;
        ModePolicy mode = ModePolicy.of(ctx.config());
        this.accounts = new Accounts(ctx.storage().store());
        this.boundary = WebBoundary.from(ctx.config().raw());
        this.admin = new AdminGuard(ctx.config().adminPasswordHash(), accounts, mode.loopbackAdmin(), boundary);
        this.searchGuard = new SearchGuard(accounts, mode.searchNeedsAccount());
    }

    public Route route() {
        SearchBackend search = services.search();
        Route api = pathPrefix("api", () -> concat(
                new StatusRoutes(ctx, services).route(),
                new PeerRoutes(ctx, services.network()).route(),
                searchGuard.search(() -> new SearchRoutes(search, admin).route()),
                new IndexRoutes(ctx, services.network(), search, admin).route(),
                crawlRoutes(),
                new DocumentRoutes(ctx, services.network(), search, admin).route(),
                new ImportRoutes(services.imports(), admin).route(),
                new BlacklistRoutes(ctx.storage().blacklist(), admin, search.io()).route(),
                new AccountRoutes(accounts, admin, search.io()).route(),
                new RankingProfileRoutes(search, ctx.storage().store(), admin).route(),
                new ConsoleRoutes(ctx, services.network(), search, admin).route(),
                new SettingsRoutes(services.settings(), admin, search.io()).route(),
                new RankingPreviewRoutes(search, admin).route(),
                new UrlEditRoutes(ctx, search, admin).route(),
                new FederationRoutes(services.federation(), admin, search.io()).route()));
        // errors leave in the caller's format (RSS for feed readers, Solr's shape for Solr clients): CallerFormat
        return boundary.guard(() -> withRequestTimeoutResponse(ApiRoutes::timedOut, () -> extractRequest(request -> mapResponse(
                response -> CallerFormat.adapt(request, response), () -> handleExceptions(exceptions(), () ->
                handleRejections(rejections(), () -> Directives.mapRequest(
                FederationRoutes::noFederationForFederated, () -> services.rateLimit().limit(() -> concat(api,
                searchGuard.search(() -> concat(new CompatRoutes(search, ctx.storage()).route(),
                        new SolrRoutes(search, ctx.storage(),
                        ctx.config().raw().getInt("peerdex.scan-limits.solr-match-all")).route())),
                new UiRoutes().route())))))))));
    }

    private Route crawlRoutes() {
        return new CrawlRoutes(services.crawl(), admin, Dispatchers.fetch(ctx.system()),
                services.settings()).route();
    }

    public AdminGuard admin() {
        return admin;
    }

    /** The checks in front of every route (Host, Origin, security headers, who the client is). */
    public WebBoundary boundary() {
        return boundary;
    }

    /** The answer when a route has not answered within pekko.http.server.request-timeout. */
    static HttpResponse timedOut(HttpRequest r) {
        // answered outside the routes (and their boundary): the security headers are added here
        return WebBoundary.withSecurityHeaders(
                CallerFormat.adapt(r, Json.errorResponse(StatusCodes.SERVICE_UNAVAILABLE, "the request timed out")));
    }

    static ExceptionHandler exceptions() {
        return ExceptionHandler.newBuilder()
                .match(IllegalArgumentException.class, e -> Json.error(StatusCodes.BAD_REQUEST, e.getMessage()))
                .matchAny(e -> {
                    // a body over pekko.http.server.parsing.max-content-length fails when the route reads it
                    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
                        if (t instanceof EntityStreamSizeException) {
                            return Json.error(StatusCodes.PAYLOAD_TOO_LARGE, "request body too large");
                        }
                        if (t instanceof IllegalArgumentException) return Json.error(StatusCodes.BAD_REQUEST, t.getMessage());
                        if (t.getMessage() != null && t.getMessage().contains("No space left on device")) {
                            log.warn("write failed, the disk is full: {}", t.getMessage());
                            return Json.error(StatusCodes.INSUFFICIENT_STORAGE,
                                    "the disk is full (No space left on device): nothing was indexed; retry when space returns");
                        }
                    }
                    log.warn("request failed", e);
                    return Json.error(StatusCodes.INTERNAL_SERVER_ERROR, "internal error: " + e.getClass().getSimpleName());
                })
                .build();
    }

    static RejectionHandler rejections() {
        return RejectionHandler.newBuilder()
                .handle(MissingQueryParamRejection.class,
                        r -> Json.error(StatusCodes.BAD_REQUEST, "missing query parameter '" + r.parameterName() + "'"))
                .handle(MalformedQueryParamRejection.class,
                        r -> Json.error(StatusCodes.BAD_REQUEST, "bad query parameter '" + r.parameterName() + "': "
                                + r.errorMsg()))
                .handle(MalformedRequestContentRejection.class,
                        r -> r.getCause() instanceof EntityStreamSizeException
                                ? Json.error(StatusCodes.PAYLOAD_TOO_LARGE, "request body too large")
                                : Json.error(StatusCodes.BAD_REQUEST, "malformed request body: " + r.message()))
                .handle(UnsupportedRequestContentTypeRejection.class,
                        r -> Json.error(StatusCodes.UNSUPPORTED_MEDIA_TYPE, "unsupported content type"))
                .handleAll(MethodRejection.class,
                        rs -> Json.error(StatusCodes.METHOD_NOT_ALLOWED, "method not allowed"))
                .handleNotFound(Json.error(StatusCodes.NOT_FOUND, "not found"))
                .build()
                .withFallback(RejectionHandler.defaultHandler())
                .mapRejectionResponse(resp -> resp.entity().getContentType().equals(
                        ContentTypes.APPLICATION_JSON) ? resp
                        : Json.errorResponse(resp.status(), resp.status().reason()));
    }
}
