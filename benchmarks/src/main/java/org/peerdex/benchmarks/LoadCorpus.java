package org.peerdex.benchmarks;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;

/**
 * The corpus a peer crawls during {@link SearchLoadBenchmark}: a directory of real HTML served by a JDK HttpServer
 * on 127.0.0.1 ({@code -Dpeerdex.load.corpus=DIR}, by default the PostgreSQL manual of Debian's
 * postgresql-doc-15), or 20,000 generated linked pages when the directory is absent.
 */
final class LoadCorpus {
    static final Path ROOT = Path.of(System.getProperty("peerdex.load.corpus", "/usr/share/doc/postgresql-doc-15/html"));

    private LoadCorpus() {}

    static String describe() {
        return Files.isDirectory(ROOT) ? ROOT.toString() : "20,000 generated pages";
    }

    static HttpServer serve() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "load-corpus");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", ex -> {
            try (ex) {
                String path = ex.getRequestURI().getPath();
                byte[] body = page(path);
                if (body == null) {
                    ex.sendResponseHeaders(404, -1);
                    return;
                }
                ex.getResponseHeaders().add("Content-Type", path.endsWith(".css") ? "text/css"
                        : "text/html; charset=utf-8");
                ex.sendResponseHeaders(200, body.length);
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        server.start();
        return server;
    }

    private static byte[] page(String path) throws IOException {
        if (Files.isDirectory(ROOT)) {
            Path f = ROOT.resolve(path.substring(1)).normalize();
            if (!f.startsWith(ROOT) || !Files.isRegularFile(f)) return null;
            return Files.readAllBytes(f);
        }
        int n;
        try {
            n = path.equals("/index.html") ? 0 : Integer.parseInt(path.substring(1, path.length() - 5));
        } catch (RuntimeException e) {
            return null;
        }
        if (n < 0 || n >= 20_000) return null;
        StringBuilder b = new StringBuilder("<html><head><title>Load page ").append(n).append("</title></head><body><p>");
        for (int w = 0; w < 300; w++) b.append(IndexingMemoryBenchmark.word((n * 31 + w * 7) % 20_000)).append(' ');
        b.append("</p>");
        for (int c : new int[] {2 * n + 1, 2 * n + 2, n + 1}) {
            if (c < 20_000) b.append("<a href=\"/").append(c).append(".html\">next</a> ");
        }
        return b.append("</body></html>").toString().getBytes(StandardCharsets.UTF_8);
    }
}
