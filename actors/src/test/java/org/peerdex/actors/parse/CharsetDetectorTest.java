package org.peerdex.actors.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Unlabelled pages in legacy encodings, written in real text (the Universal Declaration of Human Rights, test
 * resources udhr/) and encoded by the JDK's own encoders, the way an old web server would have stored them.
 */
class CharsetDetectorTest {
    private static final Charset SHIFT_JIS = Charset.forName("Shift_JIS");
    private static final Charset GBK = Charset.forName("GBK");
    private static final Charset WINDOWS_1251 = Charset.forName("windows-1251");
    private static final Charset WINDOWS_1252 = Charset.forName("windows-1252");

    /** A page of the declaration in {@code code} as an old site would serve it: no charset anywhere. */
    private static String page(String code) {
        // the legacy code pages have no U+2010 HYPHEN (uk, bg, pt use it); a page stored in one carries '-'
        List<String> paras = LanguageDetectorTest.udhr(code).stream().map(p -> p.replace('\u2010', '-')).toList();
        StringBuilder html = new StringBuilder("<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\">\n"
                + "<html><head><title>").append(paras.get(0), 0, Math.min(20, paras.get(0).length()))
                .append("</title>\n<link rel=\"stylesheet\" href=\"/css/main.css\"></head>\n<body bgcolor=\"#ffffff\">\n"
                        + "<table width=\"100%\"><tr><td><a href=\"/\">TOP</a></td></tr></table>\n");
        for (String p : paras) html.append("<p>").append(p).append("</p>\n");
        return html.append("<hr><address>webmaster@example.jp</address></body></html>\n").toString();
    }

