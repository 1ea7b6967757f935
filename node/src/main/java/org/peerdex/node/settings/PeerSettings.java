package org.peerdex.node.settings;

import com.typesafe.config.Config;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.peerdex.actors.crawl.CrawlProfile;
import org.peerdex.storage.text.Tokenizer;

/**
 * The operator's settings edited in the console ({@code GET/PUT /api/settings}): content types to index, memory
 * bounds, crawl defaults and the suggestion dictionary. Pure: parsing, validation (IllegalArgumentException with a
 * message fit for the client) and the config keys the restart-bound ones map to.
 *
 * @param contentTypes media types a crawl parses when its profile names none ({@code type/*} allowed); live
 * @param memory       LevelDB write buffer and block cache, the crawler's largest page; applied at the next start
 * @param crawl        defaults for what a crawl profile leaves out; live
 * @param suggestions  the autocomplete dictionary of {@code /suggest.json}; live
 */
public record PeerSettings(List<String> contentTypes, Memory memory, CrawlDefaults crawl, Suggestions suggestions) {
    static final Pattern MEDIA_TYPE = Pattern.compile("[a-z0-9][a-z0-9.+-]*/([a-z0-9][a-z0-9.+-]*|\\*)");
    static final int MAX_CONTENT_TYPES = 50;
    static final int MAX_WORDS = 50_000;
    static final int MAX_WORD_CHARS = 64;
    static final long KIB = 1024;
    static final long MIB = KIB * KIB;

    /** Memory bounds; each is read when the peer starts (LevelDB and the crawler size their buffers then). */
    public record Memory(long writeBufferBytes, long cacheBytes, long maxPageBytes) {}

    /** What a crawl profile gets for the fields it leaves out. */
    public record CrawlDefaults(int depth, long minDelayMs, long maxPages) {}

    /**
     * Completions: words of the index's titles seen at least {@code minFrequency} times (when {@code fromIndex}),
     * plus the operator's word list.
     */
    public record Suggestions(boolean fromIndex, int minFrequency, List<String> words) {}

    public PeerSettings {
        contentTypes = List.copyOf(contentTypes);
        suggestions = new Suggestions(suggestions.fromIndex(), suggestions.minFrequency(), List.copyOf(suggestions.words()));
    }

    /** The settings a peer has before the operator saved any: what its config says. */
    public static PeerSettings defaults(Config root) {
        Config c = root.getConfig("peerdex");
        return new PeerSettings(CrawlProfile.DEFAULT_CONTENT_TYPES,
                new Memory(c.getBytes("index.write-buffer-bytes"), c.getBytes("index.cache-bytes"),
                        c.getBytes("crawler.max-body-bytes")),
                new CrawlDefaults(3, c.getDuration("crawler.min-delay").toMillis(), 10_000L),
                new Suggestions(true, 1, List.of()));
    }

    /**
     * These settings with the given JSON object applied: a section or key left out keeps its value; an unknown key
     * or a bad value throws IllegalArgumentException naming it.
     */
    public PeerSettings with(Map<String, ?> body) {
        if (body == null) throw new IllegalArgumentException("settings must be a JSON object");
        known(body, "", Set.of("contentTypes", "memory", "crawl", "suggestions", "restartRequired", "applied", "running"));
        List<String> types = body.containsKey("contentTypes") ? contentTypes(body.get("contentTypes")) : contentTypes;
        Memory m = memory;
        if (body.get("memory") != null) {
            Map<String, ?> s = section(body, "memory", Set.of("writeBufferBytes", "cacheBytes", "maxPageBytes"));
            m = new Memory(
                    number(s, "memory.writeBufferBytes", m.writeBufferBytes(), 64 * KIB, 1024 * MIB),
                    number(s, "memory.cacheBytes", m.cacheBytes(), 0, 16 * 1024 * MIB),
                    number(s, "memory.maxPageBytes", m.maxPageBytes(), 4 * KIB, 256 * MIB));
        }
        CrawlDefaults cd = crawl;
        if (body.get("crawl") != null) {
            Map<String, ?> s = section(body, "crawl", Set.of("depth", "minDelayMs", "maxPages"));
            cd = new CrawlDefaults((int) number(s, "crawl.depth", cd.depth(), 0, 1000),
                    number(s, "crawl.minDelayMs", cd.minDelayMs(), 0, 3_600_000),
                    number(s, "crawl.maxPages", cd.maxPages(), 0, 1_000_000_000));
        }
        Suggestions sg = suggestions;
        if (body.get("suggestions") != null) {
            Map<String, ?> s = section(body, "suggestions", Set.of("fromIndex", "minFrequency", "words"));
            Object from = s.get("fromIndex");
            if (from != null && !(from instanceof Boolean)) throw new IllegalArgumentException("suggestions.fromIndex must be true or false");
            sg = new Suggestions(from == null ? sg.fromIndex() : (Boolean) from,
                    (int) number(s, "suggestions.minFrequency", sg.minFrequency(), 1, 1_000_000),
                    s.containsKey("words") ? words(s.get("words")) : sg.words());
        }
        return new PeerSettings(types, m, cd, sg);
    }

