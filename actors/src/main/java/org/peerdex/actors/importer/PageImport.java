package org.peerdex.actors.importer;

import java.io.IOException;
import java.util.Optional;

/**
 * Fetches one page for an importer and hands it to the job: HTML, text and PDF through the
 * {@link DocumentExtractor}; a non-200 answer or a refused address is an error, a type no parser reads is
 * skipped. Until the crawler is merged, sitemap, forum and scanner imports fetch through this (no robots.txt,
 * no per-host politeness beyond one request at a time).
 */
public final class PageImport {
    private final PageFetcher fetcher;
    private final DocumentExtractor extractor;

    public PageImport(PageFetcher fetcher, DocumentExtractor extractor) {
        this.fetcher = fetcher;
        this.extractor = extractor;
    }

    public PageFetcher fetcher() {
        return fetcher;
    }

    public DocumentExtractor extractor() {
        return extractor;
    }

    /** Fetches and indexes the page; returns the document (for its links) if it was indexed. */
    public Optional<ImportedDocument> fetchAndIndex(ImportJob.Context ctx, String url, long knownLastModified) {
        if (knownLastModified != 0 && ctx.unchanged(url, knownLastModified)) {
            ctx.skipped("unchanged: " + url);
            return Optional.empty();
        }
        try {
            PageFetcher.Fetched f = fetcher.get(url);
            if (f.status() != 200) {
                ctx.error("HTTP " + f.status() + " from " + url);
                return Optional.empty();
            }
            long date = knownLastModified != 0 ? knownLastModified : f.lastModified();
            ImportedDocument d = extractor.extract(f.url(), f.body(), f.contentType(), date);
            ctx.document(d);
            return Optional.of(d);
        } catch (DocumentExtractor.UnsupportedTypeException e) {
            ctx.skipped(e.getMessage());
        } catch (FetchPolicy.RefusedException e) {
            ctx.error("refused: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            ctx.error(url + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        }
        return Optional.empty();
    }
}
