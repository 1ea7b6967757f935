package org.peerdex.storage.index;

import java.util.List;
import org.peerdex.storage.meta.PageImage;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * One document ready for the index: its metadata, its text (for snippets), its postings and the images of its main
 * content (for image search; none for documents that are not HTML pages).
 */
public record IndexedDocument(UrlMetadata metadata, String text, List<Posting> postings, List<PageImage> images) {
    public IndexedDocument {
        postings = List.copyOf(postings);
        text = text == null ? "" : text;
        images = images == null ? List.of() : List.copyOf(images);
    }

    public IndexedDocument(UrlMetadata metadata, String text, List<Posting> postings) {
        this(metadata, text, postings, List.of());
    }
}
