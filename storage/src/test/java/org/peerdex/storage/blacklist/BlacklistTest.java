package org.peerdex.storage.blacklist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.storage.blacklist.BlacklistRule.Scope;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.LevelDbStore;

/** Blacklist rules on a real LevelDB: matching by scope, host and path, persistence, the shared file format. */
class BlacklistTest {
    @TempDir
    Path dir;

    @Test
    void aHostRuleBlocksOnlyInItsScope() {
        try (KeyValueStore store = LevelDbStore.open(dir.resolve("db"), 1 << 20)) {
            Blacklist b = new Blacklist(store);
            b.replace(List.of(new BlacklistRule(Scope.SEARCH, "spam\\.example\\.org", "")));
            assertTrue(b.blocks(Scope.SEARCH, "http://spam.example.org/any/page.html"));
            assertTrue(b.blocks(Scope.SEARCH, "https://SPAM.example.org/"));
            assertFalse(b.blocks(Scope.CRAWLER, "http://spam.example.org/any/page.html"));
            assertFalse(b.blocks(Scope.SEARCH, "http://example.org/any/page.html"));
        }
    }

    @Test
    void aPathRuleMatchesThePathWithoutItsLeadingSlashAndTheQuery() {
        try (KeyValueStore store = LevelDbStore.open(dir.resolve("db"), 1 << 20)) {
            Blacklist b = new Blacklist(store);
            b.replace(List.of(new BlacklistRule(Scope.CRAWLER, "*.example.org", "private/.*"),
                    new BlacklistRule(Scope.CRAWLER, "shop.test", ".*\\?session=.*")));
            assertEquals("private/.*", b.match(Scope.CRAWLER, "http://www.example.org/private/a.html").orElseThrow().path());
            assertTrue(b.blocks(Scope.CRAWLER, "http://example.org/private/"), "*. matches the bare domain too");
            assertFalse(b.blocks(Scope.CRAWLER, "http://www.example.org/public/private/a.html"));
            assertTrue(b.blocks(Scope.CRAWLER, "http://shop.test/cart?session=42"));
            assertFalse(b.blocks(Scope.CRAWLER, "http://shop.test/cart"));
            assertFalse(b.blocks(Scope.CRAWLER, "not a url"));
        }
    }

    @Test
    void aPathRuleWrittenWithItsLeadingSlashMatchesTooInEveryScope() {
        try (KeyValueStore store = LevelDbStore.open(dir.resolve("db"), 1 << 20)) {
            Blacklist b = new Blacklist(store);
            for (Scope scope : Scope.values()) {
                b.replace(List.of(new BlacklistRule(scope, "*.example.org", "/library/.*"),
                        new BlacklistRule(scope, "shop.test", "/cart\\?session=.*"),
                        new BlacklistRule(scope, "root.test", "/")));
                assertEquals("/library/.*", b.match(scope, "http://www.example.org/library/book.html")
                        .orElseThrow(() -> new AssertionError(scope + ": /library/.* blocked nothing")).path());
                assertTrue(b.blocks(scope, "http://example.org/library/"), scope.key());
                assertFalse(b.blocks(scope, "http://example.org/public/library/book.html"), scope.key());
                assertFalse(b.blocks(scope, "http://example.org/librarian"), scope.key());
                assertTrue(b.blocks(scope, "http://shop.test/cart?session=42"), scope.key());
                assertFalse(b.blocks(scope, "http://shop.test/cart"), scope.key());
                assertTrue(b.blocks(scope, "http://root.test/"), scope.key());
                assertTrue(b.blocks(scope, "http://root.test"), scope.key());
                assertFalse(b.blocks(scope, "http://root.test/page"), scope.key());
                // the other scopes are untouched
                for (Scope other : Scope.values()) {
                    if (other != scope) assertFalse(b.blocks(other, "http://www.example.org/library/book.html"));
                }
            }
            // and a shared file line "host//path" (the path keeps its slash) reads the same
            b.replace(Blacklist.parseFile("example.org//library/.*\n", Set.of(Scope.SEARCH)));
            assertTrue(b.blocks(Scope.SEARCH, "http://example.org/library/book.html"));
        }
    }

    @Test
    void rulesSurviveReopeningTheStore() {
        try (KeyValueStore store = LevelDbStore.open(dir.resolve("db"), 1 << 20)) {
            new Blacklist(store).replace(List.of(new BlacklistRule(Scope.DHT, "bad\\.test", "x/.*"),
                    new BlacklistRule(Scope.PROXY, "ads\\..*", "")));
        }
        try (KeyValueStore store = LevelDbStore.open(dir.resolve("db"), 1 << 20)) {
            Blacklist b = new Blacklist(store);
            assertEquals(2, b.rules().size());
            assertTrue(b.blocks(Scope.DHT, "http://bad.test/x/y"));
            assertTrue(b.blocks(Scope.PROXY, "http://ads.tracker.test/"));
            b.clear(Scope.DHT);
            assertEquals(List.of(Scope.PROXY), b.rules().stream().map(BlacklistRule::scope).toList());
        }
    }

    @Test
    void aSharedFileImportsIntoEveryChosenScopeAndExportsBack() {
        String file = "# shared list\n\nspam.test/.*\n*.ads.test\nhttp://tracker.test/pixel\\.gif\n";
        List<BlacklistRule> rules = Blacklist.parseFile(file, EnumSet.of(Scope.SEARCH, Scope.DHT));
        assertEquals(6, rules.size());
        try (KeyValueStore store = LevelDbStore.open(dir.resolve("db"), 1 << 20)) {
            Blacklist b = new Blacklist(store);
            b.replace(rules);
            assertTrue(b.blocks(Scope.DHT, "http://x.ads.test/banner"));
            assertTrue(b.blocks(Scope.SEARCH, "http://tracker.test/pixel.gif"));
            String exported = b.export(Scope.SEARCH);
            assertTrue(exported.contains("\n*.ads.test/.*\n"), exported);
            assertEquals(3, Blacklist.parseFile(exported, Set.of(Scope.SEARCH)).size());
        }
    }

    @Test
    void aBadRegexIsRefusedNamingTheLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Blacklist.parseFile("ok.test\nbad.test/(unclosed\n", Set.of(Scope.SEARCH)));
        assertTrue(e.getMessage().startsWith("line 2:"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new BlacklistRule(Scope.SEARCH, "", ".*"));
        assertThrows(IllegalArgumentException.class, () -> BlacklistRule.Scope.parse("mail"));
    }
}
