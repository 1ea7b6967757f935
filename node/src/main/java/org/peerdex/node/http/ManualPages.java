package org.peerdex.node.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

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

    public static java.util.Optional<Page> find(String name) {
        return all().stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** The .md files under peerdex-docs/ on the classpath (a directory in development, a jar when packaged). */
    static List<String> files() {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        java.net.URL url = ManualPages.class.getClassLoader().getResource("peerdex-docs");
        if (url == null) return List.of();
        try {
            if (url.getProtocol().equals("file")) {
                java.io.File[] fs = new java.io.File(url.toURI()).listFiles((d, n) -> n.endsWith(".md"));
                if (fs != null) for (java.io.File f : fs) names.add(f.getName());
            } else if (url.getProtocol().equals("jar")) {
                String path = url.getPath();
                String jar = path.substring("file:".length(), path.indexOf('!'));
                try (java.util.jar.JarFile jf = new java.util.jar.JarFile(java.net.URLDecoder.decode(jar,
                        StandardCharsets.UTF_8))) {
                    jf.stream().map(java.util.jar.JarEntry::getName)
                            .filter(n -> n.startsWith("peerdex-docs/") && n.endsWith(".md"))
                            .forEach(n -> names.add(n.substring("peerdex-docs/".length())));
                }
            }
        } catch (IOException | java.net.URISyntaxException e) {
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
