package org.peerdex.actors.crawl;

import java.util.Locale;
import org.peerdex.actors.parse.ContentSniffer;
import org.peerdex.actors.parse.HtmlDocumentParser;
import org.peerdex.actors.parse.ParsedDocument;

/**
 * Fetches and parses one URL into a {@link PageOutcome}: the blocking work of a fetch worker. HTML and text go to
 * the HTML parser; the formats of {@link Documents} (PDF, office documents, EPUB, RTF: the importers' extractor, see
 * {@code CrawlDocuments}) to it, for crawls whose {@code contentTypes} accept them. Thread-safe.
 */
public final class PageProcessor {
    private final Fetcher fetcher;
    private final HtmlDocumentParser parser;
    private final Documents documents;

    /** A reader of document formats besides HTML and text. */
    public interface Documents {
        /** Whether this response is one of its formats. */
        boolean reads(String url, String contentType, byte[] body);

        /** The document's text and metadata. @throws Exception when it cannot be read within its bounds */
        ParsedDocument parse(String url, byte[] body, String contentType) throws Exception;
    }

    public PageProcessor(Fetcher fetcher, HtmlDocumentParser parser) {
        this(fetcher, parser, null);
    }

    private PageProcessor(Fetcher fetcher, HtmlDocumentParser parser, Documents documents) {
        this.fetcher = fetcher;
        this.parser = parser;
        this.documents = documents;
    }

    /** The same processor, reading these document formats too. */
    public PageProcessor withDocuments(Documents d) {
        return new PageProcessor(fetcher, parser, d);
    }

    public PageOutcome process(String url, CrawlScope scope) {
        return process(url, scope, status -> { });
    }

    /**
     * Fetches and parses; {@code responded} hears the status once the response is read, before parsing (the host
     * queue lets the next request of the host go out from then on).
     */
    public PageOutcome process(String url, CrawlScope scope, java.util.function.IntConsumer responded) {
        Fetcher.Response r;
        try {
            r = fetcher.fetch(url);
        } catch (Fetcher.FetchException e) {
            return new PageOutcome.Failed(e.kind(), 0, e.getMessage(), e.redirects());
        }
        int status = r.status();
        responded.accept(status);
        if (status == 429 || status == 503) return new PageOutcome.RetryLater(status, r.retryAfterMs(), "HTTP " + status);
        if (status >= 300) return new PageOutcome.Failed("http-" + status, status, "HTTP " + status, r.redirects());
        if (status < 200) return new PageOutcome.Failed("http-" + status, status, "HTTP " + status, r.redirects());
        String mime = ContentSniffer.mimeType(r.contentType());
        if (!scope.acceptsType(mime)) {
            return new PageOutcome.Skipped("content-type", status, mime, r.redirects());
        }
        long t0 = System.nanoTime();
        ParsedDocument doc;
        try {
            if (documents != null && documents.reads(r.url(), r.contentType(), r.body())) {
                try {
                    doc = documents.parse(r.url(), r.body(), r.contentType());
                } catch (Exception e) {
                    return new PageOutcome.Failed("parse", status, e.getMessage() == null
                            ? e.getClass().getSimpleName() : e.getMessage(), r.redirects());
                }
            } else {
                doc = parser.parse(r.url(), r.body(), r.contentType());
            }
        } catch (HtmlDocumentParser.NotTextException e) {
            return new PageOutcome.Skipped("binary-content", status, "binary body labelled " + mime, r.redirects());
        } catch (RuntimeException e) {
            return new PageOutcome.Failed("parse", status, e.getClass().getSimpleName() + ": " + e.getMessage(),
                    r.redirects());
        }
        String tag = r.robotsTag().toLowerCase(Locale.ROOT);
        if (tag.contains("noindex") || tag.contains("nofollow") || tag.contains("none")) {
            doc = new ParsedDocument(doc.url(), doc.doctype(), doc.mimeType(), doc.charset(), doc.title(),
                    doc.description(), doc.keywords(), doc.author(), doc.language(), doc.headings(), doc.emphasized(),
                    doc.links(), doc.noindex() || tag.contains("noindex") || tag.contains("none"),
                    doc.nofollow() || tag.contains("nofollow") || tag.contains("none"), doc.canonical(), doc.body(),
                    doc.contentHash(), doc.truncated(), doc.images());
        }
        long parseMs = (System.nanoTime() - t0) / 1_000_000;
        return new PageOutcome.Fetched(doc.url(), status, r.redirects(), doc, r.body().length,
                r.truncated() || doc.truncated(), r.lastModified(), r.millis(), parseMs, null);
    }
}
