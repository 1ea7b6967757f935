package org.peerdex.storage.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.testing.HtmlText;
import org.peerdex.storage.testing.TestPostings;
import org.peerdex.storage.text.Condenser.Condensed;
import org.peerdex.storage.text.Condenser.WordFeatures;

/** The condenser on real HTML: a page of typical technical text in the test resources, and Debian's PostgreSQL docs. */
class CondenserTest {
    /** Installed by scripts/install-test-deps.sh (package postgresql-doc-15). */
    private static final Path POSTGRES_DOCS = Path.of("/usr/share/doc/postgresql-doc-15/html");
    private static final String PAGE_URL = "https://www.postgresql.org/docs/15/runtime-config-wal.html";

    @TempDir
    Path dir;

    private static String resource(String name) throws IOException {
        try (InputStream in = CondenserTest.class.getResourceAsStream("/html/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static DocumentText page() throws IOException {
        return HtmlText.of(PAGE_URL, resource("wal-and-paths.html"), List.of("WAL configuration chapter"));
    }

    private static WordFeatures word(Condensed c, String w) {
        WordFeatures f = c.words().get(w);
        assertTrue(f != null, "the condenser yields '" + w + "'");
        return f;
    }

    @Test
    void identifiersAreIndexedWholeAndInParts() throws IOException {
        Condensed c = Condenser.condense(page());
        for (String w : List.of("min_wal_size", "min", "wal", "size", "max_wal_size", "os.path.join", "os", "path",
                "join", "pg_dump", "pg", "dump", "json.dumps", "dumps", "std::vector", "checkpoint_timeout")) {
            word(c, w);
        }
        // min_wal_size appears once in the body and once in the description (no position there)
        assertEquals(1, word(c, "min_wal_size").positions().length);
        assertTrue(word(c, "wal").hits() > word(c, "min_wal_size").hits());
    }

    @Test
    void unicodeLettersDigitsAndCaseAreHandled() throws IOException {
        Condensed c = Condenser.condense(page());
        for (String w : List.of("größe", "straße", "strasse", "café", "naïve", "résumé", "журнал", "предзаписи",
                "日", "本", "語", "预", "志", "80", "15", "15.4", "2023-08-10", "übersetzungen")) {
            word(c, w);
        }
        assertFalse(c.words().containsKey("PostgreSQL"));
        assertFalse(c.words().containsKey("Журнал"));
        word(c, "postgresql");
    }

    @Test
    void positionsPointAtTheWordInTheText() throws IOException {
        DocumentText doc = page();
        Condensed c = Condenser.condense(doc);
        List<String> plain = Tokenizer.plainWords(doc.body());
        assertEquals(plain.size(), c.wordsInText());
        for (Map.Entry<String, WordFeatures> e : c.words().entrySet()) {
            int[] pos = e.getValue().positions();
            for (int i = 1; i < pos.length; i++) assertTrue(pos[i - 1] < pos[i], "ascending: " + e.getKey());
            for (int p : pos) {
                List<String> parts = Tokenizer.plainWords(e.getKey());
                // a compound sits at its first part's position
                assertEquals(parts.get(0), plain.get(p), e.getKey() + " at " + p);
            }
        }
        int first = plain.indexOf("pg");
        assertEquals(first, word(c, "pg_dump").positions()[0]);
        assertEquals(first + 1, word(c, "dump").positions()[0]);
    }

    @Test
    void flagsTellWhereAWordAppears() throws IOException {
        Condensed c = Condenser.condense(page());
        assertTrue(has(c, "ahead", Posting.IN_TITLE) && has(c, "os.path.join", Posting.IN_TITLE));
        assertFalse(has(c, "checkpoint", Posting.IN_TITLE));
        assertTrue(has(c, "backups", Posting.IN_HEADING) && has(c, "übersetzungen", Posting.IN_HEADING));
        assertFalse(has(c, "recycled", Posting.IN_HEADING));
        assertTrue(has(c, "pg_dump", Posting.IN_EMPHASIS) && has(c, "integer", Posting.IN_EMPHASIS));
        assertTrue(has(c, "chapter", Posting.IN_ANCHOR));
        assertFalse(has(c, "megabytes", Posting.IN_ANCHOR));
        assertTrue(has(c, "runtime", Posting.IN_URL) && has(c, "config", Posting.IN_URL)
                && has(c, "postgresql", Posting.IN_URL));
        assertFalse(c.words().containsKey("html"), "the extension is not a URL word");
        assertTrue(has(c, "max_wal_size", Posting.IN_DESCRIPTION));
        assertEquals(Tokenizer.plainWords("Write-Ahead Log settings and os.path.join notes").size(), c.wordsInTitle());
        assertEquals(3, c.urlComponents());
        assertEquals(PAGE_URL.length(), c.urlLength());
    }

    private static boolean has(Condensed c, String w, int flag) {
        return (word(c, w).flags() & flag) != 0;
    }

    @Test
    void aCondensedPageIsFoundByItsIdentifiersAndTheirParts() throws IOException {
        DocumentText doc = page();
        IndexedDocument d = PostingFactory.build(TestPostings.metadata(PAGE_URL, doc.title()), doc);
        try (PeerStorage s = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            s.writer().add(d);
            s.writer().flush();
            UrlHash u = UrlHash.of(PAGE_URL);
            for (String w : List.of("pg_dump", "dump", "os.path.join", "join", "min_wal_size", "журнал", "日")) {
                List<Posting> got = s.rwi().postings(WordHash.of(w));
                assertEquals(1, got.size(), w);
                assertEquals(u, got.get(0).url());
            }
            Posting title = s.rwi().postings(WordHash.of("ahead")).get(0);
            assertTrue(title.has(Posting.IN_TITLE));
            assertEquals(Condenser.condense(doc).wordsInText(), title.wordsInText());
        }
    }

    @Test
    void realPostgresqlDocumentationPages() throws IOException {
        assumeTrue(Files.isDirectory(POSTGRES_DOCS), "PostgreSQL docs not installed (" + POSTGRES_DOCS
                + "; apt-get install postgresql-doc-15, see scripts/install-test-deps.sh): skipped");
        Path walPage = POSTGRES_DOCS.resolve("runtime-config-wal.html");
        Path dumpPage = POSTGRES_DOCS.resolve("app-pgdump.html");
        assumeTrue(Files.isRegularFile(walPage) && Files.isRegularFile(dumpPage), "pages missing: skipped");

        DocumentText wal = HtmlText.of(PAGE_URL, Files.readString(walPage), List.of());
        Condensed c = Condenser.condense(wal);
        System.out.println("condensed " + walPage + ": " + c.wordsInText() + " words in text, " + c.words().size()
                + " distinct words");
        assertTrue(c.wordsInText() > 2000, "a long page: " + c.wordsInText());
        for (String w : List.of("min_wal_size", "max_wal_size", "wal_level", "checkpoint_timeout", "min", "size",
                "fsync", "wal")) {
            word(c, w);
        }
        assertTrue(has(c, "ahead", Posting.IN_TITLE));
        List<String> plain = Tokenizer.plainWords(wal.body());
        for (int p : word(c, "min_wal_size").positions()) {
            assertEquals(List.of("min", "wal", "size"), plain.subList(p, p + 3));
        }

        String dumpUrl = "https://www.postgresql.org/docs/15/app-pgdump.html";
        DocumentText dump = HtmlText.of(dumpUrl, Files.readString(dumpPage), List.of());
        Condensed d = Condenser.condense(dump);
        assertTrue(has(d, "pg_dump", Posting.IN_TITLE));
        assertTrue(word(d, "pg_dump").hits() > 20, "hits " + word(d, "pg_dump").hits());
        assertTrue(word(d, "dump").hits() >= word(d, "pg_dump").hits());
        assertEquals(Posting.MAX_POSITIONS, word(d, "pg_dump").positions().length);
    }
}
