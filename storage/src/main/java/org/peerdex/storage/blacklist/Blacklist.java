package org.peerdex.storage.blacklist;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;

/**
 * The peer's blacklist: regex host/path rules per scope (crawler, dht, search, proxy), kept in the store's
 * {@link Keyspace#BLACKLIST} keyspace and compiled in memory. Any code that fetches, accepts, shows or serves a
 * URL asks {@link #blocks} or {@link #match}; thread-safe (reads see a consistent snapshot, writes are durable).
 */
public final class Blacklist {
    /** At most this many rules (each regex runs on every checked URL). */
    public static final int MAX_RULES = 10_000;
    private static final byte SEP = 0;

    private record Compiled(BlacklistRule rule, Pattern host, Pattern path) {}

    private final KeyValueStore store;
    private volatile List<BlacklistRule> rules;
    private volatile Map<BlacklistRule.Scope, List<Compiled>> byScope;

    public Blacklist(KeyValueStore store) {
        this.store = store;
        install(load());
    }

    /** Every rule, in scope then host order. */
    public List<BlacklistRule> rules() {
        return rules;
    }

    /** Whether no rule has this scope (asked on every write a holder takes: no list is made). */
    public boolean isEmpty(BlacklistRule.Scope scope) {
        return byScope.get(scope).isEmpty();
    }

    public List<BlacklistRule> rules(BlacklistRule.Scope scope) {
        return byScope.get(scope).stream().map(Compiled::rule).toList();
    }

    /** Replaces the whole blacklist (duplicates collapse) and writes it durably. */
    public synchronized void replace(List<BlacklistRule> newRules) {
        Set<BlacklistRule> unique = new LinkedHashSet<>(newRules);
        if (unique.size() > MAX_RULES) throw new IllegalArgumentException("more than " + MAX_RULES + " rules");
        KeyValueStore.Batch b = store.newBatch();
        byte[] prefix = {Keyspace.BLACKLIST};
        try (KeyValueStore.Cursor c = store.scanPrefix(prefix)) {
            while (c.next()) b.delete(c.key());
        }
        for (BlacklistRule r : unique) b.put(key(r), new byte[0]);
        store.write(b, true);
        install(load());
    }

    /** Adds rules to those there are. */
    public synchronized void addAll(List<BlacklistRule> more) {
        List<BlacklistRule> all = new ArrayList<>(rules);
        all.addAll(more);
        replace(all);
    }

    /** Removes every rule of a scope. */
    public synchronized void clear(BlacklistRule.Scope scope) {
        replace(rules.stream().filter(r -> r.scope() != scope).toList());
    }

    /** The first rule of {@code scope} that blocks {@code url}; empty if none does (or the URL has no host). */
    public Optional<BlacklistRule> match(BlacklistRule.Scope scope, String url) {
        List<Compiled> list = byScope.get(scope);
        if (list.isEmpty() || url == null) return Optional.empty();
        String host;
        String bare;
        try {
            URI u = URI.create(url.trim());
            host = u.getHost();
            String p = u.getRawPath() == null ? "" : u.getRawPath();
            bare = (p.startsWith("/") ? p.substring(1) : p) + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (host == null) return Optional.empty();
        // YaCy matches the path without its leading slash, and people write rules with it ("/library/.*"): a rule
        // that silently matched nothing blocked nothing, so both forms match (tried only where the host matched)
        String slashed = "/" + bare;
        for (Compiled c : list) {
            if (c.host().matcher(host).matches()
                    && (c.path().matcher(bare).matches() || c.path().matcher(slashed).matches())) {
                return Optional.of(c.rule());
            }
        }
        return Optional.empty();
    }

    public boolean blocks(BlacklistRule.Scope scope, String url) {
        return match(scope, url).isPresent();
    }

    /** Every scope's first matching rule for a URL (the "would this be blocked?" box). */
    public Map<BlacklistRule.Scope, BlacklistRule> test(String url) {
        Map<BlacklistRule.Scope, BlacklistRule> out = new EnumMap<>(BlacklistRule.Scope.class);
        for (BlacklistRule.Scope s : BlacklistRule.Scope.values()) match(s, url).ifPresent(r -> out.put(s, r));
        return out;
    }

    /**
     * Parses a shared blacklist file (YaCy's format: one {@code host/path-regex} a line; blank lines and lines
     * starting with {@code #} are skipped) into rules for each of {@code scopes}. A bad line fails the whole file,
     * naming the line.
     */
    public static List<BlacklistRule> parseFile(String text, Set<BlacklistRule.Scope> scopes) {
        List<BlacklistRule> out = new ArrayList<>();
        String[] lines = text.split("\r?\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].trim();
            if (line.isEmpty() || line.startsWith("#")) continue;
            for (BlacklistRule.Scope s : scopes) {
                try {
                    out.add(BlacklistRule.parseLine(s, line));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("line " + (i + 1) + ": " + e.getMessage());
                }
            }
        }
        return out;
    }

    /** The rules of one scope as a shared blacklist file. */
    public String export(BlacklistRule.Scope scope) {
        StringBuilder b = new StringBuilder("# Peerdex blacklist, scope " + scope.key()
                + "; one host/path-regex a line (YaCy format)\n");
        for (BlacklistRule r : rules(scope)) b.append(r.line()).append('\n');
        return b.toString();
    }

    private void install(List<BlacklistRule> loaded) {
        Map<BlacklistRule.Scope, List<Compiled>> m = new EnumMap<>(BlacklistRule.Scope.class);
        for (BlacklistRule.Scope s : BlacklistRule.Scope.values()) m.put(s, new ArrayList<>());
        for (BlacklistRule r : loaded) m.get(r.scope()).add(new Compiled(r, r.hostPattern(), r.pathPattern()));
        m.replaceAll((s, l) -> List.copyOf(l));
        byScope = m;
        rules = List.copyOf(loaded);
    }

    private List<BlacklistRule> load() {
        List<BlacklistRule> out = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.BLACKLIST})) {
            while (c.next()) {
                BlacklistRule r = decode(c.key());
                if (r != null) out.add(r);
            }
        }
        return out;
    }

    /** {@code 'b' ‖ scope ‖ 0 ‖ host ‖ 0 ‖ path}: unique per rule, listed in scope then host order. */
    static byte[] key(BlacklistRule r) {
        return Keys.of(Keyspace.BLACKLIST, r.scope().key().getBytes(StandardCharsets.UTF_8), new byte[] {SEP},
                r.host().getBytes(StandardCharsets.UTF_8), new byte[] {SEP}, r.path().getBytes(StandardCharsets.UTF_8));
    }

    private static BlacklistRule decode(byte[] key) {
        String s = new String(key, 1, key.length - 1, StandardCharsets.UTF_8);
        String[] parts = s.split("\u0000", 3);
        if (parts.length != 3) return null;
        try {
            return new BlacklistRule(BlacklistRule.Scope.parse(parts[0]), parts[1], parts[2]);
        } catch (IllegalArgumentException e) {
            return null; // an entry written by a newer version with a scope this one does not know
        }
    }
}
