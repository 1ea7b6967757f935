package org.peerdex.actors.parse;

import java.awt.geom.Rectangle2D;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.poi.hslf.usermodel.HSLFSlide;
import org.apache.poi.hslf.usermodel.HSLFSlideShow;
import org.apache.poi.hslf.usermodel.HSLFTextBox;
import org.apache.poi.hssf.usermodel.HSSFWorkbook;
import org.apache.poi.ss.usermodel.Row;
import org.apache.poi.ss.usermodel.Sheet;
import org.apache.poi.ss.usermodel.Workbook;
import org.apache.poi.xslf.usermodel.XMLSlideShow;
import org.apache.poi.xslf.usermodel.XSLFSlide;
import org.apache.poi.xslf.usermodel.XSLFTextBox;
import org.apache.poi.xssf.usermodel.XSSFWorkbook;
import org.apache.poi.xwpf.usermodel.XWPFDocument;
import org.apache.poi.xwpf.usermodel.XWPFHyperlinkRun;
import org.apache.poi.xwpf.usermodel.XWPFParagraph;
import org.apache.poi.xwpf.usermodel.XWPFRun;

/**
 * Real office documents, e-books and RTF for the parser tests: the Microsoft formats written by Apache POI (the
 * library Tika reads them with), ODF and EPUB as the ZIP packages their specifications describe (a stored
 * "mimetype" entry first, a manifest or container, XML/XHTML content), RTF as RTF text, and a Word 97 .doc saved by
 * LibreOffice (POI cannot write a .doc from scratch). Each carries a title and the given words.
 */
public final class OfficeDocuments {
    private OfficeDocuments() {}

