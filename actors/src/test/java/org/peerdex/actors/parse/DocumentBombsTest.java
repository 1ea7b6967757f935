package org.peerdex.actors.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import crawlercommons.robots.BaseRobotRules;
import crawlercommons.robots.SimpleRobotRulesParser;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Hostile documents against the real parser: each completes, within a generous time cap, with a result bounded by
 * the parser's limits (10 MiB of input, depth 256, 2,000 links, 1 Mi chars of text, 300 items per field). Prints
 * time and bytes allocated per document for docs/reliability.md.
 */
@Tag("reliability")
class DocumentBombsTest {
    private static final long CAP_MILLIS = 30_000;
    private static final StringBuilder FIGURES = new StringBuilder();
    private final HtmlDocumentParser parser = new HtmlDocumentParser();

    @AfterAll
    static void report() {
        System.out.print(FIGURES);
    }

    /** Runs one parse, records its time and allocation, and fails past the cap. */
    private static <T> T measured(String name, int inputBytes, Supplier<T> work) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long alloc0 = mx.getThreadAllocatedBytes(tid);
        long t0 = System.nanoTime();
        T out = work.get();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        long alloc = mx.getThreadAllocatedBytes(tid) - alloc0;
        FIGURES.append(String.format("document bomb %-28s input %,12d bytes: %,6d ms, %,6d MiB allocated%n", name,
                inputBytes, ms, alloc >> 20));
        assertTrue(ms < CAP_MILLIS, name + " took " + ms + " ms");
        return out;
    }

    private ParsedDocument html(String name, byte[] body, String contentType) {
        return measured(name, body.length, () -> parser.parse("http://bomb.test/" + name, body, contentType));
    }

    private static void assertBounded(ParsedDocument d) {
        assertTrue(d.body().length() <= HtmlDocumentParser.DEFAULT_MAX_TEXT_CHARS, "body " + d.body().length());
        assertTrue(d.links().size() <= HtmlDocumentParser.DEFAULT_MAX_LINKS, "links " + d.links().size());
        assertTrue(d.title().length() <= 1000, "title " + d.title().length());
        assertTrue(d.description().length() <= 4000, "description " + d.description().length());
        assertTrue(d.headings().size() <= 300 && d.emphasized().size() <= 300 && d.keywords().size() <= 300);
        for (String h : d.headings()) assertTrue(h.length() <= 1000);
        for (ParsedDocument.Link l : d.links()) assertTrue(l.anchor().length() <= 200);
    }

    @Test
    void hundredThousandNestedElementsAreCutAtTheDepthLimit() {
        StringBuilder b = new StringBuilder("<html><body>");
        for (int i = 0; i < 100_000; i++) b.append("<div><b>");
        b.append("deepest words");
        for (int i = 0; i < 100_000; i++) b.append("</b></div>");
        ParsedDocument d = html("nesting-100k", b.toString().getBytes(StandardCharsets.UTF_8), "text/html; charset=utf-8");
        assertBounded(d);
        assertTrue(d.body().contains("deepest words"), "the text survives the cut");
    }

    @Test
    void unclosedTablesListsAndFormattingDoNotExplode() {
        // the adoption-agency and table-fostering paths of the HTML parser, 50,000 times each
        String b = "<table><tr><td><ul><li><a href=x><i><font>".repeat(50_000) + "end";
        assertBounded(html("unclosed-formatting", b.getBytes(StandardCharsets.UTF_8), "text/html"));
    }

    @Test
    void hugeAttributesAndMetaValuesAreClipped() {
        String huge = "a".repeat(8 << 20);
        String b = "<html><head><title>" + "t".repeat(100_000) + "</title><meta name=description content=\"" + huge
                + "\"><meta name=keywords content=\"" + "k,".repeat(100_000) + "\"></head><body><a href=\"/" + huge
                + "\" title=\"" + huge + "\">x</a><p>text</p></body></html>";
        ParsedDocument d = html("huge-attributes", b.getBytes(StandardCharsets.UTF_8), "text/html");
        assertBounded(d);
        assertTrue(d.truncated(), "input beyond 10 MiB is cut");
    }

    @Test
    void fiftyMegabytesOfTextAreCutToTheInputAndTextLimits() {
        byte[] words = "lorem ipsum dolor sit amet ".getBytes(StandardCharsets.US_ASCII);
        byte[] body = new byte[50 << 20];
        byte[] head = "<html><body><p>".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, body, 0, head.length);
        for (int i = head.length; i < body.length; i++) body[i] = words[i % words.length];
        ParsedDocument d = html("text-50MB", body, "text/html; charset=utf-8");
        assertBounded(d);
        assertTrue(d.truncated());
        assertEquals(HtmlDocumentParser.DEFAULT_MAX_TEXT_CHARS, d.body().length());
        ParsedDocument plain = measured("plain-text-50MB", body.length,
                () -> parser.parse("http://bomb.test/plain.txt", body, "text/plain"));
        assertTrue(plain.body().length() <= HtmlDocumentParser.DEFAULT_MAX_TEXT_CHARS && plain.truncated());
    }

    @Test
    void manyLinksHeadingsAndEmphasisAreCapped() {
        StringBuilder b = new StringBuilder("<html><body>");
        for (int i = 0; i < 100_000; i++) {
            b.append("<h2>heading ").append(i).append("</h2><b>bold</b><a href=\"/p").append(i).append("\">")
                    .append("anchor ".repeat(50)).append("</a>");
        }
        ParsedDocument d = html("links-100k", b.toString().getBytes(StandardCharsets.UTF_8), "text/html");
        assertBounded(d);
        assertEquals(HtmlDocumentParser.DEFAULT_MAX_LINKS, d.links().size());
        assertEquals(300, d.headings().size());
    }

    @Test
    void brokenCharsetsDecodeToSomethingAndNeverThrow() {
        Random r = new Random(5);
        byte[] invalidUtf8 = new byte[1 << 20];
        for (int i = 0; i < invalidUtf8.length; i++) invalidUtf8[i] = (byte) (r.nextBoolean() ? 'a' + r.nextInt(26) : 0x80 + r.nextInt(0x40));
        byte[] withTag = ("<html><body>" + new String(invalidUtf8, StandardCharsets.ISO_8859_1))
                .getBytes(StandardCharsets.ISO_8859_1);
        List<String> contentTypes = java.util.Arrays.asList("text/html; charset=klingon", "text/html; charset=utf-8",
                "text/html; charset=UTF-16", "text/html; charset=x-user-defined", "text/html; charset=\"\"",
                "text/html; charset=iso-2022-jp", "text/html; charset=" + "x".repeat(10_000), "", null);
        for (String ct : contentTypes) {
            ParsedDocument d = html("charset " + (ct == null ? "none" : ct.length() > 40 ? ct.substring(0, 40) : ct),
                    withTag, ct);
            assertBounded(d);
            assertFalse(d.body().isEmpty());
        }
        // a lying meta charset, a UTF-16 byte-order mark over an odd number of bytes
        html("meta utf-16 in ascii", "<meta charset=utf-16><p>plain ascii words".getBytes(StandardCharsets.US_ASCII), null);
        byte[] bom = new byte[10_001];
        bom[0] = (byte) 0xFE;
        bom[1] = (byte) 0xFF;
        for (int i = 2; i < bom.length; i++) bom[i] = (byte) (i % 2 == 0 ? 0 : 'a');
        assertBounded(html("utf-16 bom odd length", bom, null));
    }

    @Test
    void binaryBytesAreRefusedAsNotText() {
        byte[] bin = new byte[1 << 20];
        new Random(1).nextBytes(bin);
        assertThrows(HtmlDocumentParser.NotTextException.class, () -> parser.parse("http://bomb.test/bin", bin, "text/html"));
    }

    @Test
    void robotsTxtGarbageIsParsedInBoundedTime() {
        SimpleRobotRulesParser robots = new SimpleRobotRulesParser();
        Random r = new Random(9);
        byte[] garbage = new byte[5 << 20];
        r.nextBytes(garbage);
        BaseRobotRules g = measured("robots.txt random 5MB", garbage.length, () -> robots.parseContent(
                "http://bomb.test/robots.txt", garbage, "text/plain", List.of("peerdexbot")));
        assertTrue(g.isAllowed("http://bomb.test/page"), "garbage allows everything");
        StringBuilder rules = new StringBuilder("User-agent: *\n");
        for (int i = 0; i < 200_000; i++) rules.append("Disallow: /p").append(i).append("*x*y*z$\n");
        rules.append("Crawl-delay: 99999999999999999999\nSitemap: ").append("s".repeat(100_000)).append('\n');
        byte[] many = rules.toString().getBytes(StandardCharsets.UTF_8);
        BaseRobotRules m = measured("robots.txt 200k rules", many.length, () -> robots.parseContent(
                "http://bomb.test/robots.txt", many, "text/plain", List.of("peerdexbot")));
        measured("robots.txt 100 lookups", 0, () -> {
            for (int i = 0; i < 100; i++) m.isAllowed("http://bomb.test/q" + i + "/" + "x".repeat(2000));
            return null;
        });
        byte[] oneLine = ("User-agent: *\nDisallow: /" + "a*".repeat(1 << 20)).getBytes(StandardCharsets.UTF_8);
        BaseRobotRules o = measured("robots.txt 2MB wildcard line", oneLine.length, () -> robots.parseContent(
                "http://bomb.test/robots.txt", oneLine, "text/plain", List.of("peerdexbot")));
        measured("robots.txt wildcard lookup", 0, () -> o.isAllowed("http://bomb.test/" + "a".repeat(5000) + "b"));
    }
}
