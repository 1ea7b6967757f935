package org.peerdex.actors.importer;

import java.util.List;
import org.peerdex.actors.crawl.PageProcessor;
import org.peerdex.actors.parse.DocumentFormat;
import org.peerdex.actors.parse.HtmlDocumentParser;
import org.peerdex.actors.parse.LanguageDetector;
import org.peerdex.actors.parse.ParsedDocument;

/**
 * The importers' {@link DocumentExtractor} as the crawler's reader of PDF, office documents, EPUB and RTF: a crawl
 * whose {@code contentTypes} accept such a type (the crawls of sitemap imports accept every type) indexes its text
 * and document information like a document import does. The bounds are those of {@code peerdex.importer.documents}.
 */
public final class CrawlDocuments implements PageProcessor.Documents {
    private final DocumentExtractor extractor;

    public CrawlDocuments(DocumentExtractor extractor) {
        this.extractor = extractor;
    }

    @Override
    public boolean reads(String url, String contentType, byte[] body) {
        return DocumentExtractor.isPdf(body, contentType) || DocumentFormat.detect(url, contentType, body).isPresent();
    }

    @Override
    public ParsedDocument parse(String url, byte[] body, String contentType) throws Exception {
        ImportedDocument d = extractor.extract(url, body, contentType, 0);
        String text = d.body();
        String language = d.language().isEmpty() ? LanguageDetector.detect(d.title() + " " + text) : d.language();
        return new ParsedDocument(url, d.doctype(), d.mimeType(), "", d.title(), d.description(), d.keywords(),
                d.author(), language, d.headings(), d.emphasized(), List.of(), false, false, "", text,
                HtmlDocumentParser.contentHash(d.title(), text), false);
    }
}
