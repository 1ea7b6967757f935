package org.peerdex.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The known-item query files as {@link KnownItemBenchmark} reads them: each pairs a query with a page of its corpus
 * (checked against the documentation package on disk when it is installed), no page lies under the path the
 * corpus's robots.txt disallows (the crawler never fetches it), and no query is listed twice.
 */
class KnownItemQueriesTest {
    @Test
    void postgresQueriesNameRealPagesOutsideTheDisallowedPath() throws Exception {
        check("bench/postgres-known-items.tsv", Path.of("/usr/share/doc/postgresql-doc-15/html"), "release", 80);
    }

    @Test
    void pythonQueriesNameRealPagesOutsideTheDisallowedPath() throws Exception {
        check("bench/python-known-items.tsv", Path.of("/usr/share/doc/python3.11/html"), "whatsnew/", 80);
    }

    private static void check(String resource, Path root, String disallowed, int atLeast) throws Exception {
        List<KnownItemBenchmark.KnownItem> items = KnownItemBenchmark.read(resource);
        assertTrue(items.size() >= atLeast, resource + ": " + items.size() + " queries");
        Set<String> queries = new HashSet<>();
        for (KnownItemBenchmark.KnownItem k : items) {
            assertTrue(queries.add(k.query()), "listed twice: " + k.query());
            assertFalse(k.query().isBlank() || k.path().isBlank(), k.toString());
            assertFalse(k.path().startsWith(disallowed), "disallowed by robots.txt: " + k.path());
            if (Files.isDirectory(root)) {
                assertTrue(Files.isRegularFile(root.resolve(k.path())), "no such page: " + k.path());
            }
        }
        assertEquals(items.size(), queries.size());
    }
}
