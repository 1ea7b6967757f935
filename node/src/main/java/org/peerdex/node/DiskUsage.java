package org.peerdex.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Bytes of the files under a directory (the data dir for /api/status), remembered a few seconds per directory. */
public final class DiskUsage {
    private static final long TTL_MS = 5_000;
    private static final Map<Path, long[]> CACHE = new ConcurrentHashMap<>();

    private DiskUsage() {}

    /** The total, at most {@value #TTL_MS} ms old; files vanishing while counted (LevelDB compactions) are skipped. */
    public static long of(Path dir) {
        Path key = dir.toAbsolutePath().normalize();
        long now = System.currentTimeMillis();
        long[] cached = CACHE.get(key);
        if (cached != null && now - cached[1] < TTL_MS) return cached[0];
        long bytes = measure(key);
        CACHE.put(key, new long[] {bytes, now});
        return bytes;
    }

    static long measure(Path dir) {
        if (!Files.isDirectory(dir)) return 0;
        long[] total = {0};
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    total[0] += attrs.size();
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return total[0];
    }
}
