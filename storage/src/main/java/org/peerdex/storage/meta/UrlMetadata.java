package org.peerdex.storage.meta;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import org.peerdex.protocol.WireMessage;
import org.peerdex.protocol.hash.UrlHash;

/**
 * What a result shows and the ranking needs about one URL, kept on the crawling peer and on the R holders of the
 * URL hash's position.
 *
 * @param holder       peer id of the crawling peer (its text is there), or null if this peer crawled it
 * @param lastModified epoch milliseconds of the document's date (Last-Modified or a date in the page), 0 unknown
 * @param fetched      epoch milliseconds of the fetch
 * @param contentHash  hash of the extracted text, for duplicate detection
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record UrlMetadata(UrlHash urlHash, String url, String title, String description, String author,
                          List<String> keywords, String language, String doctype, String mimeType, long size,
                          long lastModified, long fetched, int linksLocal, int linksOther, int wordsInText,
                          String holder, String contentHash, List<String> headings) implements WireMessage {
    public UrlMetadata {
        title = title == null ? "" : title;
        description = description == null ? "" : description;
        author = author == null ? "" : author;
        keywords = keywords == null ? List.of() : List.copyOf(keywords);
        language = language == null ? "" : language;
        doctype = doctype == null ? "h" : doctype;
        mimeType = mimeType == null ? "" : mimeType;
        headings = headings == null ? List.of() : List.copyOf(headings);
    }

    /** The host part of the URL. */
    public String host() {
        try {
            String h = URI.create(url).getHost();
            return h == null ? "" : h;
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    /** The file extension of the URL's path, lower case, or "html" for a directory-like path. */
    public String filetype() {
        String path;
        try {
            path = URI.create(url).getPath();
        } catch (IllegalArgumentException e) {
            return "";
        }
        if (path == null || path.isEmpty() || path.endsWith("/")) return "html";
        String last = path.substring(path.lastIndexOf('/') + 1);
        int dot = last.lastIndexOf('.');
        return dot < 0 ? "html" : last.substring(dot + 1).toLowerCase(Locale.ROOT);
    }
}
