package org.peerdex.actors.importer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Documents one by one: a URL (PDF, HTML, text), a file, or every file of a folder on the peer's disk (each at its
 * file: URL's http equivalent under a base URL), bounded in number, each bounded by the {@link DocumentExtractor}.
 */
public final class DocumentImport {
    private DocumentImport() {}

    public static ImportSource url(String url, PageImport pages) {
        return ctx -> {
            if (pages.fetchAndIndex(ctx, url, 0).isEmpty() && ctx.stopped()) return;
        };
    }

    /**
     * Files under {@code path} (a file or a folder); each is indexed at {@code baseUrl} + its path relative to the
     * folder, since the index holds http(s) URLs only.
     */
    public static ImportSource files(Path path, String baseUrl, DocumentExtractor extractor, int maxFiles) {
        return ctx -> {
            if (!Files.exists(path)) throw new IOException("no such file or folder: " + path);
            Path root = Files.isDirectory(path) ? path : path.getParent();
            List<Path> files;
            try (Stream<Path> s = Files.isDirectory(path) ? Files.walk(path) : Stream.of(path)) {
                files = s.filter(Files::isRegularFile).sorted().limit(maxFiles).toList();
            }
            String base = baseUrl.endsWith("/") ? baseUrl : baseUrl + "/";
            for (Path f : files) {
                if (ctx.stopped()) return;
                String rel = root.relativize(f).toString().replace('\\', '/');
                String url = base + rel.replace(" ", "%20");
                try {
                    byte[] body = Files.readAllBytes(f);
                    String ct = Files.probeContentType(f);
                    ctx.document(extractor.extract(url, body, ct, Files.getLastModifiedTime(f).toMillis()));
                } catch (DocumentExtractor.UnsupportedTypeException e) {
                    ctx.skipped(e.getMessage());
                } catch (IOException | RuntimeException e) {
                    ctx.error(f + ": " + e.getMessage());
                }
            }
        };
    }
}
