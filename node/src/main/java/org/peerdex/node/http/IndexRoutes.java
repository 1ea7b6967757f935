package org.peerdex.node.http;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.actors.search.PageIndexer;
import org.peerdex.node.NetworkBackend;
import org.peerdex.node.NodeContext;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.meta.UrlMetadataStore;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.text.Tokenizer;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.delete;
import static org.apache.pekko.http.javadsl.server.Directives.extractUri;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.parameterOptional;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

/**
 * The index browser: {@code GET /api/index/word/{word-or-hash}} (a word's postings),
 * {@code GET/DELETE /api/index/url/{urlhash}} (a URL's metadata, crawl/parse history, postings and images, and
 * whether the caller is an admin; delete is admin; the page {@code /url.html?hash=} shows it), and
 * {@code POST /api/index/manual} (admin: index the bundled manual so a new peer can search at once).
 */
public final class IndexRoutes {
    private static final String[] FLAG_NAMES = {"title", "url", "anchor", "emphasis", "heading", "description",
        "keywords", "author", "cached", "image"};
    /** Postings listed on a URL's page (a long page has thousands of words). */
    static final int MAX_URL_POSTINGS = 500;
    private final NodeContext ctx;
    private final NetworkBackend network;
    private final SearchBackend backend;
    private final AdminGuard admin;

    public IndexRoutes(NodeContext ctx, NetworkBackend network, SearchBackend backend, AdminGuard admin) {
        this.ctx = ctx;
        this.network = network;
        this.backend = backend;
        this.admin = admin;
    }

    public Route route() {
        return pathPrefix("index", () -> concat(
                path(segment("word").slash(segment()), w -> get(() -> parameterOptional("limit", limit ->
                        onSuccess(CompletableFuture.supplyAsync(() -> word(w, limit.map(SearchRoutes::parseLimit)
                                .orElse(100)), backend.io()), Json::ok)))),
                path(segment("url").slash(segment()), h -> {
                    if (!Base64Order.isHash(h, UrlHash.LENGTH)) {
                        return Json.error(StatusCodes.BAD_REQUEST, "not a 12-character URL hash: " + h);
                    }
                    UrlHash url = new UrlHash(h);
                    return concat(
                            get(() -> admin.isAdmin(isAdmin -> onSuccess(CompletableFuture.supplyAsync(() ->
                                    url(url, isAdmin), backend.io()), m -> m == null
                                    ? Json.error(StatusCodes.NOT_FOUND, "no such URL in the index: " + h)
                                    : Json.ok(m)))),
                            delete(() -> admin.admin(() -> onSuccess(CompletableFuture.supplyAsync(() ->
                                    deleteUrl(url), backend.io()), m -> m == null
                                    ? Json.error(StatusCodes.NOT_FOUND, "no such URL in the index: " + h) : Json.ok(m)))));
                }),
                path("manual", () -> post(() -> admin.admin(() -> extractUri(uri -> {
                    String base = CompatRoutes.base(uri.getScheme(), uri.getHost().address(), uri.getPort());
                    return onSuccess(CompletableFuture.supplyAsync(() -> indexManual(base), backend.io()),
                            Json::ok);
                }))))));
    }

