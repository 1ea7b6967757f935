package org.peerdex.node.http;

import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.put;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.http.javadsl.marshallers.jackson.Jackson;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.node.NodeContext;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.meta.UrlMetadataStore;

/**
 * {@code PUT /api/index/url/{urlhash}} (admin, DESIGN §6): edits what results show of a URL (title, description,
 * author, keywords, language); fields left out keep their value, the edit is written to the URL's history. The
 * postings stay as indexed (a word of an old title still finds the page) and copies on DHT holders are not changed.
 */
public final class UrlEditRoutes {
    static final Set<String> EDITABLE = Set.of("title", "description", "author", "keywords", "language");
    private final NodeContext ctx;
    private final SearchBackend backend;
    private final AdminGuard admin;

    public UrlEditRoutes(NodeContext ctx, SearchBackend backend, AdminGuard admin) {
        this.ctx = ctx;
        this.backend = backend;
        this.admin = admin;
    }

    public Route route() {
        return path(segment("index").slash("url").slash(segment()), h -> put(() -> admin.admin(() -> {
            if (!Base64Order.isHash(h, UrlHash.LENGTH)) {
                return Json.error(StatusCodes.BAD_REQUEST, "not a 12-character URL hash: " + h);
            }
            UrlHash url = new UrlHash(h);
            return entity(Jackson.unmarshaller(SearchRoutes.PLAIN, Map.class), body -> {
                @SuppressWarnings("unchecked")
                Map<String, ?> edit = (Map<String, ?>) body;
                return onSuccess(CompletableFuture.supplyAsync(() -> edit(url, edit), backend.io()),
                        m -> m == null ? Json.error(StatusCodes.NOT_FOUND, "no such URL in the index: " + h) : Json.ok(m));
            });
        })));
    }

    private Map<String, Object> edit(UrlHash url, Map<String, ?> body) {
        var meta = ctx.storage().metadata().get(url);
        if (meta.isEmpty()) return null;
        UrlMetadata edited = edited(meta.get(), body);
        UrlMetadata before = meta.get();
        List<String> changed = new ArrayList<>();
        if (!edited.title().equals(before.title())) changed.add("title");
        if (!edited.description().equals(before.description())) changed.add("description");
        if (!edited.author().equals(before.author())) changed.add("author");
        if (!edited.keywords().equals(before.keywords())) changed.add("keywords");
        if (!edited.language().equals(before.language())) changed.add("language");
        ctx.storage().metadata().put(edited);
        ctx.storage().metadata().appendHistory(url, new UrlMetadataStore.HistoryEvent(System.currentTimeMillis(),
                "edited", 0, "edited through the index browser: " + (changed.isEmpty() ? "nothing changed"
                : String.join(", ", changed))));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("urlHash", url.value());
        out.put("metadata", edited);
        return out;
    }

    /** The metadata with the edit applied; an unknown field or a bad value throws IllegalArgumentException. */
    static UrlMetadata edited(UrlMetadata m, Map<String, ?> body) {
        if (body.isEmpty()) throw new IllegalArgumentException("nothing to edit: send one of " + new TreeSet<>(EDITABLE));
        for (String k : body.keySet()) {
            if (!EDITABLE.contains(k)) {
                throw new IllegalArgumentException("'" + k + "' cannot be edited; editable: " + new TreeSet<>(EDITABLE));
            }
        }
        String title = text(body, "title", m.title(), 1000);
        String description = text(body, "description", m.description(), 10_000);
        String author = text(body, "author", m.author(), 500);
        String language = text(body, "language", m.language(), 3).toLowerCase(Locale.ROOT);
        if (!language.isEmpty() && !language.matches("[a-z]{2,3}")) {
            throw new IllegalArgumentException("language must be an ISO 639 code like 'en' (or empty), not '" + language + "'");
        }
        List<String> keywords = m.keywords();
        if (body.containsKey("keywords")) {
            if (!(body.get("keywords") instanceof List<?> list) || list.size() > 100) {
                throw new IllegalArgumentException("keywords must be a list of at most 100 words");
            }
            keywords = new ArrayList<>();
            for (Object o : list) {
                if (!(o instanceof String s) || s.length() > 100) {
                    throw new IllegalArgumentException("each keyword must be a string of at most 100 characters");
                }
                if (!s.isBlank()) keywords.add(s.trim());
            }
        }
        return new UrlMetadata(m.urlHash(), m.url(), title, description, author, keywords, language, m.doctype(),
                m.mimeType(), m.size(), m.lastModified(), m.fetched(), m.linksLocal(), m.linksOther(), m.wordsInText(),
                m.holder(), m.contentHash(), m.headings());
    }

    private static String text(Map<String, ?> body, String key, String current, int max) {
        if (!body.containsKey(key)) return current;
        if (!(body.get(key) instanceof String s)) throw new IllegalArgumentException(key + " must be a string");
        if (s.length() > max) throw new IllegalArgumentException(key + " must be at most " + max + " characters");
        return s.strip();
    }
}
