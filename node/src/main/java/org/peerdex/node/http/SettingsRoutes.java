package org.peerdex.node.http;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.node.settings.SettingsBackend;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.put;

/**
 * {@code GET/PUT /api/settings} (admin): content types, memory bounds, crawl defaults, suggestion dictionary. A PUT
 * takes the whole object or a part of it (what it leaves out keeps its value); a bad value is a 400 naming it.
 */
public final class SettingsRoutes {
    private final SettingsBackend settings;
    private final AdminGuard admin;
    private final Executor blocking;

    public SettingsRoutes(SettingsBackend settings, AdminGuard admin, Executor blocking) {
        this.settings = settings;
        this.admin = admin;
        this.blocking = blocking;
    }

    public Route route() {
        return path("settings", () -> admin.admin(() -> concat(
                get(() -> Json.ok(settings.describe())),
                put(() -> entity(Jackson.unmarshaller(SearchRoutes.PLAIN, Map.class), body ->
                        onSuccess(CompletableFuture.supplyAsync(() -> {
                            @SuppressWarnings("unchecked")
                            Map<String, ?> b = (Map<String, ?>) body;
                            settings.update(b);
                            return settings.describe();
                        }, blocking), Json::ok))))));
    }
}
