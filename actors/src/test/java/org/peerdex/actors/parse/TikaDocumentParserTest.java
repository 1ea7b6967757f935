package org.peerdex.actors.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Office documents, EPUB and RTF made by real libraries, read through Tika into ParsedDocuments, within bounds. */
class TikaDocumentParserTest {
    private static final Duration HANG_CAP = Duration.ofSeconds(60);
    private final TikaDocumentParser parser = new TikaDocumentParser(32 << 20, 2000,
            TikaDocumentParser.DEFAULT_MAX_TEXT_CHARS, Duration.ofSeconds(30));

    private ParsedDocument parse(String url, byte[] body, DocumentFormat format) {
        return assertTimeoutPreemptively(HANG_CAP, () -> parser.parse(url, body, format));
    }

    @Test
    void aDocxGivesTitleAuthorKeywordsTextEmphasisAndItsHyperlinks() {
        byte[] docx = OfficeDocuments.docx("The Kelpwright Architecture",
                "Kelpwright splits buffers into ropes of gapless chunks.", "https://kelp.example.org/design");
        ParsedDocument d = parse("http://files.test/papers/kelp.docx", docx, DocumentFormat.DOCX);
        assertEquals("The Kelpwright Architecture", d.title());
        assertEquals("Runa Tveit", d.author());
        assertTrue(d.keywords().containsAll(List.of("ropes", "buffers")), d.keywords().toString());
        assertTrue(d.body().contains("Kelpwright splits buffers into ropes of gapless chunks."), d.body());
        assertTrue(d.emphasized().contains("Summary."), d.emphasized().toString());
        assertEquals(List.of(new ParsedDocument.Link("https://kelp.example.org/design", "the design notes", false)),
                d.links());
        assertEquals('d', d.doctype());
        assertEquals(DocumentFormat.DOCX.mimeType(), d.mimeType());
        assertEquals("en", d.language(), "detected from the text");
        assertFalse(d.truncated());
    }

    @Test
    void everyFormatGivesItsTitleAndWords() {
        record Case(String name, DocumentFormat format, byte[] body, String title, String words) {}
        List<Case> cases = List.of(
                new Case("a.doc", DocumentFormat.DOC, OfficeDocuments.doc(), "Fjordline Handbook",
                        "quillwort scheduler rotates the bramblefinch queue"),
                new Case("a.xlsx", DocumentFormat.XLSX, OfficeDocuments.xlsx("Glacier Inventory",
                        List.of("skerry tarnfield moraine cirque")), "Glacier Inventory", "tarnfield"),
                new Case("a.xls", DocumentFormat.XLS, OfficeDocuments.xls("Old Inventory", "hollowmere drumlin esker"),
                        "Old Inventory", "hollowmere"),
                new Case("a.pptx", DocumentFormat.PPTX, OfficeDocuments.pptx("Kickoff Deck",
                        List.of("The snowdrift planner ships in spring")), "Kickoff Deck", "snowdrift planner"),
                new Case("a.ppt", DocumentFormat.PPT, OfficeDocuments.ppt("Legacy Deck",
                        "The frostbind installer is retired"), "Legacy Deck", "frostbind installer"),
                new Case("a.odt", DocumentFormat.ODT, OfficeDocuments.odt("Walrusfold Notes",
                        "The walrusfold option keeps tabs in a skiplist.", "https://walrus.example.org/"),
                        "Walrusfold Notes", "walrusfold option keeps tabs"),
                new Case("a.epub", DocumentFormat.EPUB, OfficeDocuments.epub("The Narwhal Scheduler",
                        "Chapter one meets the narwhal.", "Chapter two tames the glacierfox.",
                        "https://narwhal.example.org/"), "The Narwhal Scheduler", "tames the glacierfox"),
                new Case("a.rtf", DocumentFormat.RTF, OfficeDocuments.rtf("Quillstroke Minutes",
                        "The quillstroke debounce was merged.", "https://quill.example.org/"),
                        "Quillstroke Minutes", "quillstroke debounce was merged"));
        for (Case c : cases) {
            ParsedDocument d = parse("http://files.test/" + c.name(), c.body(), c.format());
            assertEquals(c.title(), d.title(), c.name());
            assertTrue(d.body().contains(c.words()), c.name() + ": " + d.body());
            assertEquals('d', d.doctype(), c.name());
            assertFalse(d.contentHash().isEmpty(), c.name());
        }
    }

