package org.peerdex.node.http;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The peer's manual: the repository's docs/*.md, copied into the jar at build time (peerdex-docs/), rendered to
 * plain HTML for {@code /docs/} and for indexing.
 */
public final class ManualPages {
    /** One page of the manual. */
    public record Page(String name, String markdown) {
        public String title() {
            for (String line : markdown.split("\n")) if (line.startsWith("# ")) return line.substring(2).trim();
            return name;
        }
    }

    private ManualPages() {}

    public static List<Page> all() {
        List<Page> out = new ArrayList<>();
        for (String file : files()) {
            String md = read("peerdex-docs/" + file);
            if (md != null) out.add(new Page(file.substring(0, file.length() - 3), md));
        }
        return out;
    }

    public static Optional<Page> find(String name) {
        return all().stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** The .md files under peerdex-docs/ on the classpath (a directory in development, a jar when packaged). */
    static List<String> files() {
        TreeSet<String> names = new TreeSet<>();
        URL url = ManualPages.class.getClassLoader().getResource("peerdex-docs");
        if (url == null) return List.of();
        try {
            if (url.getProtocol().equals("file")) {
                File[] fs = new File(url.toURI()).listFiles((d, n) -> n.endsWith(".md"));
                if (fs != null) for (File f : fs) names.add(f.getName());
            } else if (url.getProtocol().equals("jar")) {
                String path = url.getPath();
                String jar = path.substring("file:".length(), path.indexOf('!'));
                try (JarFile jf = new JarFile(URLDecoder.decode(jar,
                        StandardCharsets.UTF_8))) {
                    jf.stream().map(JarEntry::getName)
                            .filter(n -> n.startsWith("peerdex-docs/") && n.endsWith(".md"))
                            .forEach(n -> names.add(n.substring("peerdex-docs/".length())));
                }
            }
        } catch (IOException | URISyntaxException e) {
            return List.of();
        }
        return new ArrayList<>(names);
    }

    private static String read(String resource) {
        try (InputStream in = ManualPages.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    public static String html(Page p) {
        return "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + CompatRoutes.xml(p.title())
                + "</title><link rel=\"stylesheet\" href=\"/style.css\"></head><body class=\"doc\"><nav><a href=\"/\">"
                + "Peerdex</a> · <a href=\"/docs/\">manual</a></nav><main>" + Markdown.toHtml(p.markdown())
                + "</main></body></html>";
    }

    public static String indexHtml() {
        StringBuilder b = new StringBuilder("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<title>Peerdex manual</title><link rel=\"stylesheet\" href=\"/style.css\"></head><body class=\"doc\">"
                + "<nav><a href=\"/\">Peerdex</a></nav><main><h1>Peerdex manual</h1><ul>");
        for (Page p : all()) {
            b.append("<li><a href=\"/docs/").append(p.name()).append(".html\">").append(CompatRoutes.xml(p.title()))
                    .append("</a></li>");
        }
        return b.append("</ul></main></body></html>").toString();
    }
}