    /** A DOCX with a title, an author, keywords, a bold run, the words and a hyperlink to {@code link}. */
    public static byte[] docx(String title, String words, String link) {
        try (XWPFDocument doc = new XWPFDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            doc.getProperties().getCoreProperties().setTitle(title);
            doc.getProperties().getCoreProperties().setCreator("Runa Tveit");
            doc.getProperties().getCoreProperties().setKeywords("ropes, buffers");
            XWPFParagraph p = doc.createParagraph();
            XWPFRun bold = p.createRun();
            bold.setBold(true);
            bold.setText("Summary. ");
            p.createRun().setText(words);
            XWPFParagraph second = doc.createParagraph();
            second.createRun().setText("Read more in ");
            XWPFHyperlinkRun a = second.createHyperlinkRun(link);
            a.setText("the design notes");
            doc.write(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An XLSX with a title and one sheet per entry of {@code sheets} holding its words, one per cell. */
    public static byte[] xlsx(String title, List<String> sheets) {
        try (XSSFWorkbook wb = new XSSFWorkbook(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            wb.getProperties().getCoreProperties().setTitle(title);
            fill(wb, sheets);
            wb.write(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An Excel 97 XLS with a title and one sheet of the words. */
    public static byte[] xls(String title, String words) {
        try (HSSFWorkbook wb = new HSSFWorkbook(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            wb.createInformationProperties();
            wb.getSummaryInformation().setTitle(title);
            fill(wb, List.of(words));
            wb.write(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void fill(Workbook wb, List<String> sheets) {
        for (int s = 0; s < sheets.size(); s++) {
            Sheet sheet = wb.createSheet("Sheet " + (s + 1));
            String[] words = sheets.get(s).split(" ");
            for (int i = 0; i < words.length; i++) {
                Row row = sheet.getRow(i / 4) == null ? sheet.createRow(i / 4) : sheet.getRow(i / 4);
                row.createCell(i % 4).setCellValue(words[i]);
            }
        }
    }

    /** A PPTX with a title and one slide per entry of {@code slides}. */
    public static byte[] pptx(String title, List<String> slides) {
        try (XMLSlideShow show = new XMLSlideShow(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            show.getProperties().getCoreProperties().setTitle(title);
            for (String text : slides) {
                XSLFSlide slide = show.createSlide();
                XSLFTextBox box = slide.createTextBox();
                box.setAnchor(new Rectangle2D.Double(50, 50, 600, 300));
                box.setText(text);
            }
            show.write(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A PowerPoint 97 PPT with a title and one slide of the words. */
    public static byte[] ppt(String title, String words) {
        try (HSLFSlideShow show = new HSLFSlideShow(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            show.createInformationProperties();
            show.getSummaryInformation().setTitle(title);
            HSLFSlide slide = show.createSlide();
            HSLFTextBox box = slide.createTextBox();
            box.setAnchor(new Rectangle2D.Double(50, 50, 600, 300));
            box.setText(words);
            show.write(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A Word 97 .doc saved by LibreOffice 7.4 from {@code parse/word97.html} (committed beside it): title
     * "Fjordline Handbook", author "Runa Tveit", keywords "fjords, handbook", a heading, "The quillwort scheduler
     * rotates the bramblefinch queue every night." and a link to https://fjordline.example.org/handbook.
     */
    public static byte[] doc() {
        try (InputStream in = OfficeDocuments.class.getResourceAsStream("/parse/word97.doc")) {
            if (in == null) throw new IllegalStateException("missing test resource /parse/word97.doc");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The words of {@link #doc()}. */
    public static final String DOC_WORDS = "quillwort bramblefinch";

    /** An OpenDocument text: stored mimetype first, manifest, meta.xml (title, author, language), content.xml. */
    public static byte[] odt(String title, String words, String link) {
        String content = """
                <?xml version="1.0" encoding="UTF-8"?>
                <office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
                    xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
                    xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3">
                  <office:body><office:text>
                    <text:h text:outline-level="1">%s</text:h>
                    <text:p>%s</text:p>
                    <text:p>See <text:a xlink:type="simple" xlink:href="%s">the project site</text:a>.</text:p>
                  </office:text></office:body>
                </office:document-content>
                """.formatted(xml(title), xml(words), xml(link));
        String meta = """
                <?xml version="1.0" encoding="UTF-8"?>
                <office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
                    xmlns:dc="http://purl.org/dc/elements/1.1/"
                    xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.3">
                  <office:meta>
                    <dc:title>%s</dc:title>
                    <dc:creator>Runa Tveit</dc:creator>
                    <dc:language>en</dc:language>
                    <meta:keyword>fjords</meta:keyword>
                  </office:meta>
                </office:document-meta>
                """.formatted(xml(title));
        String manifest = """
                <?xml version="1.0" encoding="UTF-8"?>
                <manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"
                    manifest:version="1.3">
                  <manifest:file-entry manifest:full-path="/" manifest:media-type="%s"/>
                  <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
                  <manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/>
                </manifest:manifest>
                """.formatted(DocumentFormat.ODT.mimeType());
        return zip(DocumentFormat.ODT.mimeType(), List.of("META-INF/manifest.xml", manifest, "meta.xml", meta,
                "content.xml", content));
    }

    /** An EPUB 3: stored mimetype first, container.xml, a package document and two XHTML chapters. */
    public static byte[] epub(String title, String chapter1, String chapter2, String link) {
        String container = """
                <?xml version="1.0" encoding="UTF-8"?>
                <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
                  <rootfiles>
                    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
                  </rootfiles>
                </container>
                """;
        String opf = """
                <?xml version="1.0" encoding="UTF-8"?>
                <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
                  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
                    <dc:identifier id="id">urn:uuid:6f1c1a54-3f7e-4d7a-9a55-0d1b4c6f2e11</dc:identifier>
                    <dc:title>%s</dc:title>
                    <dc:creator>Runa Tveit</dc:creator>
                    <dc:language>en</dc:language>
                    <meta property="dcterms:modified">2026-11-15T10:00:00Z</meta>
                  </metadata>
                  <manifest>
                    <item id="c1" href="chapter1.xhtml" media-type="application/xhtml+xml"/>
                    <item id="c2" href="chapter2.xhtml" media-type="application/xhtml+xml"/>
                  </manifest>
                  <spine>
                    <itemref idref="c1"/>
                    <itemref idref="c2"/>
                  </spine>
                </package>
                """.formatted(xml(title));
        return zip(DocumentFormat.EPUB.mimeType(), List.of("META-INF/container.xml", container,
                "OEBPS/content.opf", opf,
                "OEBPS/chapter1.xhtml", xhtml("Chapter One", "<p>" + xml(chapter1) + "</p>"
                        + "<p><a href=\"chapter2.xhtml\">next chapter</a></p>"),
                "OEBPS/chapter2.xhtml", xhtml("Chapter Two", "<p>" + xml(chapter2) + "</p><p><a href=\""
                        + xml(link) + "\">the author's site</a></p>")));
    }

    private static String xhtml(String heading, String body) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
                <head><title>%s</title></head>
                <body><h1>%s</h1>%s</body>
                </html>
                """.formatted(xml(heading), xml(heading), body);
    }

    /** RTF with an info group (title, author), a bold run, the words and a HYPERLINK field. */
    public static byte[] rtf(String title, String words, String link) {
        String rtf = "{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}"
                + "{\\info{\\title " + rtfText(title) + "}{\\author Runa Tveit}}"
                + "\\pard\\plain {\\b Summary.} " + rtfText(words) + "\\par"
                + "\\pard See {\\field{\\*\\fldinst HYPERLINK \"" + link + "\"}{\\fldrslt the archive}}.\\par}";
        return rtf.getBytes(StandardCharsets.US_ASCII);
    }

    private static String rtfText(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '\\' || c == '{' || c == '}') b.append('\\').append(c);
            else if (c > 127) b.append("\\u").append((int) c).append('?');
            else b.append(c);
        }
        return b.toString();
    }

    /** A ZIP package whose first entry is the uncompressed "mimetype" (ODF and EPUB require it), then the rest. */
    static byte[] zip(String mimetype, List<String> namesAndTexts) {
        try (ByteArrayOutputStream out = new ByteArrayOutputStream(); ZipOutputStream zip = new ZipOutputStream(out)) {
            byte[] type = mimetype.getBytes(StandardCharsets.US_ASCII);
            ZipEntry first = new ZipEntry("mimetype");
            first.setMethod(ZipEntry.STORED);
            first.setSize(type.length);
            CRC32 crc = new CRC32();
            crc.update(type);
            first.setCrc(crc.getValue());
            zip.putNextEntry(first);
            zip.write(type);
            zip.closeEntry();
            for (int i = 0; i < namesAndTexts.size(); i += 2) {
                zip.putNextEntry(new ZipEntry(namesAndTexts.get(i)));
                zip.write(namesAndTexts.get(i + 1).getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
            zip.finish();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /**
     * A broken copy of a real document of the format: its first bytes (the signature, so it is still recognised)
     * and then noise where the rest should be.
     */
    public static byte[] malformed(byte[] real) {
        byte[] broken = Arrays.copyOf(real, Math.max(64, real.length / 3));
        Random noise = new Random(42);
        for (int i = 16; i < broken.length; i++) broken[i] = (byte) noise.nextInt(256);
        return broken;
    }
}
