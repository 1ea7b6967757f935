package org.peerdex.storage.durability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.testing.TestPostings;

/**
 * An acknowledged write survives kill -9: a child JVM indexes documents and acknowledges each flush; it is killed
 * with SIGKILL while writing, and every acknowledged document (metadata and postings) must be there on reopen.
 */
class KillNineDurabilityTest {
    private static final int ROUNDS = 3;

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedDocumentSurvivesSigkillOfTheWriter() throws Exception {
        Path data = dir.resolve("data");
        int next = 0;
        int acknowledged = -1;
        for (int round = 0; round < ROUNDS; round++) {
            // let each round run a different number of flushes so the kill lands at different moments
            int wantAcks = 15 + 10 * round;
            int lastAck = runAndKill(data, next, wantAcks, round);
            assertTrue(lastAck >= next, "the child acknowledged documents in round " + round);
            acknowledged = lastAck;
            try (PeerStorage s = PeerStorage.openLevelDb(data, new Partitions(4))) {
                for (int n = 0; n <= acknowledged; n++) assertDocumentPresent(s, n);
                // the whole store reads back: every posting and every metadata record decodes
                long[] postings = {0};
                s.rwi().scanAll(p -> postings[0]++);
                long[] docs = {0};
                s.metadata().scanAll(m -> docs[0]++);
                assertEquals(s.stats().postings(), postings[0]);
                assertTrue(docs[0] >= acknowledged + 1, "documents " + docs[0] + " >= " + (acknowledged + 1));
                assertEquals(docs[0], s.stats().documents());
                next = (int) docs[0];
                System.out.println("kill -9 round " + round + ": " + (acknowledged + 1) + " acknowledged, "
                        + docs[0] + " documents and " + postings[0] + " postings after reopen");
            }
        }
    }

    private static void assertDocumentPresent(PeerStorage s, int n) {
        IndexedDocument expected = TestPostings.document(n);
        UrlHash url = expected.metadata().urlHash();
        UrlMetadata meta = s.metadata().get(url).orElse(null);
        if (meta == null) fail("acknowledged document " + n + " lost its metadata");
        assertEquals(expected.metadata(), meta);
        assertEquals(expected.postings().size(), s.rwi().wordsOf(url).size(), "postings of document " + n);
        List<Posting> own = s.rwi().postings(WordHash.of("doc" + n + "word"));
        assertEquals(1, own.size(), "the unique word of document " + n);
        assertEquals(url, own.get(0).url());
    }

    /** Starts the child, waits for {@code wantAcks} acknowledgements, kills it with SIGKILL; returns the last ACK. */
    private int runAndKill(Path data, int first, int wantAcks, int round) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path err = dir.resolve("child-" + round + ".err");
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                IndexingChild.class.getName(), data.toString(), Integer.toString(first));
        pb.redirectError(err.toFile());
        Process child = pb.start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) lines.add(line);
            } catch (IOException ignored) {
                // the child was killed
            }
        }, "child-stdout");
        reader.setDaemon(true);
        reader.start();
        int acks = 0;
        int lastAck = -1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try {
            while (acks < wantAcks) {
                String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) fail("child gave no ACK within 60 s; stderr: " + stderr(err) + " alive=" + child.isAlive());
                if (line.startsWith("ACK ")) {
                    lastAck = Integer.parseInt(line.substring(4));
                    acks++;
                }
            }
        } finally {
            child.destroyForcibly(); // SIGKILL on Unix: no shutdown hook, no close, no flush
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "child did not die");
        }
        // ACK lines already in the pipe were acknowledged too, even if this test had not read them yet
        reader.join(TimeUnit.SECONDS.toMillis(10));
        for (String line; (line = lines.poll()) != null; ) {
            if (line.startsWith("ACK ")) lastAck = Integer.parseInt(line.substring(4));
        }
        assertTrue(child.exitValue() != 0, "killed, not exited");
        return lastAck;
    }

    private static String stderr(Path err) {
        try {
            return Files.readString(err);
        } catch (IOException e) {
            return "(none)";
        }
    }
}
