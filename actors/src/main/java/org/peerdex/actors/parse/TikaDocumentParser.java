package org.peerdex.actors.parse;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.tika.exception.WriteLimitReachedException;
import org.apache.tika.extractor.DocumentSelector;
import org.apache.tika.io.TikaInputStream;
import org.apache.tika.metadata.Metadata;
import org.apache.tika.metadata.Office;
import org.apache.tika.metadata.TikaCoreProperties;
import org.apache.tika.parser.ParseContext;
import org.apache.tika.parser.Parser;
import org.apache.tika.parser.epub.EpubParser;
import org.apache.tika.parser.microsoft.OfficeParser;
import org.apache.tika.parser.microsoft.ooxml.OOXMLParser;
import org.apache.tika.parser.microsoft.rtf.RTFParser;
import org.apache.tika.parser.odf.OpenDocumentParser;
import org.apache.tika.sax.BodyContentHandler;
import org.apache.tika.sax.TeeContentHandler;
import org.apache.tika.sax.WriteOutContentHandler;
import org.peerdex.protocol.url.UrlNormalizer;
import org.xml.sax.Attributes;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Office documents (doc/docx, xls/xlsx, ppt/pptx, odt/ods/odp), EPUB e-books and RTF through Apache Tika, into
 * {@link ParsedDocument}s like {@link HtmlDocumentParser}'s: title, author, keywords, description, language,
 * headings, emphasis, the absolute links (a DOCX's hyperlinks) and the text. Bounded per document like the PDF
 * path: input bytes, pages (sheets and slides), characters of text (Tika's {@link WriteOutContentHandler}) and
 * time: the parse runs on a thread of this parser's small pool and is abandoned at its deadline; the SAX events
 * check the deadline too, so a parse that still produces text stops there. Embedded files (an OLE object in a
 * DOCX, an EPUB's images) are not opened. Thread-safe.
 */
public final class TikaDocumentParser {
    /** YaCy's doctype for office documents ('p' is PDF, 'h' HTML, 't' text). */
    public static final char DOCTYPE = 'd';
    public static final int DEFAULT_MAX_TEXT_CHARS = HtmlDocumentParser.DEFAULT_MAX_TEXT_CHARS;
    private static final int PARSE_THREADS = 2;
    private static final int MAX_WAITING = 64;
    private static final int MAX_LINKS = HtmlDocumentParser.DEFAULT_MAX_LINKS;
    private static final int MAX_FIELD_ITEMS = 300;
    private static final int MAX_FIELD_CHARS = 1000;
    private static final int MAX_ANCHOR_CHARS = 200;
    private static final Set<String> PAGE_CLASSES = Set.of("page", "sheet", "slide-content");
    private static final AtomicInteger THREAD_NUMBER = new AtomicInteger();

    private final long maxBytes;
    private final int maxPages;
    private final int maxTextChars;
    private final Duration timeout;
    private final ThreadPoolExecutor threads;
    private final Map<DocumentFormat.Container, Parser> parsers = new EnumMap<>(DocumentFormat.Container.class);

    /**
     * @param maxBytes     a larger document is refused unread
     * @param maxPages     sheets of a spreadsheet, slides of a presentation read at most (the text so far is kept)
     * @param maxTextChars characters of text kept (the document counts as truncated beyond)
     * @param timeout      a parse is abandoned after this long, waiting for a free parser thread included
     */
    public TikaDocumentParser(long maxBytes, int maxPages, int maxTextChars, Duration timeout) {
        this.maxBytes = maxBytes;
        this.maxPages = maxPages;
        this.maxTextChars = maxTextChars;
        this.timeout = timeout;
        this.threads = new ThreadPoolExecutor(PARSE_THREADS, PARSE_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(MAX_WAITING), r -> {
                    Thread t = new Thread(r, "tika-parse-" + THREAD_NUMBER.incrementAndGet());
                    t.setDaemon(true); // a parse that ignores its interrupt must not keep the JVM alive
                    return t;
                });
        threads.allowCoreThreadTimeOut(true);
        parsers.put(DocumentFormat.Container.OLE2, new OfficeParser());
        parsers.put(DocumentFormat.Container.OOXML, new OOXMLParser());
        parsers.put(DocumentFormat.Container.ODF, new OpenDocumentParser());
        parsers.put(DocumentFormat.Container.EPUB, new EpubParser());
        parsers.put(DocumentFormat.Container.RTF, new RTFParser());
    }

    /**
     * Parses {@code body} fetched from (or imported as) {@code url}.
     *
     * @throws IllegalArgumentException if the URL is not an http(s) URL
     * @throws IOException              if the document cannot be read within its bounds; the message names the
     *                                  format, the reason and the URL
     */
    public ParsedDocument parse(String url, byte[] body, DocumentFormat format) throws IOException {
        String normal = UrlNormalizer.normalize(url)
                .orElseThrow(() -> new IllegalArgumentException("not an http(s) URL: " + url));
        if (body.length > maxBytes) throw new IOException(url + " is larger than " + maxBytes + " bytes");
        long deadline = System.nanoTime() + timeout.toNanos();
        Future<Extract> task;
        try {
            task = threads.submit(() -> extract(body, format, deadline));
        } catch (RejectedExecutionException e) {
            throw new IOException("too many documents wait for a parser; not parsed: " + url);
        }
        Extract x;
        try {
            x = task.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            task.cancel(true);
            throw timedOut(format, url);
        } catch (InterruptedException e) {
            task.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while parsing " + url);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (causedBy(cause, PastDeadline.class)) throw timedOut(format, url);
            throw new IOException("not a readable " + format.label() + " (" + reason(cause) + "): " + url, cause);
        }
        if (x.structure.pastDeadline) throw timedOut(format, url);
        if (x.text.isBlank() && first(x.metadata.get(TikaCoreProperties.TITLE)).isEmpty()) {
            // a parser that salvages what it can returns nothing for noise that merely starts like the format
            throw new IOException("no text in the " + format.label() + " (empty, or not readable as one): " + url);
        }
        return toParsed(normal, format, x);
    }

    private IOException timedOut(DocumentFormat format, String url) {
        return new IOException(format.label() + " text extraction took longer than " + timeout + ": " + url);
    }

    /** What one parse produced, before it becomes a {@link ParsedDocument}. */
    private record Extract(Metadata metadata, String text, Structure structure, boolean truncated) {}

    /** Runs on a parser thread. */
    private Extract extract(byte[] body, DocumentFormat format, long deadline) throws Exception {
        Metadata metadata = new Metadata();
        metadata.set(Metadata.CONTENT_TYPE, format.mimeType());
        ParseContext context = new ParseContext();
        DocumentSelector noEmbedded = m -> false;
        context.set(DocumentSelector.class, noEmbedded);
        StringWriter text = new StringWriter();
        Structure structure = new Structure(deadline, maxPages);
        BodyContentHandler bodyText = new BodyContentHandler(new WriteOutContentHandler(text, maxTextChars));
        boolean truncated = false;
        try (TikaInputStream in = TikaInputStream.get(body)) {
            parsers.get(format.container()).parse(in, new TeeContentHandler(bodyText, structure), metadata, context);
        } catch (Exception e) {
            // the character or page bound ended the parse: keep what was read
            if (!WriteLimitReachedException.isWriteLimitReached(e) && !causedBy(e, PageLimit.class)) throw e;
            truncated = true;
        }
        return new Extract(metadata, text.toString(), structure, truncated || structure.pagesCut);
    }

    private ParsedDocument toParsed(String url, DocumentFormat format, Extract x) {
        Metadata m = x.metadata;
        String rawText = x.text;
        String body = rawText.replaceAll("\\s+", " ").strip();
        String title = first(m.get(TikaCoreProperties.TITLE));
        if (title.isEmpty() && !x.structure.headings.isEmpty()) title = x.structure.headings.get(0);
        if (title.isEmpty()) title = rawText.strip().lines().findFirst().orElse("").strip();
        title = clip(title.replaceAll("\\s+", " "), 200);
        Set<String> keywords = new LinkedHashSet<>();
        for (String[] values : List.of(m.getValues(Office.KEYWORDS), m.getValues(TikaCoreProperties.SUBJECT))) {
            for (String v : values) {
                for (String k : v.split("[,;]")) {
                    if (!k.isBlank() && keywords.size() < MAX_FIELD_ITEMS) keywords.add(clip(k.strip(), 100));
                }
            }
        }
        String author = clip(String.join(", ", m.getValues(TikaCoreProperties.CREATOR)).strip(), MAX_FIELD_CHARS);
        String description = clip(first(m.get(TikaCoreProperties.DESCRIPTION)), MAX_FIELD_CHARS * 4);
        String language = LanguageDetector.normalizeTag(first(m.get(TikaCoreProperties.LANGUAGE)));
        if (language.isEmpty()) language = LanguageDetector.detect(title + " " + body);
        String mime = format.mimeType();
        String reported = ContentSniffer.mimeType(m.get(Metadata.CONTENT_TYPE));
        if ((format == DocumentFormat.OLE2 || format == DocumentFormat.OOXML) && !reported.isEmpty()) mime = reported;
        return new ParsedDocument(url, DOCTYPE, mime, "", title, description, new ArrayList<>(keywords), author,
                language, x.structure.headings, x.structure.emphasized, new ArrayList<>(x.structure.links.values()),
                false, false, "", body, HtmlDocumentParser.contentHash(title, body), x.truncated);
    }

    private static String first(String s) {
        return s == null ? "" : s.strip();
    }

    private static String clip(String s, int max) {
        return s.length() > max ? s.substring(0, max) : s;
    }

    private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
        for (int depth = 0; t != null && depth < 20; t = t.getCause(), depth++) {
            if (type.isInstance(t)) return true;
            if (t instanceof SAXException s && type.isInstance(s.getException())) return true;
        }
        return false;
    }

    /** The innermost message worth showing. */
    private static String reason(Throwable t) {
        String why = t.getClass().getSimpleName();
        for (int depth = 0; t != null && depth < 20; t = t.getCause(), depth++) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) why = t.getMessage();
        }
        return clip(why.strip(), 300);
    }

    /** Thrown from the SAX events once the deadline has passed. */
    private static final class PastDeadline extends SAXException {
        PastDeadline() {
            super("past the parse deadline");
        }
    }

    /** Thrown from the SAX events once the page bound is reached. */
    private static final class PageLimit extends SAXException {
        PageLimit() {
            super("page limit reached");
        }
    }

    /**
     * Collects headings, emphasis and absolute links from Tika's XHTML events, each bounded, counts pages (a
     * spreadsheet's sheets, a presentation's slides) and checks the deadline on every event.
     */
    private static final class Structure extends DefaultHandler {
        final List<String> headings = new ArrayList<>();
        final List<String> emphasized = new ArrayList<>();
        final Map<String, ParsedDocument.Link> links = new LinkedHashMap<>();
        private final long deadline;
        private final int maxPages;
        private int pages;
        boolean pastDeadline;
        boolean pagesCut;
        private boolean inBody;
        private StringBuilder heading;
        private StringBuilder emphasis;
        private int emphasisDepth;
        private StringBuilder anchor;
        private String anchorTarget;

        Structure(long deadline, int maxPages) {
            this.deadline = deadline;
            this.maxPages = maxPages;
        }

        private void check() throws SAXException {
            if (System.nanoTime() > deadline) {
                pastDeadline = true;
                throw new PastDeadline();
            }
        }

        private static String name(String localName, String qName) {
            String n = localName == null || localName.isEmpty() ? qName : localName;
            return n == null ? "" : n.toLowerCase(Locale.ROOT);
        }

        @Override
        public void startElement(String uri, String localName, String qName, Attributes atts) throws SAXException {
            check();
            String n = name(localName, qName);
            if (n.equals("body")) inBody = true;
            if (!inBody) return;
            switch (n) {
                case "h1", "h2", "h3", "h4", "h5", "h6" -> heading = new StringBuilder();
                case "b", "strong", "i", "em" -> {
                    if (emphasisDepth++ == 0) emphasis = new StringBuilder();
                }
                case "a" -> {
                    String href = atts.getValue("href");
                    // links inside the container (an EPUB's chapters, a DOCX's bookmarks) are not web links
                    if (href != null && href.regionMatches(true, 0, "http", 0, 4)) {
                        anchorTarget = UrlNormalizer.normalize(href.strip()).orElse(null);
                        anchor = new StringBuilder();
                    }
                }
                case "div" -> {
                    String cls = atts.getValue("class");
                    if (cls != null && PAGE_CLASSES.contains(cls.strip()) && ++pages > maxPages) {
                        pagesCut = true;
                        throw new PageLimit();
                    }
                }
                default -> { }
            }
        }

        @Override
        public void characters(char[] ch, int start, int length) throws SAXException {
            check();
            if (!inBody) return;
            append(heading, ch, start, length, MAX_FIELD_CHARS);
            append(emphasis, ch, start, length, MAX_FIELD_CHARS);
            append(anchor, ch, start, length, MAX_ANCHOR_CHARS);
        }

        private static void append(StringBuilder b, char[] ch, int start, int length, int max) {
            if (b != null && b.length() < max) b.append(ch, start, Math.min(length, max - b.length()));
        }

        @Override
        public void endElement(String uri, String localName, String qName) throws SAXException {
            check();
            switch (name(localName, qName)) {
                case "h1", "h2", "h3", "h4", "h5", "h6" -> {
                    add(headings, heading);
                    heading = null;
                }
                case "b", "strong", "i", "em" -> {
                    if (emphasisDepth > 0 && --emphasisDepth == 0) {
                        add(emphasized, emphasis);
                        emphasis = null;
                    }
                }
                case "a" -> {
                    if (anchor != null && anchorTarget != null && links.size() < MAX_LINKS) {
                        String text = anchor.toString().replaceAll("\\s+", " ").strip();
                        ParsedDocument.Link prev = links.get(anchorTarget);
                        if (prev == null || prev.anchor().isEmpty() && !text.isEmpty()) {
                            links.put(anchorTarget, new ParsedDocument.Link(anchorTarget, text, false));
                        }
                    }
                    anchor = null;
                    anchorTarget = null;
                }
                case "body" -> inBody = false;
                default -> { }
            }
        }

        private static void add(List<String> to, StringBuilder b) {
            if (b == null || to.size() >= MAX_FIELD_ITEMS) return;
            String t = b.toString().replaceAll("\\s+", " ").strip();
            if (!t.isEmpty()) to.add(t);
        }
    }
}
