package org.peerdex.node.http;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.commonmark.Extension;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.ext.heading.anchor.HeadingAnchorExtension;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Image;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.HtmlRenderer;

/**
 * The manual's Markdown as HTML, by commonmark-java with GitHub tables: headings get GitHub-style ids (the docs link
 * to {@code page.md#heading}), links between pages point at their {@code .html} renderings, raw HTML is shown as
 * text and links to anything but http(s), mailto and relative addresses are dropped.
 */
public final class Markdown {
    private static final List<Extension> EXTENSIONS = List.of(TablesExtension.create(),
            HeadingAnchorExtension.create());
    // both are immutable and safe to share between threads (commonmark-java's README)
    private static final Parser PARSER = Parser.builder().extensions(EXTENSIONS).build();
    private static final HtmlRenderer RENDERER = HtmlRenderer.builder().extensions(EXTENSIONS).escapeHtml(true)
            .build();
    /** A relative link to another page of the manual: {@code protocol.md} or {@code ../docs/protocol.md#limits}. */
    private static final Pattern PAGE_LINK = Pattern.compile("^([^:?#]*)\\.md(#.*)?$");
    private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*):");
    private static final Set<String> SAFE_SCHEMES = Set.of("http", "https", "mailto");

    private Markdown() {}

    public static String toHtml(String md) {
        Node document = PARSER.parse(md);
        document.accept(new AbstractVisitor() {
            @Override
            public void visit(Link link) {
                link.setDestination(destination(link.getDestination()));
                visitChildren(link);
            }

            @Override
            public void visit(Image image) {
                image.setDestination(destination(image.getDestination()));
                visitChildren(image);
            }
        });
        return RENDERER.render(document);
    }

    /** Where a link of the manual should point: {@code x.md} becomes {@code x.html}; unsafe schemes become "". */
    static String destination(String target) {
        String t = target.strip();
        Matcher scheme = SCHEME.matcher(t);
        if (scheme.find()) {
            return SAFE_SCHEMES.contains(scheme.group(1).toLowerCase(Locale.ROOT)) ? t : "";
        }
        Matcher page = PAGE_LINK.matcher(t);
        if (!page.matches()) return t;
        return page.group(1) + ".html" + (page.group(2) == null ? "" : page.group(2));
    }
}
