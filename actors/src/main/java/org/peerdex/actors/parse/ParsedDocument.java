package org.peerdex.actors.parse;

import java.util.List;
import org.peerdex.storage.meta.PageImage;
import org.peerdex.storage.text.DocumentText;

/**
 * What the parser got out of one fetched document.
 *
 * @param url         the normalized URL of the document
 * @param doctype     'h' html, 't' plain text, 'd' an office document, EPUB or RTF (TikaDocumentParser)
 * @param language    ISO 639-1 code ("" unknown); from the lang attribute or detected from the text
 * @param links       outgoing links, resolved against {@code <base>} and normalized, deduplicated, bounded
 * @param canonical   the normalized {@code <link rel=canonical>} target, or ""
 * @param contentHash hex MD5 over the title and the whitespace-normalized body text, for duplicate detection
 * @param truncated   the body text was cut at the parser's bound
 * @param images      the images of the main content ({@code img} with an http(s) source), bounded; none for text
 */
public record ParsedDocument(String url, char doctype, String mimeType, String charset, String title,
                             String description, List<String> keywords, String author, String language,
                             List<String> headings, List<String> emphasized, List<Link> links, boolean noindex,
                             boolean nofollow, String canonical, String body, String contentHash, boolean truncated,
                             List<PageImage> images) {

    /** One outgoing link with its anchor text (or the alt text of a linked image). */
    public record Link(String url, String anchor, boolean nofollow) {}

    public ParsedDocument {
        keywords = List.copyOf(keywords);
        headings = List.copyOf(headings);
        emphasized = List.copyOf(emphasized);
        links = List.copyOf(links);
        images = images == null ? List.of() : List.copyOf(images);
    }

    /** A document without images (text, office documents). */
    public ParsedDocument(String url, char doctype, String mimeType, String charset, String title, String description,
                          List<String> keywords, String author, String language, List<String> headings,
                          List<String> emphasized, List<Link> links, boolean noindex, boolean nofollow,
                          String canonical, String body, String contentHash, boolean truncated) {
        this(url, doctype, mimeType, charset, title, description, keywords, author, language, headings, emphasized,
                links, noindex, nofollow, canonical, body, contentHash, truncated, List.of());
    }

    /** The text fields for the condenser; {@code inboundAnchors} are anchor texts of links pointing here. */
    public DocumentText toDocumentText(List<String> inboundAnchors) {
        return new DocumentText(url, title, description, keywords, author, headings, emphasized,
                inboundAnchors == null ? List.of() : List.copyOf(inboundAnchors), body);
    }
}
