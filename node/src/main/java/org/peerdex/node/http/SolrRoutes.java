package org.peerdex.node.http;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.actors.search.Navigators;
import org.peerdex.actors.search.SearchRequest;
import org.peerdex.actors.search.SearchResult;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.blacklist.BlacklistRule;
import org.peerdex.storage.meta.UrlMetadata;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.parameterMultiMap;
import static org.apache.pekko.http.javadsl.server.Directives.pathEndOrSingleSlash;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.Directives.formFieldMultiMap;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

/**
 * {@code GET /solr/select} and {@code GET /solr/{core}/select} (every core name maps to this peer's index): a
 * Solr-compatible subset so Solr clients (SolrJ, pysolr, ...) can query a peer. Supported: {@code q} (words,
 * {@code "phrases"}, {@code -exclusions}, {@code field:value} on text fields, and {@code *:*}), {@code start},
 * {@code rows} (at most 100), {@code fl}, {@code fq} on host, filetype and language, {@code sort} (score, date,
 * size, url, title), {@code facet=true} with {@code facet.field}, {@code wt=json} (default) and {@code wt=xml}.
 * Field names follow YaCy's Solr schema ({@code id}, {@code sku}, {@code host_s}, {@code url_file_ext_s},
 * {@code language_s}, ...) with plain aliases ({@code url}, {@code host}, {@code filetype}, {@code language}).
 */