    @Test
    void linksOfOdtEpubAndRtfAreKeptButAnEpubsLinksBetweenItsChaptersAreNot() {
        ParsedDocument odt = parse("http://files.test/a.odt", OfficeDocuments.odt("Notes", "Some words here.",
                "https://walrus.example.org/docs"), DocumentFormat.ODT);
        assertEquals(List.of("https://walrus.example.org/docs"), urls(odt));
        assertEquals("en", odt.language(), "from meta.xml");
        ParsedDocument epub = parse("http://files.test/a.epub", OfficeDocuments.epub("Book", "One.", "Two.",
                "https://narwhal.example.org/about"), DocumentFormat.EPUB);
        assertEquals(List.of("https://narwhal.example.org/about"), urls(epub));
        assertTrue(epub.headings().containsAll(List.of("Chapter One", "Chapter Two")), epub.headings().toString());
        ParsedDocument rtf = parse("http://files.test/a.rtf", OfficeDocuments.rtf("Minutes", "Words.",
                "https://quill.example.org/archive"), DocumentFormat.RTF);
        assertEquals(List.of("https://quill.example.org/archive"), urls(rtf));
        assertEquals("Runa Tveit", rtf.author());
    }

    private static List<String> urls(ParsedDocument d) {
        List<String> out = new ArrayList<>();
        for (ParsedDocument.Link l : d.links()) out.add(l.url());
        return out;
    }

    @Test
    void aMalformedFileOfEachFormatIsAClearErrorNotACrashOrAHang() {
        Map<DocumentFormat, byte[]> real = Map.of(
                DocumentFormat.DOC, OfficeDocuments.doc(),
                DocumentFormat.DOCX, OfficeDocuments.docx("T", "Some words.", "https://x.example.org/"),
                DocumentFormat.XLS, OfficeDocuments.xls("T", "some words"),
                DocumentFormat.XLSX, OfficeDocuments.xlsx("T", List.of("some words")),
                DocumentFormat.PPT, OfficeDocuments.ppt("T", "some words"),
                DocumentFormat.PPTX, OfficeDocuments.pptx("T", List.of("some words")),
                DocumentFormat.ODT, OfficeDocuments.odt("T", "Some words.", "https://x.example.org/"),
                DocumentFormat.EPUB, OfficeDocuments.epub("T", "One.", "Two.", "https://x.example.org/"),
                DocumentFormat.RTF, OfficeDocuments.rtf("T", "Some words.", "https://x.example.org/"));
        for (Map.Entry<DocumentFormat, byte[]> e : real.entrySet()) {
            String url = "http://files.test/broken." + e.getKey().name().toLowerCase();
            byte[] broken = OfficeDocuments.malformed(e.getValue());
            IOException x = assertThrows(IOException.class,
                    () -> assertTimeoutPreemptively(HANG_CAP, () -> parser.parse(url, broken, e.getKey())),
                    e.getKey() + " parsed");
            assertTrue(x.getMessage().contains(e.getKey().label()) && x.getMessage().endsWith(url), x.getMessage());
            System.out.println("malformed " + e.getKey() + ": " + x.getMessage());
        }
    }

    @Test
    void anRtfWhoseBinaryRunIsCutShortIsAClearError() {
        byte[] cut = "{\\rtf1\\ansi {\\fonttbl{\\f0 Times;}} Some words \\bin99999 abc}"
                .getBytes(StandardCharsets.US_ASCII);
        IOException x = assertThrows(IOException.class, () -> parser.parse("http://files.test/cut.rtf", cut,
                DocumentFormat.RTF));
        assertTrue(x.getMessage().startsWith("not a readable RTF (") && x.getMessage().endsWith("cut.rtf"),
                x.getMessage());
    }

    @Test
    void textBeyondTheCharacterBoundIsCutAndMarked() throws IOException {
        StringBuilder words = new StringBuilder();
        for (int i = 0; i < 20_000; i++) words.append("tarnword").append(i).append(' ');
        byte[] docx = OfficeDocuments.docx("Long", words.toString(), "https://x.example.org/");
        TikaDocumentParser small = new TikaDocumentParser(32 << 20, 2000, 10_000, Duration.ofSeconds(30));
        ParsedDocument d = small.parse("http://files.test/long.docx", docx, DocumentFormat.DOCX);
        assertTrue(d.truncated());
        assertTrue(d.body().length() <= 10_000, "body " + d.body().length());
        assertTrue(d.body().contains("tarnword17 "), "the start is kept");
        assertFalse(d.body().contains("tarnword19999"));
    }

