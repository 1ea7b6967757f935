package org.peerdex.actors.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.peerdex.storage.meta.PageImage;
import org.peerdex.storage.text.DocumentText;

class HtmlDocumentParserTest {
    private final HtmlDocumentParser parser = new HtmlDocumentParser();

    private ParsedDocument html(String url, String html) {
        return parser.parse(url, html.getBytes(StandardCharsets.UTF_8), "text/html; charset=utf-8");
    }

    @Test
    void extractsMetadataHeadingsEmphasisAndLinksResolvedAgainstBase() {
        ParsedDocument d = html("http://Example.org:80/dir/page.html", """
                <html lang="de-AT"><head><title> Der Titel </title>
                <meta name="description" content="Eine Beschreibung">
                <meta name="keywords" content="alpha, beta;gamma">
                <meta name="author" content="Erika Muster">
                <link rel="canonical" href="/canonical.html">
                <base href="http://example.org/other/"></head>
                <body><h1>Erste Überschrift</h1><p>Text mit <b>fett</b> und <em>betont</em>.</p>
                <a href="x.html">Anchor X</a> <a href="../y.html" rel="nofollow">Y</a>
                <a href="x.html#frag">second X</a> <a href="mailto:a@b.c">mail</a>
                <a href="z.html"><img alt="image alt"></a></body></html>""");
        assertEquals("http://example.org/dir/page.html", d.url());
        assertEquals("Der Titel", d.title());
        assertEquals("Eine Beschreibung", d.description());
        assertEquals(List.of("alpha", "beta", "gamma"), d.keywords());
        assertEquals("Erika Muster", d.author());
        assertEquals("de", d.language());
        assertEquals("http://example.org/canonical.html", d.canonical());
        assertEquals(List.of("Erste Überschrift"), d.headings());
        assertEquals(List.of("fett", "betont"), d.emphasized());
        assertEquals(3, d.links().size(), d.links().toString());
        assertEquals(new ParsedDocument.Link("http://example.org/other/x.html", "Anchor X", false), d.links().get(0));
        assertEquals(new ParsedDocument.Link("http://example.org/y.html", "Y", true), d.links().get(1));
        assertEquals("image alt", d.links().get(2).anchor());
        assertTrue(d.body().contains("Text mit fett und betont."));
        assertFalse(d.noindex());
        DocumentText t = d.toDocumentText(List.of("inbound words"));
        assertEquals(List.of("inbound words"), t.anchors());
        assertEquals(d.body(), t.body());
    }

    @Test
    void robotsMetaNoindexAndNofollowAreRead() {
        ParsedDocument d = html("http://h/", "<meta name=robots content='NOINDEX, nofollow'><p>x");
        assertTrue(d.noindex());
        assertTrue(d.nofollow());
        ParsedDocument none = html("http://h/", "<meta name=robots content=none><p>x");
        assertTrue(none.noindex() && none.nofollow());
    }

    @Test
    void languageIsDetectedFromTextWithoutLangAttribute() {
        assertEquals("fr", html("http://h/", "<p>Le chat est sur la table et les enfants sont dans le jardin avec"
                + " une balle pour jouer.").language());
        assertEquals("en", html("http://h/", "<p>The cat is on the table and the children are in the garden"
                + " with a ball to play with.").language());
        assertEquals("ru", html("http://h/", "<p>Кошка на столе, и дети в саду, но он не знает, что это так"
                + " и все они там.").language());
        assertEquals("", html("http://h/", "<p>x y z").language());
    }

    @Test
    void metaCharsetDecodesLatin1Windows1251AndShiftJis() {
        String latin = "<html><head><meta charset=\"ISO-8859-1\"><title>Café Müller</title></head><body>Grüße</body>";
        ParsedDocument d1 = parser.parse("http://h/", latin.getBytes(StandardCharsets.ISO_8859_1), "text/html");
        assertEquals("Café Müller", d1.title());
        String cyr = "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\">"
                + "<title>Привет мир</title></head><body>Текст</body>";
        ParsedDocument d2 = parser.parse("http://h/", cyr.getBytes(Charset.forName("windows-1251")), "text/html");
        assertEquals("Привет мир", d2.title());
        assertEquals("Текст", d2.body());
        String sj = "<html><head><meta charset=shift_jis><title>日本語のページ</title></head><body>東京</body>";
        ParsedDocument d3 = parser.parse("http://h/", sj.getBytes(Charset.forName("Shift_JIS")), "text/html");
        assertEquals("日本語のページ", d3.title());
        assertEquals("東京", d3.body());
    }

    @Test
    void headerCharsetWinsOverMetaAndBomWinsOverBoth() {
        String s = "<meta charset=windows-1251><title>Grüße</title>";
        ParsedDocument d = parser.parse("http://h/", s.getBytes(StandardCharsets.UTF_8), "text/html; charset=UTF-8");
        assertEquals("Grüße", d.title());
        byte[] bom = ("\uFEFF" + s).getBytes(StandardCharsets.UTF_8);
        assertEquals("Grüße", parser.parse("http://h/", bom, "text/html; charset=windows-1251").title());
    }

    @Test
    void undeclaredNonUtf8FallsBackToWindows1252() {
        byte[] b = "<title>naïve</title>".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals("naïve", parser.parse("http://h/", b, "text/html").title());
    }

