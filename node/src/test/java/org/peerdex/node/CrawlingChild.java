package org.peerdex.node;

import java.nio.file.Path;

/**
 * A peer in a child JVM for {@link CrawlResumeTest}: starts on the given data directory, posts a crawl of the
 * given URL, prints {@code CRAWL <id>} and runs until it is killed.
 */
public final class CrawlingChild {
    private CrawlingChild() {}

    public static void main(String[] args) throws Exception {
        PeerNode node = CrawlApiTest.start(Path.of(args[0]), true);
        TestPeers.Reply r = CrawlApiTest.post(node.baseUrl() + "/api/crawl", args[1]);
        System.out.println("CRAWL " + r.json().get("id").asText());
        System.out.flush();
        node.whenTerminated().toCompletableFuture().get();
    }
}
