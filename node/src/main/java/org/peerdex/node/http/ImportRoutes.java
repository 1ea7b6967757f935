package org.peerdex.node.http;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.actors.crawl.ForumRules;
import org.peerdex.actors.importer.ImportJob;
import org.peerdex.actors.importer.ImportKind;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.delete;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.parameterOptional;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathEnd;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

/**
 * The importers (admin only): {@code POST /api/import/{rss|sitemap|oai-pmh|mediawiki|phpbb|document|scan|proxy}}
 * with {@code {"url": ...}} or {@code {"path": ...}} → {@code {"id": ...}}; {@code GET /api/import[?source=]}
 * (running imports, then the history); {@code GET /api/import/{id}} (progress like a crawl's);
 * {@code DELETE /api/import/{id}} (stop); {@code GET /api/import/profile/phpbb} (the forum crawl profile preset).
 */
public final class ImportRoutes {
    private final ImportService imports;
    private final AdminGuard admin;

    public ImportRoutes(ImportService imports, AdminGuard admin) {
        this.imports = imports;
        this.admin = admin;
        if (imports.settings().proxyEnabled()) {
            imports.startProxy(imports.settings().proxyPort(), imports.settings().proxyAllowQuery());
        }
    }

    public Route route() {
        return pathPrefix("import", () -> admin.admin(() -> {
            return concat(
                    pathEnd(() -> get(() -> parameterOptional("source", source -> Json.ok(Map.of("imports",
                            imports.jobs().list(source.orElse(null))))))),
                    path(segment("profile").slash(segment()), name -> get(() -> ForumRules.preset(name)
                            .map(r -> Json.ok(r.profile()))
                            .orElseGet(() -> Json.error(StatusCodes.NOT_FOUND, "no crawl profile preset '" + name
                                    + "'; there is phpbb")))),
                    path(segment(), name -> concat(
                            post(() -> entity(Jackson.unmarshaller(SearchRoutes.PLAIN, Map.class), body -> {
                                ImportKind kind = ImportKind.parse(name).orElse(null);
                                if (kind == null) {
                                    return Json.error(StatusCodes.NOT_FOUND, "no importer '" + name
                                            + "'; there are rss, sitemap, oai-pmh, mediawiki, phpbb, document, scan, proxy");
                                }
                                @SuppressWarnings("unchecked")
                                Map<String, Object> b = (Map<String, Object>) body;
                                // starting only hands the job to the import dispatcher; bad options throw 400 here
                                try {
                                    return Json.status(StatusCodes.ACCEPTED, started(imports.start(kind, b)));
                                } catch (ImportService.ScanRefused e) {
                                    return Json.error(StatusCodes.FORBIDDEN, e.getMessage());
                                }
                            })),
                            get(() -> imports.jobs().get(name).map(Json::ok)
                                    .orElseGet(() -> Json.error(StatusCodes.NOT_FOUND, "no such import: " + name))),
                            delete(() -> imports.jobs().stop(name).map(Json::ok)
                                    .orElseGet(() -> Json.error(StatusCodes.NOT_FOUND, "no running import: " + name))))));
        }));
    }

    private static Map<String, Object> started(ImportJob job) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", job.id());
        m.put("kind", job.kind().key());
        m.put("source", job.source());
        m.putAll(job.progress().details());
        return m;
    }
}
