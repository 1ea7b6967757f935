package org.peerdex.actors.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The text indexed for a page is its main content: real pages of the Python 3.11 documentation (Sphinx) and the
 * PostgreSQL 15 documentation (DocBook), as Debian ships them, lose their navigation, sidebars and footers, and
 * keep their links with the anchor text the link targets are indexed with.
 */
class HtmlMainContentTest {
    private final HtmlDocumentParser parser = new HtmlDocumentParser();

    private static byte[] page(String name) throws IOException {
        try (InputStream in = HtmlMainContentTest.class.getResourceAsStream("/pages/" + name)) {
            return in.readAllBytes();
        }
    }

    private ParsedDocument html(String url, String html) {
        return parser.parse(url, html.getBytes(StandardCharsets.UTF_8), "text/html; charset=utf-8");
    }

    @Test
    void sphinxPageKeepsItsOwnTextWithoutPreviousNextTopicSidebarOrFooter() throws IOException {
        ParsedDocument d = parser.parse("http://docs.example/library/email.iterators.html",
                page("python-email.iterators.html"), "text/html");
        assertTrue(d.body().contains("Iterating over a message object tree is fairly easy"), d.body());
        assertTrue(d.body().contains("email.iterators.body_line_iterator"), d.body());
        // the sidebar's "Next topic" names the json page: it made this page the second result for "json decoder"
        for (String chrome : new String[] {"Next topic", "Previous topic", "JSON encoder and decoder", "Report a Bug",
                "Show Source", "Navigation", "Python Software Foundation", "Table of Contents"}) {
            assertFalse(d.body().contains(chrome), chrome + " is site chrome, not this page's text: " + d.body());
        }
        assertFalse(d.headings().contains("Next topic"), d.headings().toString());
        assertFalse(d.headings().contains("This Page"), d.headings().toString());
        assertTrue(d.headings().stream().anyMatch(h -> h.startsWith("email.iterators")), d.headings().toString());
        // the links of the chrome still carry their anchor text to their targets
        assertTrue(d.links().stream().anyMatch(l -> l.url().equals("http://docs.example/library/json.html")
                && l.anchor().contains("JSON encoder and decoder")), d.links().toString());
        assertTrue(d.title().startsWith("email.iterators: Iterators"), d.title());
    }

    @Test
    void docbookPageLosesItsNavigationHeaderAndFooter() throws IOException {
        ParsedDocument d = parser.parse("http://docs.example/pg/sql-createindex.html",
                page("postgres-sql-createindex.html"), "text/html");
        assertTrue(d.body().contains("CREATE INDEX constructs an index on the specified column(s)"), d.body());
        // the neighbours' names appear only in navheader / navfooter
        assertFalse(d.body().contains("CREATE GROUP"), d.body());
        assertFalse(d.body().contains("CREATE LANGUAGE"), d.body());
        assertFalse(d.body().contains("SQL Commands"), d.body());
        assertFalse(d.body().startsWith("CREATE INDEX Prev"), d.body());
        assertTrue(d.links().stream().anyMatch(l -> l.url().equals("http://docs.example/pg/sql-createlanguage.html")),
                d.links().toString());
    }

    @Test
    void landmarksOutsideArticlesAreDroppedButAnArticlesOwnHeaderIsKept() {
        ParsedDocument d = html("http://h.example/post", """
                <html><body>
                <header><a href="/">Site name</a> tagline</header>
                <nav><a href="/a">Archive</a> <a href="/b">About us</a></nav>
                <div role="search"><form><input name=q> Search this site</form></div>
                <article><header><h1>Quokkas at dawn</h1> by Ann</header>
                  <p>The quokka wakes before the sun.</p><footer>Filed under marsupials</footer></article>
                <aside>Popular posts: kangaroo tales</aside>
                <div class="site-footer">Copyright the site</div>
                <footer>Imprint and privacy</footer>
                </body></html>""");
        assertTrue(d.body().contains("Quokkas at dawn"), d.body());
        assertTrue(d.body().contains("The quokka wakes before the sun."), d.body());
        assertTrue(d.body().contains("Filed under marsupials"), d.body());
        for (String chrome : new String[] {"Site name", "Archive", "Search this site", "Popular posts", "Copyright",
                "Imprint"}) {
            assertFalse(d.body().contains(chrome), chrome + ": " + d.body());
        }
        assertEquals(java.util.List.of("Quokkas at dawn"), d.headings());
        assertTrue(d.links().stream().anyMatch(l -> l.url().equals("http://h.example/b") && l.anchor().equals("About us")));
    }

