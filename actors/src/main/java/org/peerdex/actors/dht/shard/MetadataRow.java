package org.peerdex.actors.dht.shard;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.meta.UrlMetadata;

/**
 * A URL's metadata as an array of its fields in {@link UrlMetadata}'s order, without their names: what a
 * {@link ShardOwner.MetadataReply} to an asker that reads rows carries (about 150 bytes a record less than the
 * record with its field names). Elements past the last field are ignored, so a later field can be added at the end.
 */
@JsonFormat(shape = JsonFormat.Shape.ARRAY)
@JsonPropertyOrder({"urlHash", "url", "title", "description", "author", "keywords", "language", "doctype", "mimeType",
        "size", "lastModified", "fetched", "linksLocal", "linksOther", "wordsInText", "holder", "contentHash", "headings"})
public record MetadataRow(String urlHash, String url, String title, String description, String author,
                          List<String> keywords, String language, String doctype, String mimeType, long size,
                          long lastModified, long fetched, int linksLocal, int linksOther, int wordsInText,
                          String holder, String contentHash, List<String> headings) {
    public static MetadataRow of(UrlMetadata m) {
        return new MetadataRow(m.urlHash().value(), m.url(), m.title(), m.description(), m.author(), m.keywords(),
                m.language(), m.doctype(), m.mimeType(), m.size(), m.lastModified(), m.fetched(), m.linksLocal(),
                m.linksOther(), m.wordsInText(), m.holder(), m.contentHash(), m.headings());
    }

    /** The metadata; throws IllegalArgumentException when the URL hash is malformed (its reader drops the row). */
    public UrlMetadata metadata() {
        if (urlHash == null) throw new IllegalArgumentException("a row without a URL hash");
        try {
            return new UrlMetadata(new UrlHash(urlHash), url, title, description, author, keywords, language, doctype,
                    mimeType, size, lastModified, fetched, linksLocal, linksOther, wordsInText, holder, contentHash,
                    headings);
        } catch (NullPointerException e) { // a null inside a list
            throw new IllegalArgumentException("a null in a row's list", e);
        }
    }
}
