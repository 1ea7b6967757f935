package org.peerdex.node.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.delete;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathEnd;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.Directives.put;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

/**
 * Named ranking profiles (admin): {@code GET /api/ranking/profiles} (the saved ones and the defaults),
 * {@code PUT /api/ranking/profiles/{name}} (save the body's coefficients, or the active profile's, under a name),
 * {@code POST /api/ranking/profiles/{name}/apply}, {@code DELETE /api/ranking/profiles/{name}} and
 * {@code POST /api/ranking/reset} (back to the defaults). The active profile itself is {@code /api/ranking}.
 */
public final class RankingProfileRoutes {
    private static final String PREFIX = "ranking.profiles/";
    private final SearchBackend backend;
    private final KeyValueStore store;
    private final AdminGuard admin;

    public RankingProfileRoutes(SearchBackend backend, KeyValueStore store, AdminGuard admin) {
        this.backend = backend;
        this.store = store;
        this.admin = admin;
    }

    public Route route() {
        return pathPrefix("ranking", () -> admin.admin(() -> concat(
                path("reset", () -> post(() -> {
                    backend.setProfile(RankingProfile.defaults());
                    return Json.ok(SearchRoutes.rankingJson(backend.profile()));
                })),
                pathPrefix("profiles", () -> concat(
                        pathEnd(() -> get(() -> Json.ok(list()))),
                        pathPrefix(segment(), name -> {
                            if (!name.matches("[A-Za-z0-9 ._-]{1,64}")) {
                                return Json.error(StatusCodes.BAD_REQUEST, "profile name must be 1-64 letters, digits, space or ._-");
                            }
                            return concat(
                                    pathEnd(() -> concat(
                                            put(() -> entity(Jackson.unmarshaller(SearchRoutes.PLAIN, Map.class), body -> {
                                                @SuppressWarnings("unchecked")
                                                RankingProfile p = RankingProfile.fromJson((Map<String, ?>) body,
                                                        backend.profile());
                                                RankingProfile named = new RankingProfile(name, p.coefficients());
                                                store.put(key(name), Json.write(named.toJson()).getBytes(StandardCharsets.UTF_8));
                                                return Json.ok(named.toJson());
                                            })),
                                            delete(() -> {
                                                if (load(name) == null) return Json.error(StatusCodes.NOT_FOUND, "no profile " + name);
                                                store.delete(key(name));
                                                return Json.ok(Map.of("deleted", name));
                                            }))),
                                    path("apply", () -> post(() -> {
                                        RankingProfile p = load(name);
                                        if (p == null) return Json.error(StatusCodes.NOT_FOUND, "no profile " + name);
                                        backend.setProfile(p);
                                        return Json.ok(SearchRoutes.rankingJson(p));
                                    })));
                        }))))));
    }

    private Map<String, Object> list() {
        List<Map<String, Object>> profiles = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(key(""))) {
            while (c.next()) {
                RankingProfile p = parse(new String(c.value(), StandardCharsets.UTF_8));
                if (p != null) profiles.add(p.toJson());
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("active", backend.profile().name());
        out.put("profiles", profiles);
        out.put("defaults", RankingProfile.defaults().toJson());
        return out;
    }

    private RankingProfile load(String name) {
        return store.get(key(name)).map(b -> parse(new String(b, StandardCharsets.UTF_8))).orElse(null);
    }

    @SuppressWarnings("unchecked")
    private static RankingProfile parse(String json) {
        try {
            return RankingProfile.fromJson(SearchRoutes.PLAIN.readValue(json, Map.class), RankingProfile.defaults());
        } catch (Exception e) {
            return null;
        }
    }

    private static byte[] key(String name) {
        return Keys.of(Keyspace.SETTINGS, (PREFIX + name).getBytes(StandardCharsets.UTF_8));
    }
}
