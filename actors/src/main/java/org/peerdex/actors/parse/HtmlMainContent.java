package org.peerdex.actors.parse;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.NodeFilter;
import org.jsoup.select.NodeTraversor;

/**
 * Finds the main content of an HTML page and strips the site chrome around and inside it (navigation, banners,
 * footers, sidebars, search forms), so that the body text, headings and emphasis indexed for a page are its own
 * and not the "Previous topic … Next topic …" of every page of its site. Links are not this class's business: the
 * parser reads them from the whole page first, so anchor text still counts for the target.
 *
 * <p>The content root is the page's {@code <main>} (or {@code role=main}), else its only {@code <article>}, else
 * the body. Inside the root, the HTML landmarks that are not content are removed: {@code nav}; the ARIA roles
 * navigation, banner, contentinfo, search and complementary; {@code header} and {@code footer} that belong to the
 * page rather than to an article or section (HTML's rule for banner and contentinfo); {@code aside} when no main
 * element was found (inside a main element, Sphinx and others put footnotes in {@code aside}); hidden elements;
 * and elements whose class or id names them chrome ({@code navheader}, {@code sidebar}, {@code footer},
 * {@code breadcrumbs}, ...), unless one holds half of the page's text or more (then it is a layout wrapper, not
 * chrome). A page that would be left without text keeps all of it. The page's own table of contents (a list of
 * links into the page itself, often in a sidebar) is kept, at the start of the content.
 */
public final class HtmlMainContent {
    /** Class or id names (or hyphen/underscore-separated parts of them) that mark site chrome. */
    private static final Set<String> CHROME_NAMES = Set.of("nav", "navbar", "navigation", "navheader", "navfooter",
            "navlinks", "menu", "menubar", "sidebar", "sphinxsidebar", "sidenav", "footer", "breadcrumb",
            "breadcrumbs", "skiplink", "skipnav", "cookie", "cookies", "banner");
    private static final Set<String> CHROME_ROLES = Set.of("navigation", "banner", "contentinfo", "search",
            "complementary");

    private HtmlMainContent() {}

    /**
     * The element holding the page's own content, with the chrome inside it removed. Mutates {@code doc}: call it
     * after everything that needs the whole page (links, metadata) was read.
     */
    public static Element extract(Document doc) {
        Element body = doc.body();
        if (body == null) return doc;
        int pageChars = body.text().length();
        Element root = contentRoot(doc);
        boolean hasMain = root != body && isMain(root);
        List<Element> chrome = new ArrayList<>();
        // what lies inside a chrome element goes with it: its descendants are not looked at
        NodeTraversor.filter(new NodeFilter() {
            @Override
            public FilterResult head(Node node, int depth) {
                if (node == root || !(node instanceof Element e)) return FilterResult.CONTINUE;
                if (!isChrome(e, hasMain, pageChars)) return FilterResult.CONTINUE;
                chrome.add(e);
                return FilterResult.SKIP_ENTIRELY;
            }
        }, root);
        List<Element> outlines = outlines(body, root, chrome);
        if (chrome.isEmpty() && outlines.isEmpty()) return root;
        // a page that is nothing but navigation (a site map, a table of contents) keeps its text: asked before
        // anything is removed (a copy of the content to fall back on cost a clone of the page per parse)
        if (!chrome.isEmpty() && !hasText(root, chrome) && hasText(root, List.of())) return root;
        for (Element c : chrome) c.remove();
        // the page's own outline goes first, where the reader sees it
        for (int i = outlines.size() - 1; i >= 0; i--) root.prependChild(outlines.get(i));
        return root;
    }

    /** True if some text under {@code root} outside the {@code skipped} elements is not blank. */
    private static boolean hasText(Element root, List<Element> skipped) {
        Set<Node> skip = Collections.newSetFromMap(new IdentityHashMap<>());
        skip.addAll(skipped);
        boolean[] found = {false};
        NodeTraversor.filter(new NodeFilter() {
            @Override
            public FilterResult head(Node node, int depth) {
                if (skip.contains(node)) return FilterResult.SKIP_ENTIRELY;
                if (node instanceof TextNode t && !t.text().isBlank()) {
                    found[0] = true;
                    return FilterResult.STOP;
                }
                return FilterResult.CONTINUE;
            }
        }, root);
        return found[0];
    }