    /** {@code text} in {@code cs}, failing if the text has a character the charset cannot hold. */
    private static byte[] encode(String text, Charset cs) throws CharacterCodingException {
        ByteBuffer b = cs.newEncoder().onUnmappableCharacter(CodingErrorAction.REPORT)
                .onMalformedInput(CodingErrorAction.REPORT).encode(CharBuffer.wrap(text));
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static void assertDecodedAs(String code, Charset encoding, String expected) throws Exception {
        String html = page(code);
        byte[] bytes = encode(html, encoding);
        CharsetDetector.Detected d = CharsetDetector.detect(bytes, "text/html");
        assertEquals("statistics", d.source(), code);
        assertTrue(d.charset().equals(encoding) || d.charset().contains(encoding),
                code + ": " + d.charset() + " cannot decode " + encoding);
        assertEquals(expected, d.charset().name(), code);
        assertEquals(html, CharsetDetector.decode(bytes, d), code);
    }

    @Test
    void unlabelledShiftJisJapaneseIsDecodedAsShiftJis() throws Exception {
        assertDecodedAs("ja", SHIFT_JIS, "Shift_JIS");
    }

    @Test
    void unlabelledGbkChineseIsDecodedAsGb18030() throws Exception {
        // GB18030 is GBK's superset; the WHATWG standard decodes a GBK label with it too
        assertDecodedAs("zh", GBK, "GB18030");
    }

    @Test
    void unlabelledWindows1251RussianIsDecodedAsWindows1251() throws Exception {
        assertDecodedAs("ru", WINDOWS_1251, "windows-1251");
        assertDecodedAs("uk", WINDOWS_1251, "windows-1251");
        assertDecodedAs("bg", WINDOWS_1251, "windows-1251");
    }

    @Test
    void unlabelledWesternPagesStayWindows1252() throws Exception {
        for (String code : List.of("fr", "de", "es", "it", "pt", "nl", "sv", "da", "fi")) {
            String html = page(code);
            byte[] bytes = encode(html, WINDOWS_1252);
            CharsetDetector.Detected d = CharsetDetector.detect(bytes, null);
            // a page of ASCII only (the Dutch text has no accent) is valid UTF-8, and reads the same either way
            if (html.chars().anyMatch(c -> c > 127)) assertEquals(WINDOWS_1252, d.charset(), code + " from " + d.source());
            assertEquals(html, CharsetDetector.decode(bytes, d), code);
        }
    }

    /**
     * English prose with a stray "§", "×" or "–" (the project's own manual, ../docs/*.md, as an old site would store
     * it in windows-1252): too few non-ASCII bytes to judge by, so no CJK verdict (juniversalchardet alone says
     * GB18030 for some of these pages).
     */
    @Test
    void englishWithAFewSymbolsStaysWindows1252() throws Exception {
        List<Path> pages;
        try (Stream<Path> s = Files.list(Path.of("..", "docs"))) {
            pages = s.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
        assertTrue(pages.size() >= 5, "the manual at ../docs: " + pages);
        int withSymbols = 0;
        for (Path p : pages) {
            String html = "<html><head><title>" + p.getFileName() + "</title></head><body><pre>"
                    + Files.readString(p) + "</pre></body></html>";
            byte[] bytes = html.getBytes(WINDOWS_1252); // what 1252 lacks ("→", "‖") becomes '?'
            CharsetDetector.Detected d = CharsetDetector.detect(bytes, "text/html");
            if (d.source().equals("utf8-valid")) continue; // no symbol at all
            withSymbols++;
            assertEquals(WINDOWS_1252, d.charset(), p + " from " + d.source());
        }
        assertTrue(withSymbols >= 5, withSymbols + " pages with symbols");
    }

    @Test
    void theWhatwgOrderStillComesFirst() throws Exception {
        byte[] sjis = encode(page("ja"), SHIFT_JIS);
        // a header label wins even when the bytes say otherwise
        CharsetDetector.Detected header = CharsetDetector.detect(sjis, "text/html; charset=windows-1252");
        assertEquals("header", header.source());
        assertEquals(WINDOWS_1252, header.charset());
        // so does a meta label
        byte[] labelled = encode(page("ru").replace("<head>", "<head><meta charset=\"koi8-r\">"), WINDOWS_1251);
        CharsetDetector.Detected meta = CharsetDetector.detect(labelled, null);
        assertEquals("meta", meta.source());
        assertEquals("KOI8-R", meta.charset().name());
        // unlabelled UTF-8 stays UTF-8, whatever its script
        for (String code : List.of("ja", "zh", "ru", "fr")) {
            CharsetDetector.Detected utf8 = CharsetDetector.detect(page(code).getBytes(StandardCharsets.UTF_8), null);
            assertEquals("utf8-valid", utf8.source(), code);
        }
        // a byte-order mark beats all
        byte[] bom = ("\uFEFF" + page("ja")).getBytes(StandardCharsets.UTF_8);
        assertEquals("bom", CharsetDetector.detect(bom, "text/html; charset=Shift_JIS").source());
    }

    @Test
    void aFewStrayBytesWithoutEnoughTextFallBackToWindows1252() {
        byte[] cafe = "<p>Caf\u00e9 \u00e0 la carte</p>".getBytes(WINDOWS_1252);
        CharsetDetector.Detected d = CharsetDetector.detect(cafe, null);
        assertEquals(WINDOWS_1252, d.charset(), d.source());
        assertEquals("<p>Caf\u00e9 \u00e0 la carte</p>", CharsetDetector.decode(cafe, d));
    }

    @Test
    void theParserIndexesAnUnlabelledLegacyPageAsText() throws Exception {
        HtmlDocumentParser parser = new HtmlDocumentParser();
        for (Object[] c : new Object[][] {{"ja", SHIFT_JIS}, {"zh", GBK}, {"ru", WINDOWS_1251}}) {
            String code = (String) c[0];
            ParsedDocument d = parser.parse("http://example.org/" + code + ".html", encode(page(code), (Charset) c[1]),
                    "text/html");
            String first = LanguageDetectorTest.udhr(code).get(0);
            assertTrue(d.body().contains(first), code + ": " + d.body().substring(0, Math.min(200, d.body().length())));
            assertEquals(code, d.language(), code);
        }
    }
}
