package org.peerdex.node.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.node.accounts.Account;
import org.peerdex.node.accounts.Accounts;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.delete;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathEnd;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.put;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

/**
 * Accounts (admin): {@code GET /api/accounts} (names and roles), {@code PUT /api/accounts/{name}} with
 * {@code {"password": ..., "role": "admin|searcher"}}, {@code DELETE /api/accounts/{name}}.
 */
public final class AccountRoutes {
    private final Accounts accounts;
    private final AdminGuard admin;
    private final Executor blocking;

    public AccountRoutes(Accounts accounts, AdminGuard admin, Executor blocking) {
        this.accounts = accounts;
        this.admin = admin;
        this.blocking = blocking;
    }

    public Route route() {
        return pathPrefix("accounts", () -> admin.admin(() -> concat(
                pathEnd(() -> get(() -> Json.ok(Map.of("accounts", list())))),
                path(segment(), name -> concat(
                        put(() -> entity(Jackson.unmarshaller(SearchRoutes.PLAIN, Map.class), body -> {
                            Object pw = body.get("password");
                            Account.Role role = Account.Role.parse(body.get("role") == null ? "searcher"
                                    : String.valueOf(body.get("role")));
                            if (!(pw instanceof String p)) throw new IllegalArgumentException("password is required");
                            return onSuccess(CompletableFuture.supplyAsync(() -> accounts.put(name, p, role), blocking),
                                    a -> Json.ok(json(a)));
                        })),
                        delete(() -> accounts.delete(name) ? Json.ok(Map.of("deleted", name))
                                : Json.error(StatusCodes.NOT_FOUND, "no such account: " + name)))))));
    }

    private List<Map<String, Object>> list() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Account a : accounts.all()) out.add(json(a));
        return out;
    }

    private static Map<String, Object> json(Account a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", a.name());
        m.put("role", a.role().key());
        return m;
    }
}