    @Test
    void withoutLandmarksChromeIsFoundByItsClassNamesButAWholePageWrapperIsNot() {
        ParsedDocument d = html("http://h.example/", """
                <body><div class="sidebar-layout">
                  <div id="breadcrumbs">Home / Docs / Page</div>
                  <div class="content"><p>Everything this page says about the quokka and its island.</p></div>
                  <div class="nav-links">Previous page · Next page</div>
                </div></body>""");
        assertTrue(d.body().contains("Everything this page says about the quokka"), d.body());
        assertFalse(d.body().contains("Home / Docs"), d.body());
        assertFalse(d.body().contains("Next page"), d.body());
    }

    @Test
    void aPageThatIsAllNavigationKeepsItsText() {
        ParsedDocument d = html("http://h.example/map", """
                <body><nav><ul><li><a href="/x">Quokka care</a><li><a href="/y">Quokka diet</a></ul></nav></body>""");
        assertTrue(d.body().contains("Quokka care"), d.body());
        assertTrue(d.body().contains("Quokka diet"), d.body());
    }

    @Test
    void footnotesInAsideInsideTheMainContentStay() {
        ParsedDocument d = html("http://h.example/doc", """
                <body><div class="sphinxsidebar" role="navigation">Next topic: other</div>
                <div class="body" role="main"><p>Text with a note.</p>
                <aside class="footnote" role="note">The footnote about RFC 7159.</aside></div></body>""");
        assertTrue(d.body().contains("The footnote about RFC 7159."), d.body());
        assertFalse(d.body().contains("Next topic"), d.body());
    }

    @Test
    void thePagesOwnTableOfContentsInTheSidebarStaysButLinksToOtherPagesGo() {
        ParsedDocument own = html("http://h.example/doc", """
                <body><div class="mobile-menu" role="navigation"><ul><li><a href="#install">Installing the quokka</a>
                <li><a href="#feed">Feeding</a></ul></div>
                <div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3>
                <ul><li><a href="#install">Installing the quokka</a><li><a href="#feed">Feeding</a></ul>
                <h4>Next topic</h4><p><a href="other.html">Marsupials</a></p>
                <ul><li><a href="../bugs.html">Report a Bug</a><li><a href="#">Show Source</a></ul></div>
                <main><h2 id="install">Installing the quokka</h2><p>Text.</p></main></body>""");
        assertTrue(own.body().startsWith("Installing the quokka Feeding Installing the quokka Text."), own.body());
        for (String chrome : new String[] {"Marsupials", "Next topic", "Report a Bug", "Table of Contents"}) {
            assertFalse(own.body().contains(chrome), chrome + ": " + own.body());
        }
        assertEquals(java.util.List.of("Installing the quokka"), own.headings());
    }

    @Test
    void chromeNamesAreMatchedWholeOrByHyphenAndUnderscoreParts() {
        for (String yes : new String[] {"nav", "  sidebar ", "x NavBar y", "site-footer", "top_menu", "skip-nav-link",
                "a\tbreadcrumbs", "sphinxsidebar", "FOOTER"}) {
            assertTrue(HtmlMainContent.namedChrome(yes), yes);
        }
        for (String no : new String[] {"", " ", "navigate", "sidebars-x2", "content", "main-body", "a-b_c", "nav2",
                "footnote", "--", "_"}) {
            assertFalse(HtmlMainContent.namedChrome(no), no);
        }
    }

    @Test
    void aPageOfNothingButNavigationKeepsItsText() {
        ParsedDocument d = html("http://site.example/map.html", "<html><body><nav><a href=\"/a\">Alpha page</a>"
                + " <a href=\"/b\">Beta page</a></nav><div class=\"footer\">Site map footer</div></body></html>");
        assertTrue(d.body().contains("Alpha page") && d.body().contains("Site map footer"), d.body());
        ParsedDocument e = html("http://site.example/page.html", "<html><body><nav><a href=\"/a\">Alpha page</a></nav>"
                + "<p>The page's own words</p></body></html>");
        assertEquals("The page's own words", e.body());
    }
}