    Map<String, Object> word(String wordOrHash, int limit) {
        WordHash hash;
        String word = null;
        if (Base64Order.isHash(wordOrHash, WordHash.LENGTH) && !wordOrHash.equals(Tokenizer.normalize(wordOrHash))) {
            hash = new WordHash(wordOrHash);
        } else {
            word = Tokenizer.normalize(wordOrHash.trim());
            hash = WordHash.of(word);
        }
        List<Posting> postings = ctx.storage().rwi().postings(hash);
        List<Map<String, Object>> list = new ArrayList<>();
        for (Posting p : postings) {
            if (list.size() >= limit) break;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("urlHash", p.url().value());
            ctx.storage().metadata().get(p.url()).ifPresent(meta -> m.put("url", meta.url()));
            m.put("flags", flagNames(p.flags()));
            m.put("hitCount", p.hitCount());
            m.put("positions", p.positions());
            m.put("wordsInText", p.wordsInText());
            m.put("wordsInTitle", p.wordsInTitle());
            m.put("language", p.language());
            m.put("holder", p.holder() == null ? null : p.holder().value());
            m.put("expiresAt", p.expiresAt());
            list.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("word", word);
        out.put("wordHash", hash.value());
        out.put("count", postings.size());
        out.put("postings", list);
        return out;
    }

    Map<String, Object> url(UrlHash url, boolean isAdmin) {
        var meta = ctx.storage().metadata().get(url);
        var history = ctx.storage().metadata().history(url);
        if (meta.isEmpty() && history.isEmpty()) return null;
        List<WordHash> words = ctx.storage().rwi().wordsOf(url);
        Optional<String> text = ctx.storage().metadata().text(url);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("urlHash", url.value());
        out.put("metadata", meta.orElse(null));
        out.put("words", words.size());
        out.put("textLength", text.map(String::length).orElse(0));
        out.put("feedback", backend.feedback().get(url).orElse(null));
        out.put("history", history);
        out.put("postings", postingsOf(url, words, meta.orElse(null), text.orElse("")));
        out.put("images", ctx.storage().metadata().images(url));
        out.put("admin", isAdmin);
        return out;
    }

    /**
     * The postings of a URL, at most {@link #MAX_URL_POSTINGS}, most hits first. The index keeps word hashes only:
     * the word is found again by hashing the words of the URL's stored text and metadata (null for a word from
     * elsewhere, such as the anchor text of a link to the URL).
     */
    List<Map<String, Object>> postingsOf(UrlHash url, List<WordHash> words, UrlMetadata meta, String text) {
        Map<WordHash, String> known = new HashMap<>();
        StringBuilder source = new StringBuilder(text);
        if (meta != null) {
            source.append(' ').append(meta.title()).append(' ').append(meta.description()).append(' ')
                    .append(meta.author()).append(' ').append(String.join(" ", meta.keywords())).append(' ')
                    .append(String.join(" ", meta.headings())).append(' ').append(meta.url());
        }
        for (String w : Tokenizer.words(source.toString())) known.putIfAbsent(WordHash.of(w), w);
        List<Map<String, Object>> list = new ArrayList<>();
        for (WordHash w : words) {
            Optional<Posting> p = ctx.storage().rwi().get(w, url);
            if (p.isEmpty()) continue;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("word", known.get(w));
            m.put("wordHash", w.value());
            m.put("flags", flagNames(p.get().flags()));
            m.put("hitCount", p.get().hitCount());
            int[] pos = p.get().positions();
            m.put("positions", pos.length > 20 ? Arrays.copyOf(pos, 20) : pos);
            list.add(m);
        }
        list.sort(Comparator.comparingInt((Map<String, Object> m) -> -(Integer) m.get("hitCount"))
                .thenComparing(m -> String.valueOf(m.get("word"))));
        return list.size() > MAX_URL_POSTINGS ? new ArrayList<>(list.subList(0, MAX_URL_POSTINGS)) : list;
    }

    static List<String> flagNames(int flags) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < FLAG_NAMES.length; i++) if ((flags & (1 << i)) != 0) out.add(FLAG_NAMES[i]);
        return out;
    }

    Map<String, Object> deleteUrl(UrlHash url) {
        boolean had = ctx.storage().metadata().contains(url);
        int postings = ctx.storage().rwi().deleteUrl(url);
        if (!had && postings == 0) return null;
        ctx.storage().metadata().delete(url);
        ctx.storage().stats().add(had ? -1 : 0, -postings);
        ctx.storage().metadata().appendHistory(url, new UrlMetadataStore.HistoryEvent(System.currentTimeMillis(),
                "deleted", 0, "deleted through the index browser"));
        return Map.of("urlHash", url.value(), "deletedPostings", postings);
    }

    Map<String, Object> indexManual(String base) {
        List<String> indexed = new ArrayList<>();
        for (ManualPages.Page p : ManualPages.all()) {
            PageIndexer.index(ctx.storage(), base + "/docs/" + p.name() + ".html", ManualPages.html(p), 0, List.of());
            indexed.add(p.name());
        }
        ctx.storage().writer().flush();
        org.peerdex.actors.dht.DhtPeer dht = network.dht();
        if (dht != null) dht.indexedLocally(); // offer the new pages to their DHT holders
        return Map.of("indexed", indexed.size(), "pages", indexed);
    }
}