    /**
     * The page's own table of contents inside the chrome: lists of at least two links that all point into this
     * page ({@code href="#..."}), such as a documentation theme's "Table of Contents" sidebar. They name this page's
     * sections and functions, so they are its content, unlike the links to other pages around them. Each distinct
     * one once (themes repeat it in a mobile menu).
     */
    private static List<Element> outlines(Element body, Element root, List<Element> chrome) {
        List<Element> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        Set<Element> dropped = Collections.newSetFromMap(new IdentityHashMap<>());
        dropped.addAll(chrome);
        for (Element list : body.select("ul, ol")) {
            boolean outermost = true;
            boolean inRoot = list == root;
            boolean inChrome = false;
            for (Element p : list.parents()) {
                if (p.nameIs("ul") || p.nameIs("ol")) outermost = false;
                if (p == root) inRoot = true;
                if (dropped.contains(p)) inChrome = true;
            }
            // only what the extraction leaves out: outside the content root, or in chrome inside it
            if (!outermost || inRoot && !inChrome) continue;
            List<Element> links = list.select("a[href]");
            if (links.size() < 2 || !links.stream().allMatch(a -> a.attr("href").startsWith("#"))) continue;
            if (seen.add(list.text())) out.add(list.clone());
        }
        return out;
    }

    private static Element contentRoot(Document doc) {
        Element body = doc.body();
        for (Element m : doc.select("main, [role=main]")) {
            if (!m.hasAttr("hidden") && !m.text().isBlank()) return m;
        }
        List<Element> articles = doc.select("article");
        if (articles.size() == 1 && !articles.get(0).text().isBlank()) return articles.get(0);
        return body;
    }

    private static boolean isMain(Element e) {
        return e.nameIs("main") || e.attr("role").equalsIgnoreCase("main");
    }

    private static boolean isChrome(Element e, boolean hasMain, int pageChars) {
        if (e.hasAttr("hidden") || e.attr("aria-hidden").equalsIgnoreCase("true")) return true;
        String role = e.attr("role").toLowerCase(Locale.ROOT).strip();
        if (CHROME_ROLES.contains(role)) return !holdsMain(e);
        String tag = e.normalName();
        switch (tag) {
            case "nav" -> {
                return !holdsMain(e);
            }
            case "aside" -> {
                return !hasMain && !holdsMain(e);
            }
            case "header", "footer" -> {
                return !inSection(e) && !holdsMain(e);
            }
            default -> {
                // handled by names below
            }
        }
        if (!namedChrome(e.className()) && !namedChrome(e.id())) return false;
        if (holdsMain(e)) return false;
        // a "sidebar-layout" wrapper around the whole page is not chrome
        return e.text().length() * 2 < Math.max(1, pageChars);
    }

    /**
     * True if a whitespace-separated name, or a hyphen- or underscore-separated part of one, is a chrome name. Walks
     * the string once (every element with a class or id is asked, so no regular expressions and no lower-casing
     * of names that cannot match).
     */
    static boolean namedChrome(String names) {
        int n = names.length();
        int i = 0;
        while (i < n) {
            while (i < n && Character.isWhitespace(names.charAt(i))) i++;
            int start = i;
            while (i < n && !Character.isWhitespace(names.charAt(i))) i++;
            if (i == start) break;
            if (chromeName(names, start, i)) return true;
            int from = start;
            for (int j = start; j <= i; j++) {
                if (j == i || names.charAt(j) == '-' || names.charAt(j) == '_') {
                    if (j > from && (from > start || j < i) && chromeName(names, from, j)) return true;
                    from = j + 1;
                }
            }
        }
        return false;
    }

    private static boolean chromeName(String s, int from, int to) {
        int len = to - from;
        if (len < 3 || len > LONGEST_CHROME_NAME) return false;
        return CHROME_NAMES.contains(s.substring(from, to).toLowerCase(Locale.ROOT));
    }

    private static final int LONGEST_CHROME_NAME = CHROME_NAMES.stream().mapToInt(String::length).max().orElse(0);

    /** True if {@code e} sits in an article, section or main element (its header or footer is that one's). */
    private static boolean inSection(Element e) {
        for (Element p = e.parent(); p != null; p = p.parent()) {
            if (p.nameIs("article") || p.nameIs("section") || p.nameIs("main") || isMain(p)) return true;
        }
        return false;
    }

    private static boolean holdsMain(Element e) {
        return e.selectFirst("main, [role=main], article") != null;
    }
}
