package org.peerdex.actors.importer;

import java.util.List;

/**
 * One document an importer hands to the indexer: a feed entry, an OAI-PMH record, a wiki page, a fetched page or
 * an extracted PDF. Only {@code url} is required.
 *
 * @param doctype      'h' html, 't' plain text (wiki pages, records), 'p' pdf, 'd' office document, EPUB, RTF
 * @param lastModified epoch milliseconds of the document's own date, 0 unknown
 * @param links        outgoing links (absolute URLs), counted for the metadata
 */
public record ImportedDocument(String url, String title, String description, String author, List<String> keywords,
                               List<String> headings, List<String> emphasized, String body, String language,
                               String mimeType, char doctype, long lastModified, long size, List<String> links) {
    public ImportedDocument {
        title = title == null ? "" : title;
        description = description == null ? "" : description;
        author = author == null ? "" : author;
        keywords = keywords == null ? List.of() : List.copyOf(keywords);
        headings = headings == null ? List.of() : List.copyOf(headings);
        emphasized = emphasized == null ? List.of() : List.copyOf(emphasized);
        body = body == null ? "" : body;
        language = language == null ? "" : language;
        mimeType = mimeType == null ? "text/plain" : mimeType;
        links = links == null ? List.of() : List.copyOf(links);
    }

    /** A plain-text document with a title and a body. */
    public static ImportedDocument text(String url, String title, String body, long lastModified) {
        return new ImportedDocument(url, title, "", "", List.of(), List.of(), List.of(), body, "", "text/plain", 't',
                lastModified, body == null ? 0 : body.length(), List.of());
    }
}