    @Test
    void binaryBodyLabelledHtmlIsRefused() {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13};
        assertThrows(HtmlDocumentParser.NotTextException.class, () -> parser.parse("http://h/", png, "text/html"));
        byte[] noise = new byte[4096];
        new java.util.Random(1).nextBytes(noise);
        assertThrows(HtmlDocumentParser.NotTextException.class, () -> parser.parse("http://h/", noise, "text/html"));
    }

    @Test
    void plainTextDocumentsAreParsed() {
        ParsedDocument d = parser.parse("http://h/readme.txt",
                "First line is the title\nand the rest of the text is here".getBytes(StandardCharsets.UTF_8),
                "text/plain");
        assertEquals('t', d.doctype());
        assertEquals("First line is the title", d.title());
        assertTrue(d.body().contains("rest of the text"));
        assertTrue(d.links().isEmpty());
    }

    @Test
    void brokenAndDeeplyNestedHtmlIsParsedInBoundedTime() {
        StringBuilder sb = new StringBuilder("<html><body><p>start <b>unclosed <i>tags <table><td>cell");
        for (int i = 0; i < 100_000; i++) sb.append("<div><span>");
        sb.append("deepword <a href=/deep>deep link</a>");
        sb.append("</p></body></html><<>>&&&");
        long t0 = System.nanoTime();
        ParsedDocument d = html("http://h/", sb.toString());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(d.body().contains("start"));
        assertTrue(d.body().contains("deepword"), "text below the depth cut is kept");
        assertTrue(ms < 10_000, "took " + ms + " ms");
    }

    @Test
    void hugePageIsCutAtTheBounds() {
        HtmlDocumentParser small = new HtmlDocumentParser(1 << 20, 256, 100, 50_000);
        StringBuilder sb = new StringBuilder("<html><body>");
        for (int i = 0; i < 200_000; i++) sb.append("<p>word").append(i).append(" <a href=/p").append(i).append(">l</a>");
        ParsedDocument d = small.parse("http://h/", sb.toString().getBytes(StandardCharsets.UTF_8), "text/html");
        assertTrue(d.truncated());
        assertTrue(d.body().length() <= 50_000);
        assertEquals(100, d.links().size());
    }

    @Test
    void contentHashIgnoresMarkupButNotText() {
        String a = html("http://h/a", "<title>T</title><p>same   text</p>").contentHash();
        String b = html("http://h/b", "<title>T</title><div><span>same text</span></div>").contentHash();
        String c = html("http://h/c", "<title>T</title><p>other text</p>").contentHash();
        assertEquals(a, b);
        assertNotEquals(a, c);
    }

    @Test
    void nonHttpUrlIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> html("ftp://h/", "<p>x"));
    }

    @Test
    void keepsTheMainContentsImagesOnceWithAltAndCaptionResolvedAgainstBase() {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 80; i++) many.append("<img src=\"g/").append(i).append(".png\" alt=\"n").append(i).append("\">");
        ParsedDocument d = html("http://example.org/a/page.html", """
                <html><head><title>Pictures</title><base href="http://cdn.example.org/img/"></head><body>
                <header><img src="/logo.png" alt="Site logo"></header>
                <main><figure><img src="one.jpg" alt=" First &amp; best "><figcaption>A caption</figcaption></figure>
                <p>Before <img src="two.jpg" title="Second"> after.</p>
                <img src="one.jpg" alt="again">
                <img src="pixel.gif" width="1" height="1">
                <img src="data:image/png;base64,AAAA" alt="inline">
                <img src="javascript:alert(1)" alt="script">
                <p><img data-src="lazy.webp" alt="Lazy"></p>
                <p>Toggle <img src="minus.png" alt="-"> <img src="hidden.png" alt="Hidden" style="display: none">
                   <img src="secret.png" alt="Secret" hidden></p>
                <div class="figure"><img src="../_images/flow.png" alt="../_images/flow.png"><p>The flow.</p></div>
                <p><img src="chart.svg" alt="chart.svg" title="Sales by month"></p>
                </main><footer><img src="badge.png" alt="Badge"></footer></body></html>""");
        List<PageImage> images = d.images();
        assertEquals(List.of(
                new PageImage("http://cdn.example.org/img/one.jpg", "First & best", "A caption"),
                new PageImage("http://cdn.example.org/img/two.jpg", "Second", "Before after."),
                new PageImage("http://cdn.example.org/img/lazy.webp", "Lazy", "Before after. Toggle"),
                new PageImage("http://cdn.example.org/_images/flow.png", "", "The flow."),
                new PageImage("http://cdn.example.org/img/chart.svg", "Sales by month", "The flow.")),
                images);
        // in a long block, the text next to the image (Sphinx puts a figure straight into its long section)
        String words = "lorem ipsum dolor sit amet ".repeat(20);
        ParsedDocument section = html("http://example.org/s.html", "<html><body><main><section><h1>Installing</h1>"
                + "<p>" + words + "</p>\n<p>The installer's first screen:</p>\n  <img src=\"win.png\" alt=\"win.png\">\n"
                + "<p>Choose the features.</p><p>" + words + "</p></section></main></body></html>");
        assertEquals("The installer's first screen: Choose the features.", section.images().get(0).text());
        // text documents have none; a page of many keeps a bounded number
        assertTrue(parser.parse("http://example.org/t.txt", "plain".getBytes(StandardCharsets.UTF_8), "text/plain")
                .images().isEmpty());
        ParsedDocument big = html("http://example.org/big.html", "<html><body><main>" + many + "</main></body></html>");
        assertEquals(HtmlDocumentParser.MAX_IMAGES, big.images().size());
        assertEquals("n0", big.images().get(0).alt());
    }
}
