package org.peerdex.actors.importer;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDDocumentInformation;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.encryption.InvalidPasswordException;
import org.apache.pdfbox.text.PDFTextStripper;
import org.apache.pdfbox.text.TextPosition;
import org.peerdex.actors.parse.DocumentFormat;
import org.peerdex.actors.parse.HtmlDocumentParser;
import org.peerdex.actors.parse.ParsedDocument;
import org.peerdex.actors.parse.TikaDocumentParser;

/**
 * Text out of fetched or local documents: PDF through PDFBox (lighter than Tika, and PDF is what the web has most
 * of after HTML); office documents, EPUB and RTF ({@link DocumentFormat}) through Apache Tika
 * ({@link TikaDocumentParser}); HTML and plain text through {@link HtmlDocumentParser}. Bounded per document:
 * bytes, pages and time (the PDF text stripper checks its deadline on every page and every run of text; a Tika
 * parse runs on a thread of its own with a deadline), and characters of text for the Tika formats.
 */
public final class DocumentExtractor {
    private static final HtmlDocumentParser HTML = new HtmlDocumentParser();
    private final long maxBytes;
    private final Duration timeout;
    private final int maxPages;
    private final TikaDocumentParser office;

    /** Thrown for a document of a type no parser here reads (counted as skipped, not as an error). */
    public static final class UnsupportedTypeException extends IOException {
        public UnsupportedTypeException(String message) {
            super(message);
        }
    }

    public DocumentExtractor(long maxBytes, Duration timeout, int maxPages) {
        this.maxBytes = maxBytes;
        this.timeout = timeout;
        this.maxPages = maxPages;
        this.office = new TikaDocumentParser(maxBytes, maxPages, TikaDocumentParser.DEFAULT_MAX_TEXT_CHARS, timeout);
    }

    public static boolean isPdf(byte[] body, String contentType) {
        String ct = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT);
        return ct.startsWith("application/pdf") || ct.startsWith("application/x-pdf")
                || body.length >= 5 && body[0] == '%' && body[1] == 'P' && body[2] == 'D' && body[3] == 'F' && body[4] == '-';
    }

    /**
     * The document at {@code url}: PDF, an office document, EPUB, RTF, HTML or text.
     * @throws IOException if it cannot be read within its bounds
     */
    public ImportedDocument extract(String url, byte[] body, String contentType, long lastModified) throws IOException {
        if (body.length > maxBytes) throw new IOException(url + " is larger than " + maxBytes + " bytes");
        if (isPdf(body, contentType)) return pdf(url, body, lastModified);
        Optional<DocumentFormat> format = DocumentFormat.detect(url, contentType, body);
        if (format.isPresent()) {
            ParsedDocument p = office.parse(url, body, format.get());
            return FeedImport.fromParsed(p, lastModified, body.length, List.of());
        }
        String ct = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT);
        if (!ct.isEmpty() && !ct.startsWith("text/") && !ct.contains("html") && !ct.contains("xml")) {
            throw new UnsupportedTypeException("no parser for " + ct + " (" + url + ")");
        }
        try {
            ParsedDocument p = HTML.parse(url, body, contentType);
            return FeedImport.fromParsed(p, lastModified, body.length, List.of());
        } catch (HtmlDocumentParser.NotTextException e) {
            throw new UnsupportedTypeException("binary content that is no PDF, office document, EPUB or RTF: " + url);
        }
    }

    /** A PDF's text and its document information (title, author, subject, keywords). */
    public ImportedDocument pdf(String url, byte[] body, long lastModified) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (PDDocument doc = Loader.loadPDF(body)) {
            if (doc.isEncrypted() && !doc.getCurrentAccessPermission().canExtractContent()) {
                throw new IOException("the PDF forbids text extraction: " + url);
            }
            BoundedStripper stripper = new BoundedStripper(deadline, url);
            stripper.setSortByPosition(true);
            stripper.setEndPage(maxPages);
            String text = stripper.getText(doc);
            PDDocumentInformation info = doc.getDocumentInformation();
            String title = info.getTitle() == null ? "" : info.getTitle().strip();
            if (title.isEmpty()) {
                title = text.strip().lines().findFirst().orElse("");
                if (title.length() > 120) title = title.substring(0, 120);
            }
            List<String> keywords = new ArrayList<>();
            if (info.getKeywords() != null) {
                for (String k : info.getKeywords().split("[,;]")) if (!k.isBlank()) keywords.add(k.strip());
            }
            long date = lastModified;
            if (date == 0 && info.getModificationDate() != null) date = info.getModificationDate().getTimeInMillis();
            if (date == 0 && info.getCreationDate() != null) date = info.getCreationDate().getTimeInMillis();
            String subject = info.getSubject() == null ? "" : info.getSubject();
            return new ImportedDocument(url, title, subject, info.getAuthor(), keywords, List.of(), List.of(), text, "",
                    "application/pdf", 'p', date, body.length, List.of());
        } catch (InvalidPasswordException e) {
            throw new IOException("the PDF is password-protected: " + url, e);
        } catch (TimedOut e) {
            throw new IOException("text extraction took longer than " + timeout + ": " + url, e);
        } catch (IOException e) {
            if (e instanceof UnsupportedTypeException) throw e;
            throw new IOException("not a readable PDF (" + e.getMessage() + "): " + url, e);
        }
    }

    private static final class TimedOut extends RuntimeException {
        TimedOut() {
            super(null, null, false, false);
        }
    }

    /** Stops extracting once its deadline passes. */
    private static final class BoundedStripper extends PDFTextStripper {
        private final long deadline;

        BoundedStripper(long deadline, String url) {
            this.deadline = deadline;
        }

        private void check() {
            if (System.nanoTime() > deadline) throw new TimedOut();
        }

        @Override
        protected void startPage(PDPage page) throws IOException {
            check();
            super.startPage(page);
        }

        @Override
        protected void writeString(String text, List<TextPosition> positions) throws IOException {
            check();
            super.writeString(text, positions);
        }
    }
}
