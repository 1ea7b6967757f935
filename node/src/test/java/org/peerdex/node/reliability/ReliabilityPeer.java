package org.peerdex.node.reliability;

import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.peerdex.actors.search.CorpusIndexer;
import org.peerdex.node.PeerNode;

/**
 * A real peer for the reliability suite: LevelDB in a temp dir, HTTP and cluster on port 0 of 127.0.0.1, the
 * committed Tarn corpus indexed, and extra HOCON (limits, timeouts) over the defaults.
 */
final class ReliabilityPeer implements AutoCloseable {
    final Path dataDir;
    final PeerNode node;
    final CorpusIndexer.Result corpus;

    ReliabilityPeer(String extraConfig) throws IOException, URISyntaxException {
        dataDir = Files.createTempDirectory("peerdex-reliability");
        Path corpusDir = Path.of(ReliabilityPeer.class.getResource("/corpus/tarn/index.html").toURI()).getParent();
        node = PeerNode.start(ConfigFactory.parseString(
                "peerdex.data-dir = \"" + dataDir.toString().replace("\\", "/") + "\"\n"
                        + "peerdex.http.port = 0\npeerdex.cluster.port = 0\n" + extraConfig)
                .withFallback(ConfigFactory.load()).resolve());
        corpus = CorpusIndexer.index(node.context().storage(), corpusDir, "http://127.0.0.1:1/tarn/", 1000);
    }

    int port() {
        return node.httpPort();
    }

    String base() {
        return node.baseUrl();
    }

    @Override
    public void close() throws IOException {
        try {
            node.close();
        } finally {
            try (Stream<Path> s = Files.walk(dataDir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
