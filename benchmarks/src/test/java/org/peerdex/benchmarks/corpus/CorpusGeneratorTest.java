package org.peerdex.benchmarks.corpus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.importer.ImportInput;
import org.peerdex.actors.importer.ImportJobs;
import org.peerdex.actors.importer.ImportKind;
import org.peerdex.actors.importer.ImportProgress;
import org.peerdex.actors.importer.MediaWikiDump;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;

class CorpusGeneratorTest {
    private static final int PAGES = 150;

    /** A small real HTML corpus: the generator reads sentences, titles and identifiers from files like these. */
    private static Path corpus(Path dir) throws Exception {
        Path root = Files.createDirectories(dir.resolve("html"));
        String[] topics = {"vacuum", "replication", "tablespace", "checkpoint", "tokenizer"};
        for (int i = 0; i < topics.length; i++) {
            Files.writeString(root.resolve("page" + i + ".html"), "<html><head><title>Chapter " + i + ". The "
                    + topics[i] + " manual</title></head><body><h2>Using " + topics[i] + " & friends</h2>"
                    + "<p>The " + topics[i] + " process reclaims storage occupied by dead tuples. Call pg_stat_activity "
                    + "to see what runs now. The os.path.join function joins <paths> safely in most cases.</p>"
                    + "<li>Each " + topics[i] + " worker writes its own log file before it exits cleanly.</li>"
                    + "<p>Settings like maxWorkerProcesses control how many workers are started by the server.</p>"
                    + "</body></html>", StandardCharsets.UTF_8);
        }
        return root;
    }

    @Test
    void theSameSeedWritesTheSameDumpAndAnotherSeedAnother(@TempDir Path dir) throws Exception {
        CorpusGenerator g = CorpusGenerator.load(List.of(corpus(dir)), 100);
        assertTrue(g.sentenceCount() >= 10, "sentences: " + g.sentenceCount());
        ByteArrayOutputStream a = new ByteArrayOutputStream();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        ByteArrayOutputStream c = new ByteArrayOutputStream();
        g.write(a, 42, 50);
        CorpusGenerator.load(List.of(corpus(dir)), 100).write(b, 42, 50);
        g.write(c, 43, 50);
        assertArrayEquals(a.toByteArray(), b.toByteArray());
        assertFalse(a.toString(StandardCharsets.UTF_8).equals(c.toString(StandardCharsets.UTF_8)));
        String page = g.page(42, 7, 50);
        assertTrue(page.contains("[[") && page.contains("{{Infobox"), page);
    }

    @Test
    void theDumpImportsThroughTheMediaWikiImporterAndIsSearchable(@TempDir Path dir) throws Exception {
        CorpusGenerator g = CorpusGenerator.load(List.of(corpus(dir)), 100);
        Path dump = dir.resolve("dump.xml");
        try (var out = Files.newOutputStream(dump)) {
            g.write(out, 7, PAGES);
        }
        List<String> titles = new ArrayList<>();
        try (InputStream in = Files.newInputStream(dump)) {
            MediaWikiDump.read(in, i -> { }, p -> titles.add(p.title()), () -> false);
        }
        assertEquals(PAGES, titles.size());
        assertEquals(PAGES, titles.stream().distinct().count(), "titles name one page each");

        ExecutorService pool = Executors.newFixedThreadPool(1);
        try (PeerStorage storage = PeerStorage.openLevelDb(dir.resolve("node"), new Partitions(4))) {
            ImportJobs jobs = new ImportJobs(storage, pool, 100, null);
            String id = jobs.start(ImportKind.MEDIAWIKI, "generated", MediaWikiDump.source(new ImportInput.File(dump),
                    null, false)).id();
            ImportProgress p;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while ((p = jobs.get(id).orElseThrow()).running() && System.nanoTime() < deadline) LockSupport.parkNanos(5_000_000);
            jobs.close();
            assertEquals("finished", p.state(), String.valueOf(p.error()));
            assertEquals(PAGES, p.imported());
            assertEquals(PAGES, storage.stats().documents());
            // words of the real sentences and real identifiers are in the index
            assertTrue(storage.rwi().count(WordHash.of("tuples")) > 0);
            assertTrue(storage.rwi().count(WordHash.of("worker")) > 0);
            assertTrue(storage.rwi().count(WordHash.of("pg_stat_activity")) > 0);
        } finally {
            pool.shutdownNow();
        }
    }
}
