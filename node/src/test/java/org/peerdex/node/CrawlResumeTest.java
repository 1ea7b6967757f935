package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.peerdex.actors.crawl.TestSite;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;

/**
 * A crawl survives kill -9: a peer in a child JVM crawls a slow site and is killed with SIGKILL mid-crawl; a peer
 * started on the same data directory resumes the crawl from the LevelDB frontier, fetches every page that was not
 * indexed yet, and fetches none that was.
 */
class CrawlResumeTest {
    static final int PAGES = 40;
    @TempDir
    Path dir;

    /** Page n links to pages 2n+1 and 2n+2: a tree of PAGES pages. */
    static TestSite tree() throws Exception {
        TestSite site = new TestSite();
        site.fallback(path -> {
            if (!path.startsWith("/p")) return null;
            int n = Integer.parseInt(path.substring(2));
            if (n >= PAGES) return null;
            StringBuilder b = new StringBuilder("<html><title>Page " + n + "</title><body>tree page number"
                    + n + " ");
            for (int c : new int[] {2 * n + 1, 2 * n + 2}) {
                if (c < PAGES) b.append("<a href=\"/p").append(c).append("\">child ").append(c).append("</a> ");
            }
            return TestSite.Reply.html(b.append("</body></html>").toString());
        });
        return site;
    }

    @Test
    void crawlResumesAfterKillNineWithoutRefetchingIndexedPages() throws Exception {
        Path data = dir.resolve("data");
        try (TestSite site = tree()) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                    CrawlingChild.class.getName(), data.toString(), "{\"url\": \"" + site.url("/p0")
                    + "\", \"minDelayMs\": 60, \"depth\": 20}");
            pb.redirectError(dir.resolve("child.err").toFile());
            Process child = pb.start();
            String id;
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                        StandardCharsets.UTF_8));
                String line;
                do {
                    line = out.readLine();
                } while (line != null && !line.startsWith("CRAWL "));
                assertTrue(line != null, "the child started a crawl");
                id = line.substring(6).trim();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (site.pageRequests().size() < 12 && System.nanoTime() < deadline) LockSupport.parkNanos(10_000_000); // poll interval
                assertTrue(site.pageRequests().size() >= 12, "the child crawled");
            } finally {
                child.destroyForcibly(); // SIGKILL on Unix
                child.waitFor(10, TimeUnit.SECONDS);
            }
            int requestsBeforeKill = site.pageRequests().size();
            Set<String> indexedBeforeKill = new HashSet<>();
            try (PeerStorage s = PeerStorage.openLevelDb(data, new Partitions(4))) {
                s.metadata().scanAll(m -> indexedBeforeKill.add(m.url()));
            }
            assertTrue(!indexedBeforeKill.isEmpty() && indexedBeforeKill.size() < PAGES,
                    "killed mid-crawl: " + indexedBeforeKill.size() + " of " + PAGES + " indexed");

            try (PeerNode node = CrawlApiTest.start(data, true)) {
                JsonNode p = CrawlApiTest.awaitEnd(node, id, Duration.ofSeconds(30));
                assertEquals("finished", p.get("state").asText(), p.toString());
                assertEquals(PAGES, node.context().storage().metadata().count(), "every page indexed in the end");
                for (String url : indexedBeforeKill) {
                    String path = url.substring(site.base().length());
                    assertEquals(1, site.count(path), "indexed before the kill and not fetched again: " + path);
                }
                for (int n = 0; n < PAGES; n++) {
                    assertTrue(site.count("/p" + n) <= 2, "fetched at most twice (once if it was not in flight)");
                }
                System.out.println("kill -9 mid-crawl: " + requestsBeforeKill + " page requests and "
                        + indexedBeforeKill.size() + " pages indexed before the kill, " + site.pageRequests().size()
                        + " requests for " + PAGES + " pages in all");
            }
        }
    }
}
