package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The node's wiring, read from its sources: {@link PeerNode} builds the services once ({@link NodeServices}) and
 * passes them on, so no class keeps a static registry of services per peer, and the service packages (crawl,
 * federation, settings) do not reach back into the HTTP routes that use them.
 */
class PackageArrowsTest {
    static final Path MAIN = Path.of("src", "main", "java", "org", "peerdex", "node");
    static final Pattern IMPORT = Pattern.compile("org\\.peerdex\\.node\\.([a-z]+)\\.[A-Z]");

    @Test
    void theServicePackagesDoNotDependOnTheHttpPackage() throws IOException {
        List<String> found = new ArrayList<>();
        for (String pkg : List.of("crawl", "federation", "settings")) {
            for (Path f : javaFiles(MAIN.resolve(pkg))) {
                Matcher m = IMPORT.matcher(Files.readString(f, StandardCharsets.UTF_8));
                while (m.find()) {
                    if (m.group(1).equals("http")) found.add(MAIN.relativize(f) + " uses " + m.group());
                }
            }
        }
        assertEquals(List.of(), found);
    }

    @Test
    void noServiceIsLookedUpThroughAStaticMapKeyedByThePeer() throws IOException {
        List<Path> files = javaFiles(MAIN);
        assertTrue(files.size() > 50, "the node's sources were not found under " + MAIN.toAbsolutePath());
        Pattern registry = Pattern.compile("WeakHashMap|static[^;(]*Map<\\s*(org\\.peerdex\\.node\\.)?NodeContext\\b");
        List<String> found = new ArrayList<>();
        for (Path f : files) {
            String text = Files.readString(f, StandardCharsets.UTF_8);
            Matcher m = registry.matcher(text);
            if (m.find()) found.add(MAIN.relativize(f) + ": " + m.group());
        }
        assertEquals(List.of(), found);
    }

    private static List<Path> javaFiles(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }
}
