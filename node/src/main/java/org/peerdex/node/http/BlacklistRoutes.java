package org.peerdex.node.http;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.parameter;
import static org.apache.pekko.http.javadsl.server.Directives.parameterOptional;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathEnd;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.Directives.put;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.peerdex.storage.blacklist.Blacklist;
import org.peerdex.storage.blacklist.BlacklistRule;

/**
 * The blacklist (admin): {@code GET/PUT /api/blacklist} ({@code {"rules":[{"scope","host","path"}]}}),
 * {@code GET /api/blacklist/test?url=} (would this URL be blocked, and by which rule, per scope),
 * {@code POST /api/blacklist/import?scopes=search,dht[&replace=true]} (a YaCy blacklist file as the body) and
 * {@code GET /api/blacklist/export?scope=search} (the same format back).
 */
public final class BlacklistRoutes {
    private final Blacklist blacklist;
    private final AdminGuard admin;
    private final Executor blocking;

    public BlacklistRoutes(Blacklist blacklist, AdminGuard admin, Executor blocking) {
        this.blacklist = blacklist;
        this.admin = admin;
        this.blocking = blocking;
    }

    public Route route() {
        return pathPrefix("blacklist", () -> admin.admin(() -> concat(
                pathEnd(() -> concat(
                        get(() -> Json.ok(rulesJson(blacklist.rules()))),
                        put(() -> entity(Jackson.unmarshaller(SearchRoutes.PLAIN, Map.class), body -> {
                            List<BlacklistRule> rules = parseRules(body);
                            return onSuccess(CompletableFuture.runAsync(() -> blacklist.replace(rules), blocking),
                                    done -> Json.ok(rulesJson(blacklist.rules())));
                        })))),
                path("test", () -> get(() -> parameter("url", url -> Json.ok(test(url))))),
                path("export", () -> get(() -> parameterOptional("scope", scope -> complete(HttpResponse.create()
                        .withEntity(HttpEntities.create(ContentTypes.TEXT_PLAIN_UTF8,
                                blacklist.export(BlacklistRule.Scope.parse(scope.orElse("search"))))))))),
                path("import", () -> post(() -> parameterOptional("scopes", scopes ->
                        parameterOptional("replace", replace -> entity(Unmarshaller.entityToString(), text -> {
                            Set<BlacklistRule.Scope> in = scopes(scopes.orElse("search"));
                            List<BlacklistRule> rules = Blacklist.parseFile(text, in);
                            boolean all = Boolean.parseBoolean(replace.orElse("false"));
                            return onSuccess(CompletableFuture.runAsync(() -> {
                                if (all) {
                                    List<BlacklistRule> kept = new ArrayList<>(blacklist.rules().stream()
                                            .filter(r -> !in.contains(r.scope())).toList());
                                    kept.addAll(rules);
                                    blacklist.replace(kept);
                                } else {
                                    blacklist.addAll(rules);
                                }
                            }, blocking), done -> Json.ok(Map.of("imported", rules.size(),
                                    "rules", blacklist.rules().size())));
                        }))))))));
    }

    static Set<BlacklistRule.Scope> scopes(String list) {
        Set<BlacklistRule.Scope> out = EnumSet.noneOf(BlacklistRule.Scope.class);
        for (String s : list.split(",")) if (!s.isBlank()) out.add(BlacklistRule.Scope.parse(s));
        if (out.isEmpty()) throw new IllegalArgumentException("scopes must name at least one of crawler, dht, search, proxy");
        return out;
    }

    static List<BlacklistRule> parseRules(Map<?, ?> body) {
        Object rules = body.get("rules");
        if (!(rules instanceof List<?> list)) throw new IllegalArgumentException("body must be {\"rules\": [...]}");
        if (list.size() > Blacklist.MAX_RULES) throw new IllegalArgumentException("more than " + Blacklist.MAX_RULES + " rules");
        List<BlacklistRule> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof Map<?, ?> r)) throw new IllegalArgumentException("rule " + i + " is not an object");
            try {
                out.add(new BlacklistRule(BlacklistRule.Scope.parse(str(r.get("scope"))), str(r.get("host")),
                        str(r.get("path"))));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("rule " + i + ": " + e.getMessage());
            }
        }
        return out;
    }

    private static String str(Object o) {
        return o == null ? null : String.valueOf(o);
    }

    Map<String, Object> test(String url) {
        if (!url.startsWith("http://") && !url.startsWith("https://")) {
            throw new IllegalArgumentException("url must be an http(s) URL: " + url);
        }
        Map<BlacklistRule.Scope, BlacklistRule> hits = blacklist.test(url);
        Map<String, Object> scopes = new LinkedHashMap<>();
        for (BlacklistRule.Scope s : BlacklistRule.Scope.values()) {
            BlacklistRule r = hits.get(s);
            scopes.put(s.key(), r == null ? null : ruleJson(r));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("url", url);
        out.put("blocked", !hits.isEmpty());
        out.put("scopes", scopes);
        return out;
    }

    static Map<String, Object> rulesJson(List<BlacklistRule> rules) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (BlacklistRule r : rules) list.add(ruleJson(r));
        return Map.of("rules", list);
    }

    static Map<String, Object> ruleJson(BlacklistRule r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scope", r.scope().key());
        m.put("host", r.host());
        m.put("path", r.path());
        return m;
    }
}