    @Test
    void sheetsAndSlidesBeyondThePageBoundAreNotRead() throws IOException {
        TikaDocumentParser twoPages = new TikaDocumentParser(32 << 20, 2, 1 << 20, Duration.ofSeconds(30));
        byte[] xlsx = OfficeDocuments.xlsx("Sheets", List.of("alphasheet words", "betasheet words",
                "gammasheet words", "deltasheet words"));
        ParsedDocument d = twoPages.parse("http://files.test/sheets.xlsx", xlsx, DocumentFormat.XLSX);
        assertTrue(d.body().contains("alphasheet") && d.body().contains("betasheet"), d.body());
        assertFalse(d.body().contains("gammasheet") || d.body().contains("deltasheet"), d.body());
        assertTrue(d.truncated());
        byte[] pptx = OfficeDocuments.pptx("Slides", List.of("alphaslide", "betaslide", "gammaslide"));
        ParsedDocument p = twoPages.parse("http://files.test/slides.pptx", pptx, DocumentFormat.PPTX);
        assertTrue(p.body().contains("betaslide") && !p.body().contains("gammaslide"), p.body());
    }

    @Test
    void aParsePastItsDeadlineIsAbandonedWithAClearError() {
        List<String> sheets = new ArrayList<>();
        for (int s = 0; s < 20; s++) sheets.add("cell ".repeat(5000));
        byte[] big = OfficeDocuments.xlsx("Big", sheets);
        TikaDocumentParser hurried = new TikaDocumentParser(32 << 20, 2000, 1 << 20, Duration.ofMillis(5));
        IOException x = assertThrows(IOException.class, () -> assertTimeoutPreemptively(HANG_CAP,
                () -> hurried.parse("http://files.test/big.xlsx", big, DocumentFormat.XLSX)));
        assertTrue(x.getMessage().startsWith("XLSX text extraction took longer than PT0.005S"), x.getMessage());
    }

    @Test
    void aDocumentLargerThanTheByteBoundIsRefusedUnread() {
        byte[] docx = OfficeDocuments.docx("T", "Some words.", "https://x.example.org/");
        TikaDocumentParser tiny = new TikaDocumentParser(1000, 2000, 1 << 20, Duration.ofSeconds(30));
        IOException x = assertThrows(IOException.class, () -> tiny.parse("http://files.test/a.docx", docx,
                DocumentFormat.DOCX));
        assertTrue(x.getMessage().contains("larger than 1000 bytes"), x.getMessage());
    }

    @Test
    void theFormatComesFromTheHeaderThenTheExtensionThenTheBytes() {
        byte[] docx = OfficeDocuments.docx("T", "Some words.", "https://x.example.org/");
        byte[] odt = OfficeDocuments.odt("T", "Some words.", "https://x.example.org/");
        byte[] epub = OfficeDocuments.epub("T", "One.", "Two.", "https://x.example.org/");
        byte[] xls = OfficeDocuments.xls("T", "some words");
        byte[] rtf = OfficeDocuments.rtf("T", "Some words.", "https://x.example.org/");
        assertEquals(Optional.of(DocumentFormat.DOCX), DocumentFormat.detect("http://h/x",
                DocumentFormat.DOCX.mimeType() + "; charset=binary", docx));
        assertEquals(Optional.of(DocumentFormat.RTF), DocumentFormat.detect("http://h/x", "text/rtf", rtf));
        assertEquals(Optional.of(DocumentFormat.DOCX), DocumentFormat.detect("http://h/a/Report.DOCX?v=2",
                "application/octet-stream", docx));
        assertEquals(Optional.of(DocumentFormat.ODT), DocumentFormat.detect("http://h/download", null, odt));
        assertEquals(Optional.of(DocumentFormat.EPUB), DocumentFormat.detect("http://h/download", "", epub));
        assertEquals(Optional.of(DocumentFormat.OLE2), DocumentFormat.detect("http://h/download", null, xls));
        assertEquals(Optional.of(DocumentFormat.RTF), DocumentFormat.detect("http://h/download", null, rtf));
        assertEquals(Optional.empty(), DocumentFormat.detect("http://h/page.doc", "text/html", docx),
                "a specific header other than these wins over the name");
        assertEquals(Optional.empty(), DocumentFormat.detect("http://h/x.pdf", null, "%PDF-1.7".getBytes()));
        assertEquals(Optional.empty(), DocumentFormat.detect("http://h/x.html", null, "<html>".getBytes()));
    }

    @Test
    void anOle2FileOfUnnamedTypeIsReadByTheRightOfficeParser() {
        ParsedDocument d = parse("http://files.test/download?id=7", OfficeDocuments.xls("Old Inventory",
                "hollowmere drumlin esker"), DocumentFormat.OLE2);
        assertTrue(d.body().contains("hollowmere"), d.body());
        assertEquals("application/vnd.ms-excel", d.mimeType());
    }
}
