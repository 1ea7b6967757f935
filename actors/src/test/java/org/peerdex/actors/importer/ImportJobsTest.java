package org.peerdex.actors.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;

/** Jobs on a real LevelDB: counts, failure keeps what was imported, history survives a restart, stop. */
class ImportJobsTest {
    static ImportProgress await(ImportJobs jobs, String id) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            ImportProgress p = jobs.get(id).orElseThrow();
            if (!p.running()) return p;
            if (System.nanoTime() > deadline) throw new AssertionError("still running: " + p);
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
        }
    }

    @Test
    void aFailedImportKeepsItsDocumentsAndTheHistorySurvivesARestart() throws Exception {
        Path dir = Files.createTempDirectory("peerdex-import-jobs");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        String id;
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            ImportJobs jobs = new ImportJobs(storage, pool, 100, null);
            id = jobs.start(ImportKind.OAI_PMH, "http://r.test/oai", ctx -> {
                ctx.document(ImportedDocument.text("http://r.test/1", "First", "alpha record", 0));
                ctx.document(ImportedDocument.text("ftp://r.test/2", "Bad", "not http", 0));
                ctx.document(ImportedDocument.text("http://r.test/3", "Third", "gamma record", 0));
                throw new java.io.IOException("malformed OAI-PMH response, line 9, column 3: boom");
            }).id();
            ImportProgress p = await(jobs, id);
            assertEquals("failed", p.state());
            assertEquals(2, p.imported());
            assertEquals(1, p.errors());
            assertEquals("malformed OAI-PMH response, line 9, column 3: boom", p.error());
            assertTrue(p.recentErrors().get(0).contains("not an http(s) URL"), p.toString());
            assertEquals(2, storage.metadata().count(), "documents before the failure were flushed");
            jobs.close();
        }
        try (PeerStorage storage = PeerStorage.openLevelDb(dir, new Partitions(4))) {
            ImportJobs jobs = new ImportJobs(storage, pool, 100, null);
            ImportProgress h = jobs.get(id).orElseThrow();
            assertEquals("failed", h.state());
            assertEquals(2, h.imported());
            assertEquals(1, jobs.list("http://r.test/oai").size());
            assertEquals(0, jobs.list("http://other.test/").size());
            assertEquals(2, storage.metadata().count());
            // a new id is not one of the history's
            String next = jobs.start(ImportKind.RSS, "http://f.test/feed", ctx -> { }).id();
            assertTrue(!next.equals(id));
            jobs.close();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aStoppedImportEndsAsStopped() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (PeerStorage storage = PeerStorage.inMemory(new Partitions(4))) {
            ImportJobs jobs = new ImportJobs(storage, pool, 10, null);
            java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
            String id = jobs.start(ImportKind.MEDIAWIKI, "file:/dump.xml", ctx -> {
                int i = 0;
                while (!ctx.stopped()) {
                    ctx.document(ImportedDocument.text("http://w.test/" + i++, "P", "text", 0));
                    running.countDown();
                }
            }).id();
            running.await();
            assertTrue(jobs.stop(id).isPresent());
            ImportProgress p = await(jobs, id);
            assertEquals("stopped", p.state());
            assertTrue(p.imported() >= 1);
            assertEquals(p.imported(), storage.metadata().count(), "everything counted was flushed");
            jobs.close();
        } finally {
            pool.shutdownNow();
        }
    }
}
