package org.peerdex.node.http;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.getFromResource;
import static org.apache.pekko.http.javadsl.server.Directives.getFromResourceDirectory;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathEnd;
import static org.apache.pekko.http.javadsl.server.Directives.pathEndOrSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.pathSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.redirect;
import static org.apache.pekko.http.javadsl.server.Directives.respondWithHeader;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.Uri;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The web UI: the search page at {@code /} (ui-static's peerdex-ui/), the operator's console at {@code /admin/},
 * the embeddable widget at {@code /search.html}, and the manual at {@code /docs/}.
 */
public final class UiRoutes {
    public Route route() {
        return get(() -> concat(
                pathSingleSlash(() -> getFromResource("peerdex-ui/index.html", ContentTypes.TEXT_HTML_UTF8)),
                // the operator's console (ui-static peerdex-ui/admin/); its API calls go through AdminGuard
                pathPrefix("admin", () -> concat(
                        pathEnd(() -> redirect(Uri.create("/admin/"), StatusCodes.MOVED_PERMANENTLY)),
                        pathSingleSlash(() -> getFromResource("peerdex-ui/admin/index.html", ContentTypes.TEXT_HTML_UTF8)))),
                // the embeddable widget: its own policy lets other sites frame it (WebBoundary adds no X-Frame-Options)
                path("search.html", () -> respondWithHeader(RawHeader.create("Content-Security-Policy",
                        WebBoundary.WIDGET_CSP), () -> getFromResource("peerdex-ui/search.html", ContentTypes.TEXT_HTML_UTF8))),
                pathPrefix("docs", () -> concat(
                        pathEndOrSingleSlash(() -> html(ManualPages.indexHtml())),
                        path(segment(), file -> {
                            String name = file.endsWith(".html") ? file.substring(0, file.length() - 5) : file;
                            return ManualPages.find(name).map(p -> html(ManualPages.html(p)))
                                    .orElseGet(() -> Json.error(StatusCodes.NOT_FOUND, "no such page of the manual"));
                        }))),
                getFromResourceDirectory("peerdex-ui")));
    }

    private static Route html(String s) {
        return complete(HttpResponse.create().withEntity(HttpEntities.create(ContentTypes.TEXT_HTML_UTF8, s)));
    }
}