    /** The JSON shape of GET /api/settings (without the running/restart information the routes add). */
    public Map<String, Object> toJson() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("contentTypes", contentTypes);
        out.put("memory", Map.of("writeBufferBytes", memory.writeBufferBytes(), "cacheBytes", memory.cacheBytes(),
                "maxPageBytes", memory.maxPageBytes()));
        out.put("crawl", Map.of("depth", crawl.depth(), "minDelayMs", crawl.minDelayMs(), "maxPages", crawl.maxPages()));
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("fromIndex", suggestions.fromIndex());
        s.put("minFrequency", suggestions.minFrequency());
        s.put("words", suggestions.words());
        out.put("suggestions", s);
        return out;
    }

    /** The config keys the restart-bound settings set (laid over the config when the peer starts). */
    public Map<String, Object> configOverlay() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("peerdex.index.write-buffer-bytes", memory.writeBufferBytes());
        out.put("peerdex.index.cache-bytes", memory.cacheBytes());
        out.put("peerdex.crawler.max-body-bytes", memory.maxPageBytes());
        return out;
    }

    /**
     * A crawl profile's JSON object with the defaults put in for the fields it leaves out (or sets to null), so
     * that {@link CrawlProfile}'s own defaults apply only where these settings say nothing.
     */
    public Map<String, Object> withCrawlDefaults(Map<String, Object> profile) {
        Map<String, Object> out = new LinkedHashMap<>(profile);
        out.computeIfAbsent("depth", k -> crawl.depth());
        out.computeIfAbsent("minDelayMs", k -> crawl.minDelayMs());
        out.computeIfAbsent("maxPages", k -> crawl.maxPages());
        Object types = out.get("contentTypes");
        if (types == null || types instanceof List<?> l && l.isEmpty()) out.put("contentTypes", contentTypes);
        return out;
    }

    private static void known(Map<String, ?> m, String prefix, Set<String> keys) {
        for (String k : m.keySet()) {
            if (!keys.contains(k)) {
                throw new IllegalArgumentException("unknown setting '" + prefix + k + "'; known: " + String.join(", ",
                        new TreeSet<>(keys).stream().map(x -> prefix + x).toList()));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, ?> section(Map<String, ?> body, String name, Set<String> keys) {
        if (!(body.get(name) instanceof Map<?, ?> m)) throw new IllegalArgumentException(name + " must be a JSON object");
        known((Map<String, ?>) m, name + ".", keys);
        return (Map<String, ?>) m;
    }

    private static long number(Map<String, ?> s, String key, long current, long min, long max) {
        Object v = s.get(key.substring(key.indexOf('.') + 1));
        if (v == null) return current;
        long n;
        if (v instanceof Number num && num.doubleValue() == Math.rint(num.doubleValue())) {
            n = num.longValue();
        } else {
            throw new IllegalArgumentException(key + " must be a whole number, not " + quote(v));
        }
        if (n < min || n > max) throw new IllegalArgumentException(key + " must be in " + min + ".." + max + ", not " + n);
        return n;
    }

    private static List<String> contentTypes(Object v) {
        if (!(v instanceof List<?> list)) throw new IllegalArgumentException("contentTypes must be a list of media types");
        if (list.isEmpty()) throw new IllegalArgumentException("contentTypes must name at least one media type");
        if (list.size() > MAX_CONTENT_TYPES) {
            throw new IllegalArgumentException("contentTypes takes at most " + MAX_CONTENT_TYPES + " media types");
        }
        Set<String> out = new LinkedHashSet<>();
        for (Object o : list) {
            String t = o == null ? "" : o.toString().trim().toLowerCase(Locale.ROOT);
            if (!MEDIA_TYPE.matcher(t).matches()) {
                throw new IllegalArgumentException("not a media type (type/subtype or type/*): " + quote(o));
            }
            out.add(t);
        }
        return List.copyOf(out);
    }

    private static List<String> words(Object v) {
        if (!(v instanceof List<?> list)) throw new IllegalArgumentException("suggestions.words must be a list of words");
        if (list.size() > MAX_WORDS) throw new IllegalArgumentException("suggestions.words takes at most " + MAX_WORDS + " words");
        Set<String> out = new LinkedHashSet<>();
        for (Object o : list) {
            String w = o == null ? "" : Tokenizer.normalize(o.toString()).trim();
            if (w.isEmpty()) continue;
            if (w.length() > MAX_WORD_CHARS) {
                throw new IllegalArgumentException("suggestions.words: longer than " + MAX_WORD_CHARS + " characters: " + quote(o));
            }
            out.add(w);
        }
        return new ArrayList<>(out);
    }

    private static String quote(Object v) {
        String s = String.valueOf(v);
        return "'" + (s.length() > 80 ? s.substring(0, 80) + "…" : s) + "'";
    }
}
