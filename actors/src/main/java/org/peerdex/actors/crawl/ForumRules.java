package org.peerdex.actors.crawl;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.peerdex.protocol.url.UrlNormalizer;

/**
 * URL rules that make a forum crawlable: follow the board index, forum and topic pages (with their page offsets),
 * strip session ids, and skip the variants that turn a forum into a crawler trap — reply, quote and posting forms,
 * print views, next/previous-topic views, sort orders, search-hit highlighting, post permalinks that repeat a
 * topic page, member, login, search and "who is online" pages. {@link #PHPBB} is the phpBB3 set; it is also a
 * named crawl profile preset ({@link #profile()}) for the crawler's must-match / must-not-match filters.
 */
public final class ForumRules {
    /** phpBB 3.x (also fits the phpBB 2 page names). */
    public static final ForumRules PHPBB = new ForumRules("phpbb",
            Set.of("index.php", "viewforum.php", "viewtopic.php"),
            Set.of("sid"),
            Set.of("sk", "sd", "st", "view", "p", "hilit", "mark", "watch", "unwatch", "bookmark", "e", "mode",
                    "highlight", "postdays", "postorder", "hash", "uid", "search_id", "action"),
            Set.of("f", "t", "start"));

    private final String name;
    private final Set<String> pages;
    private final Set<String> stripped;
    private final Set<String> traps;
    private final Set<String> kept;

    private ForumRules(String name, Set<String> pages, Set<String> stripped, Set<String> traps, Set<String> kept) {
        this.name = name;
        this.pages = pages;
        this.stripped = stripped;
        this.traps = traps;
        this.kept = kept;
    }

    public String name() {
        return name;
    }

    /**
     * The URL to fetch for a link, session ids stripped and parameters in a fixed order, or empty if the link is a
     * trap variant or not a forum page at all.
     */
    public Optional<String> canonical(String url) {
        URI u;
        try {
            u = new URI(url);
        } catch (URISyntaxException e) {
            return Optional.empty();
        }
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        String file = path.substring(path.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
        if (!file.isEmpty() && !pages.contains(file)) return Optional.empty();
        Map<String, String> params = new LinkedHashMap<>();
        String q = u.getRawQuery();
        if (q != null) {
            for (String pair : q.split("[&;]")) {
                if (pair.isEmpty()) continue;
                int eq = pair.indexOf('=');
                String k = (eq < 0 ? pair : pair.substring(0, eq)).toLowerCase(Locale.ROOT);
                String v = eq < 0 ? "" : pair.substring(eq + 1);
                if (stripped.contains(k)) continue;
                if (traps.contains(k)) return Optional.empty();
                if (!kept.contains(k)) return Optional.empty(); // an unknown parameter: a variant we do not know
                if (k.equals("start") && (v.equals("0") || v.isEmpty())) continue; // page 1 again
                params.put(k, v);
            }
        }
        if (file.equals("viewtopic.php") && !params.containsKey("t")) return Optional.empty();
        if (file.equals("viewforum.php") && !params.containsKey("f")) return Optional.empty();
        if (file.equals("viewtopic.php")) params.remove("f"); // t alone names the topic; f=&t= is the same page
        List<String> order = new ArrayList<>(List.of("f", "t", "start"));
        StringBuilder b = new StringBuilder();
        for (String k : order) {
            if (params.containsKey(k)) b.append(b.length() == 0 ? "?" : "&").append(k).append('=').append(params.get(k));
        }
        String base = u.getScheme() + "://" + u.getRawAuthority() + path;
        return UrlNormalizer.normalize(base + b);
    }

    /** Regular expressions for a crawl profile: what must match and what must not (after session ids are stripped). */
    public String mustMatch() {
        return ".*/((" + String.join("|", pages.stream().sorted().map(Pattern::quote).toList()) + ")([?#].*)?)?$";
    }

    public String mustNotMatch() {
        return ".*[?&](" + String.join("|", traps.stream().sorted().toList()) + ")=.*";
    }

    /** The named crawl profile preset (the shape of POST /api/crawl's filters). */
    public Map<String, Object> profile() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("preset", name);
        m.put("range", "site");
        m.put("followQuery", true);
        m.put("mustMatch", mustMatch());
        m.put("mustNotMatch", mustNotMatch());
        m.put("stripParameters", stripped.stream().sorted().toList());
        m.put("keepParameters", kept.stream().sorted().toList());
        return m;
    }

    /** The named presets. */
    public static Optional<ForumRules> preset(String name) {
        return PHPBB.name.equalsIgnoreCase(name) ? Optional.of(PHPBB) : Optional.empty();
    }
}
