package org.peerdex.actors.importer;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Where an import reads from: a URL fetched through the {@link PageFetcher}, or a file on the peer's disk. */
public sealed interface ImportInput {
    /** A short name for logs, history and the API ("http://..." or "file:/..."). */
    String name();

    /** Reads the whole input, at most {@code maxBytes}. @throws IOException with a clear message */
    byte[] read(long maxBytes) throws IOException;

    /** Opens the input for streaming (dumps of any size). */
    InputStream open() throws IOException;

    /** A URL to GET. */
    record Url(String url, PageFetcher fetcher) implements ImportInput {
        public String name() {
            return url;
        }

        public byte[] read(long maxBytes) throws IOException {
            PageFetcher.Fetched f = fetcher.get(url);
            if (f.status() != 200) throw new IOException("HTTP " + f.status() + " from " + url);
            if (f.truncated()) throw new IOException(url + " is larger than " + maxBytes + " bytes");
            return f.body();
        }

        public InputStream open() throws IOException {
            PageFetcher.Streamed s = fetcher.open(url, Duration.ofHours(6));
            if (s.status() != 200) {
                s.body().close();
                throw new IOException("HTTP " + s.status() + " from " + url);
            }
            return new BufferedInputStream(s.body(), 1 << 16);
        }
    }

    /** A file on the peer's disk (admin only, like every import). */
    record File(Path path) implements ImportInput {
        public String name() {
            return path.toAbsolutePath().toUri().toString();
        }

        public byte[] read(long maxBytes) throws IOException {
            if (!Files.isRegularFile(path)) throw new IOException("no such file: " + path);
            if (Files.size(path) > maxBytes) throw new IOException(path + " is larger than " + maxBytes + " bytes");
            return Files.readAllBytes(path);
        }

        public InputStream open() throws IOException {
            if (!Files.isRegularFile(path)) throw new IOException("no such file: " + path);
            return new BufferedInputStream(Files.newInputStream(path), 1 << 16);
        }
    }
}