public final class SolrRoutes {
    /** A field name as clients write it → the field of a Peerdex result. */
    static final Map<String, String> FIELDS = Map.ofEntries(
            Map.entry("id", "id"), Map.entry("urlhash", "id"), Map.entry("sku", "url"), Map.entry("url", "url"),
            Map.entry("title", "title"), Map.entry("description", "description"), Map.entry("snippet", "description"),
            Map.entry("description_txt", "description"), Map.entry("host_s", "host"), Map.entry("host", "host"),
            Map.entry("url_file_ext_s", "filetype"), Map.entry("filetype", "filetype"),
            Map.entry("language_s", "language"), Map.entry("language", "language"), Map.entry("author", "author"),
            Map.entry("author_sxt", "author"), Map.entry("last_modified", "date"), Map.entry("date", "date"),
            Map.entry("size_i", "size"), Map.entry("size", "size"), Map.entry("score", "score"));
    /** Fields shown by default (Solr's {@code fl=*}: everything stored, no score). */
    static final List<String> DEFAULT_FL = List.of("id", "sku", "title", "description", "host_s", "url_file_ext_s",
            "language_s", "author", "last_modified", "size_i");
    /** Facet field → navigator. */
    static final Map<String, String> FACETS = Map.of("host_s", "host", "host", "host", "url_file_ext_s", "filetype",
            "filetype", "filetype", "language_s", "language", "language", "language", "author_sxt", "author",
            "author", "author");
    /** A word of a highlighted field. */
    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}_]+");
    /** Text fields a {@code q} term may name; the index searches them all. */
    static final Set<String> TEXT_FIELDS = Set.of("text", "text_t", "_text_", "content", "title", "description",
            "description_txt", "keywords");
    private final SearchBackend backend;
    private final PeerStorage storage;
    /** Records a {@code *:*} query reads at most ({@code peerdex.scan-limits.solr-match-all}). */
    private final int matchAllScanLimit;

    public SolrRoutes(SearchBackend backend, PeerStorage storage, int matchAllScanLimit) {
        this.backend = backend;
        this.storage = storage;
        this.matchAllScanLimit = matchAllScanLimit;
    }

    public Route route() {
        // pysolr asks for select/ (with a slash) and POSTs a form when the parameters are long
        return pathPrefix("solr", () -> concat(
                pathPrefix("select", () -> pathEndOrSingleSlash(this::selectRequest)),
                pathPrefix(segment().slash("select"), core -> pathEndOrSingleSlash(this::selectRequest))));
    }

    private Route selectRequest() {
        return concat(get(() -> parameterMultiMap(this::select)),
                post(() -> parameterMultiMap(query -> formFieldMultiMap(form -> {
                    Map<String, List<String>> all = new LinkedHashMap<>();
                    query.forEach((k, v) -> all.put(k, new ArrayList<>(v)));
                    form.forEach((k, v) -> all.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
                    return select(all);
                }))));
    }

    /** A parsed select request. */
    record Select(String q, List<String> fq, int start, int rows, List<String> fl, String sortField,
                  boolean sortAscending, List<String> facetFields, String wt, Map<String, Object> echo,
                  List<String> highlightFields) {}

    private Route select(Map<String, List<String>> params) {
        long started = System.nanoTime();
        Select s;
        try {
            s = parse(params);
        } catch (IllegalArgumentException e) {
            return error(params, 400, e.getMessage(), started);
        }
        CompletionStage<Answer> answer;
        try {
            answer = s.q().isEmpty() ? CompletableFuture.completedFuture(nothing(s))
                    : s.q().equals("*:*") ? matchAll(s) : search(s, params);
        } catch (IllegalArgumentException e) {
            return error(params, 400, e.getMessage(), started);
        }
        return onSuccess(answer.handle((a, e) -> {
            if (e == null) return a;
            Throwable t = unwrap(e);
            return new Answer(t instanceof IllegalArgumentException ? 400 : 500, List.of(), Map.of(),
                    t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage());
        }), a -> a.error() != null ? error(params, (int) a.numFound(), a.error(), started) : respond(s, a, started));
    }

    /**
     * What a select found: the total, the page of documents (fields by Peerdex name) and the facet counts; on a
     * failure, {@code error} is set and {@code numFound} is the HTTP status.
     */
    record Answer(long numFound, List<Map<String, Object>> docs, Map<String, List<Navigators.Entry>> facets,
                  String error) {}

    static Select parse(Map<String, List<String>> params) {
        String q = first(params, "q");
        // as Solr's standard parser: no q matches nothing, an empty q is a syntax error
        if (q == null) q = "";
        else if (q.isBlank()) throw new IllegalArgumentException("org.apache.solr.search.SyntaxError: Cannot parse '"
                + q + "': the query is empty (use q=*:* for every document)");
        else checkSyntax(q);
        int start = SearchRoutes.intParam(flat(params, "start"), "start", 0);
        int rows = SearchRoutes.intParam(flat(params, "rows"), "rows", 10);
        if (start < 0 || start > SearchRequest.MAX_OFFSET) {
            throw new IllegalArgumentException("start must be in 0.." + SearchRequest.MAX_OFFSET);
        }
        if (rows < 0) throw new IllegalArgumentException("rows must not be negative");
        rows = Math.min(rows, SearchRequest.MAX_COUNT);
        List<String> fl = new ArrayList<>();
        for (String f : params.getOrDefault("fl", List.of())) {
            for (String name : f.split("[,\\s]+")) {
                if (name.isBlank()) continue;
                if (name.equals("*")) {
                    fl.addAll(DEFAULT_FL);
                    continue;
                }
                if (!FIELDS.containsKey(name)) throw new IllegalArgumentException("undefined field " + name + " in fl");
                fl.add(name);
            }
        }
        if (fl.isEmpty()) fl.addAll(DEFAULT_FL);
        String sortField = "score";
        boolean asc = false;
        String sort = first(params, "sort");
        if (sort != null && !sort.isBlank()) {
            String[] parts = sort.trim().split("[\\s,]+");
            if (parts.length < 2 || !(parts[1].equalsIgnoreCase("asc") || parts[1].equalsIgnoreCase("desc"))) {
                throw new IllegalArgumentException("sort must be 'FIELD asc|desc', not '" + sort + "'");
            }
            String field = FIELDS.get(parts[0]);
            if (field == null || !Set.of("score", "date", "size", "url", "title").contains(field)) {
                throw new IllegalArgumentException("cannot sort on " + parts[0]
                        + "; sortable: score, last_modified, size_i, sku, title");
            }
            sortField = field;
            asc = parts[1].equalsIgnoreCase("asc");
        }
        List<String> facets = new ArrayList<>();
        if (Boolean.parseBoolean(first(params, "facet"))) {
            for (String f : params.getOrDefault("facet.field", List.of())) {
                if (!FACETS.containsKey(f)) {
                    throw new IllegalArgumentException("cannot facet on " + f + "; facet fields: host_s, "
                            + "url_file_ext_s, language_s, author_sxt");
                }
                if (!facets.contains(f)) facets.add(f);
            }
        }
        String wt = first(params, "wt");
        wt = wt == null || wt.isBlank() ? "json" : wt.toLowerCase(Locale.ROOT);
        if (!wt.equals("json") && !wt.equals("xml")) {
            throw new IllegalArgumentException("wt=" + wt + " is not supported; use wt=json or wt=xml");
        }
        List<String> fq = new ArrayList<>();
        for (String f : params.getOrDefault("fq", List.of())) fq.add(filterModifier(f));
        Map<String, Object> echo = new LinkedHashMap<>();
        params.forEach((k, v) -> echo.put(k, v.size() == 1 ? v.get(0) : v));
        List<String> hl = new ArrayList<>();
        if (Boolean.parseBoolean(first(params, "hl"))) {
            String fields = first(params, "hl.fl");
            for (String f : (fields == null || fields.isBlank() ? "description" : fields).split("[,\\s]+")) {
                String field = FIELDS.get(f);
                if (("title".equals(field) || "description".equals(field)) && !hl.contains(f)) hl.add(f);
            }
        }
        return new Select(q.trim(), fq, start, rows, fl, sortField, asc, facets, wt, echo, hl);
    }

    /** The answer to a select without {@code q}: no documents, as Solr's standard query parser. */
    private static Answer nothing(Select s) {
        Map<String, List<Navigators.Entry>> facets = new LinkedHashMap<>();
        for (String f : s.facetFields()) facets.put(f, List.of());
        return new Answer(0, List.of(), facets, null);
    }

    /**
     * Refuses what Solr's standard query parser cannot parse: parentheses that do not pair up (outside quotes), and
     * an {@code AND}/{@code OR} (or {@code &&}/{@code ||}) with nothing on one side, or a {@code NOT} with nothing
     * after it. A quote never closed is read to the end, as the search box reads it.
     */
    static void checkSyntax(String q) {
        int depth = 0;
        boolean quoted = false;
        for (int i = 0; i < q.length(); i++) {
            char c = q.charAt(i);
            if (c == '\\' && !quoted) {
                i++;
                continue;
            }
            if (c == '"') quoted = !quoted;
            if (quoted) continue;
            if (c == '(') depth++;
            if (c == ')' && --depth < 0) throw syntax(q, "')' at column " + (i + 1) + " closes nothing");
        }
        if (depth > 0) throw syntax(q, "Encountered \"<EOF>\" at column " + q.length() + ": a '(' is never closed");
        List<String> toks = new ArrayList<>();
        for (String t : tokens(q)) {
            // parentheses are grouping: "(json" and "yaml)" are words, "(" and ")" alone are nothing
            String bare = t.replaceAll("^\\(+|\\)+$", "");
            if (!bare.isEmpty()) toks.add(bare);
        }
        for (int i = 0; i < toks.size(); i++) {
            String t = toks.get(i);
            boolean binary = t.equals("AND") || t.equals("OR") || t.equals("&&") || t.equals("||");
            boolean last = i == toks.size() - 1;
            if (binary && (i == 0 || last || isOperator(toks.get(i - 1)))) {
                throw syntax(q, "'" + t + "' needs a clause on each side");
            }
            if ((t.equals("NOT") || t.equals("!")) && last) throw syntax(q, "'" + t + "' needs a clause after it");
        }
    }

    private static boolean isOperator(String t) {
        return t.equals("AND") || t.equals("OR") || t.equals("&&") || t.equals("||") || t.equals("NOT")
                || t.equals("!");
    }

    private static IllegalArgumentException syntax(String q, String why) {
        return new IllegalArgumentException("org.apache.solr.search.SyntaxError: Cannot parse '" + q + "': " + why);
    }

    /** {@code fq=host_s:example.org} → {@code site:example.org}, and so on; other filters are refused. */
    static String filterModifier(String fq) {
        String t = fq.trim();
        if (t.startsWith("{!")) t = t.substring(t.indexOf('}') + 1).trim(); // local params (tag=...) are ignored
        int colon = t.indexOf(':');
        if (colon <= 0) throw new IllegalArgumentException("fq must be FIELD:VALUE, not '" + fq + "'");
        String field = FIELDS.getOrDefault(t.substring(0, colon).trim(), "");
        String value = unquote(t.substring(colon + 1).trim()).toLowerCase(Locale.ROOT);
        if (value.isEmpty() || value.contains(" ")) throw new IllegalArgumentException("fq value must be one word: " + fq);
        return switch (field) {
            case "host" -> "site:" + value;
            case "filetype" -> "filetype:" + value;
            case "language" -> "lang:" + value;
            default -> throw new IllegalArgumentException("fq supports host_s, url_file_ext_s and language_s, not '"
                    + fq + "'");
        };
    }

    /** Solr's query syntax → Peerdex's: field prefixes of text fields dropped, AND/+ implicit, NOT → '-'. */
    static String peerdexQuery(String q) {
        List<String> out = new ArrayList<>();
        boolean negateNext = false;
        for (String tok : tokens(q)) {
            if (tok.equals("AND") || tok.equals("&&") || tok.equals("OR") || tok.equals("||")) continue;
            if (tok.equals("NOT") || tok.equals("!")) {
                negateNext = true;
                continue;
            }
            boolean neg = negateNext;
            negateNext = false;
            String t = tok;
            if (t.startsWith("+")) t = t.substring(1);
            if (t.startsWith("-")) {
                neg = true;
                t = t.substring(1);
            }
            if (!t.startsWith("\"")) t = t.replaceAll("^\\(+|\\)+$", ""); // grouping: checkSyntax saw them pair up
            int colon = t.indexOf(':');
            if (colon > 0 && !t.startsWith("\"")) {
                String field = t.substring(0, colon);
                String value = t.substring(colon + 1);
                if (TEXT_FIELDS.contains(field)) {
                    t = value;
                } else if (FIELDS.containsKey(field)) {
                    t = filterModifier(field + ":" + value);
                } else {
                    throw new IllegalArgumentException("undefined field " + field + " in q");
                }
            }
            if (t.isBlank()) continue;
            out.add(neg ? "-" + t : t);
        }
        if (out.isEmpty()) throw new IllegalArgumentException("q has no search words: " + q);
        return String.join(" ", out);
    }

    private static List<String> tokens(String q) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (char c : q.toCharArray()) {
            if (c == '"') quoted = !quoted;
            if (Character.isWhitespace(c) && !quoted) {
                if (cur.length() > 0) out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        if (cur.length() > 0) out.add(cur.toString());
        return out;
    }

    private CompletionStage<Answer> search(Select s, Map<String, List<String>> params) {
        String query = peerdexQuery(s.q()) + (s.fq().isEmpty() ? "" : " " + String.join(" ", s.fq()));
        boolean byScore = s.sortField().equals("score") && !s.sortAscending();
        // another order than the ranking's is applied to the ranked head (the first 100)
        int count = byScore ? Math.max(1, s.rows()) : SearchRequest.MAX_COUNT;
        int offset = byScore ? s.start() : 0;
        Set<String> navs = new LinkedHashSet<>();
        for (String f : s.facetFields()) navs.add(FACETS.get(f));
        Map<String, String> flat = backend.withDefaultResource(flat(params, "resource"));
        SearchRequest r = new SearchRequest(QueryParser.parse(query), count, offset, flat.get("resource"), "false",
                navs, false, "all", SearchRequest.parseFederated(first(params, "federated")));
        return backend.service().search(r).thenApply(d -> {
            List<Map<String, Object>> docs = new ArrayList<>();
            for (SearchResult sr : d.results()) docs.add(doc(sr));
            if (!byScore) {
                docs.sort(order(s));
                docs = docs.subList(Math.min(s.start(), docs.size()), Math.min(s.start() + s.rows(), docs.size()));
            } else if (s.rows() == 0) {
                docs = List.of();
            }
            Map<String, List<Navigators.Entry>> facets = new LinkedHashMap<>();
            for (String f : s.facetFields()) facets.put(f, d.navigators().getOrDefault(FACETS.get(f), List.of()));
            return new Answer(d.total(), docs, facets, null);
        });
    }

    /** {@code q=*:*}: every document passing the filters, from a scan of the metadata (bounded). */
    private CompletionStage<Answer> matchAll(Select s) {
        return CompletableFuture.supplyAsync(() -> {
            var filter = QueryParser.parse("x " + String.join(" ", s.fq()));
            Set<String> navs = new LinkedHashSet<>();
            for (String f : s.facetFields()) navs.add(FACETS.get(f));
            Navigators nav = new Navigators(navs, Set.of());
            List<Map<String, Object>> all = new ArrayList<>();
            // the scan stops reading at the bound (it used to decode every record and ignore those past it)
            storage.metadata().scan(matchAllScanLimit, m -> {
                if (passes(m, filter) && !storage.blacklist().blocks(BlacklistRule.Scope.SEARCH, m.url())) {
                    all.add(doc(m));
                    nav.add(m, null);
                }
                return true;
            });
            if (!s.sortField().equals("score")) all.sort(order(s));
            List<Map<String, Object>> page = all.subList(Math.min(s.start(), all.size()),
                    Math.min(s.start() + s.rows(), all.size()));
            Map<String, List<Navigators.Entry>> counted = nav.result();
            Map<String, List<Navigators.Entry>> facets = new LinkedHashMap<>();
            for (String f : s.facetFields()) facets.put(f, counted.getOrDefault(FACETS.get(f), List.of()));
            return new Answer(all.size(), new ArrayList<>(page), facets, null);
        }, backend.blocking());
    }

    private static boolean passes(UrlMetadata m, org.peerdex.actors.search.query.Query f) {
        if (f.site().isPresent()) {
            String host = m.host().toLowerCase(Locale.ROOT);
            if (!host.equals(f.site().get()) && !host.endsWith("." + f.site().get())) return false;
        }
        if (f.filetype().isPresent() && !f.filetype().get().equals(m.filetype())) return false;
        return f.language().isEmpty() || f.language().get().equals(m.language());
    }

    static Map<String, Object> doc(SearchResult sr) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", sr.urlHash());
        d.put("url", sr.url());
        d.put("title", sr.title());
        d.put("description", sr.snippet());
        d.put("host", sr.host());
        d.put("filetype", sr.filetype());
        d.put("language", sr.language());
        d.put("author", sr.author());
        d.put("date", sr.lastModified());
        d.put("size", sr.size());
        d.put("score", sr.score());
        return d;
    }

    static Map<String, Object> doc(UrlMetadata m) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", m.urlHash().value());
        d.put("url", m.url());
        d.put("title", m.title().isBlank() ? m.url() : m.title());
        d.put("description", m.description());
        d.put("host", m.host());
        d.put("filetype", m.filetype());
        d.put("language", m.language());
        d.put("author", m.author());
        d.put("date", m.lastModified());
        d.put("size", m.size());
        d.put("score", 1.0);
        return d;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Comparator<Map<String, Object>> order(Select s) {
        Comparator<Map<String, Object>> c = Comparator.comparing(d -> (Comparable) d.get(s.sortField()),
                Comparator.nullsFirst(Comparator.naturalOrder()));
        if (!s.sortAscending()) c = c.reversed();
        return c.thenComparing(d -> (String) d.get("url"));
    }

    /** The documents with the requested fields under the requested names (and Solr's value types). */
    static List<Map<String, Object>> project(List<Map<String, Object>> docs, List<String> fl) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> d : docs) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (String name : fl) {
                String field = FIELDS.get(name);
                Object v = d.get(field);
                if (field.equals("date")) {
                    long t = (Long) v;
                    if (t <= 0) continue; // Solr omits a field without a value
                    v = Instant.ofEpochMilli(t).toString();
                }
                if (v instanceof String str && str.isEmpty()) continue;
                m.put(name, v);
            }
            out.add(m);
        }
        return out;
    }

    private Route respond(Select s, Answer a, long started) {
        int qtime = (int) ((System.nanoTime() - started) / 1_000_000);
        List<Map<String, Object>> docs = project(a.docs(), s.fl());
        if (s.wt().equals("xml")) {
            return complete(HttpResponse.create().withEntity(HttpEntities.create(
                    MediaTypes.APPLICATION_XML.toContentType(HttpCharsets.UTF_8), xml(s, a, docs, qtime))));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("responseHeader", header(0, qtime, s.echo()));
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("numFound", a.numFound());
        response.put("start", s.start());
        response.put("numFoundExact", true);
        response.put("docs", docs);
        out.put("response", response);
        if (!s.highlightFields().isEmpty()) out.put("highlighting", highlighting(s, a.docs()));
        if (!s.facetFields().isEmpty()) {
            Map<String, Object> fields = new LinkedHashMap<>();
            a.facets().forEach((f, entries) -> {
                List<Object> flatList = new ArrayList<>();
                for (Navigators.Entry e : entries) {
                    flatList.add(e.value());
                    flatList.add(e.count());
                }
                fields.put(f, flatList);
            });
            Map<String, Object> counts = new LinkedHashMap<>();
            counts.put("facet_queries", Map.of());
            counts.put("facet_fields", fields);
            counts.put("facet_ranges", Map.of());
            counts.put("facet_intervals", Map.of());
            counts.put("facet_heatmaps", Map.of());
            out.put("facet_counts", counts);
        }
        return complete(HttpResponse.create().withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON,
                Json.write(out))));
    }

    /**
     * Solr's {@code highlighting} section ({@code hl=true}): per document id, per highlighted field, the field's
     * text HTML-escaped with the query's words in {@code <em>} (Solr's {@code hl.encoder=html}, so a client that
     * renders it shows the page's text, never its markup). A field without a match is left out, as in Solr.
     */
    static Map<String, Object> highlighting(Select s, List<Map<String, Object>> docs) {
        Set<String> words = new HashSet<>();
        if (!s.q().isEmpty() && !s.q().equals("*:*")) {
            for (String w : QueryParser.parse(peerdexQuery(s.q())).highlightWords()) words.add(w.toLowerCase(Locale.ROOT));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map<String, Object> d : docs) {
            Map<String, Object> fields = new LinkedHashMap<>();
            for (String name : s.highlightFields()) {
                String marked = emphasize(String.valueOf(d.getOrDefault(FIELDS.get(name), "")), words);
                if (marked.contains("<em>")) fields.put(name, List.of(marked));
            }
            out.put(String.valueOf(d.get("id")), fields);
        }
        return out;
    }

    /** {@code text} HTML-escaped, each word of {@code words} (lower case) inside {@code <em>}. */
    static String emphasize(String text, Set<String> words) {
        StringBuilder b = new StringBuilder(text.length() + 32);
        Matcher m = WORD.matcher(text);
        int at = 0;
        while (m.find()) {
            b.append(htmlEscape(text.substring(at, m.start())));
            String w = m.group();
            boolean hit = words.contains(w.toLowerCase(Locale.ROOT));
            b.append(hit ? "<em>" : "").append(htmlEscape(w)).append(hit ? "</em>" : "");
            at = m.end();
        }
        return b.append(htmlEscape(text.substring(at))).toString();
    }

    private static String htmlEscape(String s) {
        return CompatRoutes.xml(s).replace("'", "&#39;");
    }

    private static Map<String, Object> header(int status, int qtime, Map<String, Object> echo) {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("status", status);
        h.put("QTime", qtime);
        h.put("params", echo);
        return h;
    }

    /** Solr's error shape: {@code {"responseHeader":{...}, "error":{"msg":..., "code":400}}} (XML with wt=xml). */
    private static Route error(Map<String, List<String>> params, int code, String msg, long started) {
        Map<String, Object> echo = new LinkedHashMap<>();
        params.forEach((k, v) -> echo.put(k, v.size() == 1 ? v.get(0) : v));
        String wt = first(params, "wt");
        return complete(HttpResponse.create().withStatus(StatusCodes.get(code)).withEntity(errorEntity(code, msg,
                wt == null ? "json" : wt.toLowerCase(Locale.ROOT), echo,
                (int) ((System.nanoTime() - started) / 1_000_000))));
    }

    /** The body of a Solr error: XML for {@code wt=xml}, JSON otherwise (Solr answers an unknown wt in JSON too). */
    static HttpEntity.Strict errorEntity(int code, String msg, String wt, Map<String, Object> echo, int qtime) {
        if (wt.equals("xml")) {
            StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<response>\n");
            b.append("<lst name=\"responseHeader\"><int name=\"status\">").append(code)
                    .append("</int><int name=\"QTime\">").append(qtime).append("</int></lst>\n");
            b.append("<lst name=\"error\"><arr name=\"metadata\"><str>error-class</str>")
                    .append("<str>org.apache.solr.common.SolrException</str><str>root-error-class</str>")
                    .append("<str>org.apache.solr.common.SolrException</str></arr>")
                    .append("<str name=\"msg\">").append(CompatRoutes.xml(msg)).append("</str>")
                    .append("<int name=\"code\">").append(code).append("</int></lst>\n</response>\n");
            return HttpEntities.create(MediaTypes.APPLICATION_XML.toContentType(HttpCharsets.UTF_8), b.toString());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("responseHeader", header(code, qtime, echo));
        Map<String, Object> err = new LinkedHashMap<>();
        err.put("metadata", List.of("error-class", "org.apache.solr.common.SolrException",
                "root-error-class", "org.apache.solr.common.SolrException"));
        err.put("msg", msg);
        err.put("code", code);
        out.put("error", err);
        return HttpEntities.create(ContentTypes.APPLICATION_JSON, Json.write(out));
    }

    static String xml(Select s, Answer a, List<Map<String, Object>> docs, int qtime) {
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<response>\n");
        b.append("<lst name=\"responseHeader\"><int name=\"status\">0</int><int name=\"QTime\">").append(qtime)
                .append("</int><lst name=\"params\">");
        s.echo().forEach((k, v) -> {
            if (v instanceof List<?> l) {
                b.append("<arr name=\"").append(CompatRoutes.xml(k)).append("\">");
                for (Object o : l) b.append("<str>").append(CompatRoutes.xml(String.valueOf(o))).append("</str>");
                b.append("</arr>");
            } else {
                b.append(typed(k, v));
            }
        });
        b.append("</lst></lst>\n<result name=\"response\" numFound=\"").append(a.numFound()).append("\" start=\"")
                .append(s.start()).append("\" numFoundExact=\"true\">\n");
        for (Map<String, Object> d : docs) {
            b.append("<doc>");
            d.forEach((k, v) -> b.append(k.equals("last_modified") || k.equals("date")
                    ? "<date name=\"" + k + "\">" + v + "</date>" : typed(k, v)));
            b.append("</doc>\n");
        }
        b.append("</result>\n");
        if (!s.facetFields().isEmpty()) {
            b.append("<lst name=\"facet_counts\"><lst name=\"facet_queries\"/><lst name=\"facet_fields\">");
            a.facets().forEach((f, entries) -> {
                b.append("<lst name=\"").append(CompatRoutes.xml(f)).append("\">");
                for (Navigators.Entry e : entries) {
                    b.append("<int name=\"").append(CompatRoutes.xml(e.value())).append("\">").append(e.count())
                            .append("</int>");
                }
                b.append("</lst>");
            });
            b.append("</lst><lst name=\"facet_ranges\"/><lst name=\"facet_intervals\"/><lst name=\"facet_heatmaps\"/>"
                    + "</lst>\n");
        }
        return b.append("</response>\n").toString();
    }

    private static String typed(String name, Object v) {
        String tag = v instanceof Double || v instanceof Float ? "float"
                : v instanceof Long ? "long" : v instanceof Integer ? "int" : v instanceof Boolean ? "bool" : "str";
        return "<" + tag + " name=\"" + CompatRoutes.xml(name) + "\">" + CompatRoutes.xml(String.valueOf(v)) + "</"
                + tag + ">";
    }

    private static String unquote(String v) {
        return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
    }

    private static String first(Map<String, List<String>> params, String name) {
        List<String> v = params.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    private static Map<String, String> flat(Map<String, List<String>> params, String name) {
        String v = first(params, name);
        return v == null ? Map.of() : Map.of(name, v);
    }

    private static Throwable unwrap(Throwable e) {
        while ((e instanceof java.util.concurrent.CompletionException || e instanceof java.util.concurrent.ExecutionException)
                && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
