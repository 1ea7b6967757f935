package org.peerdex.storage.index;

import java.util.List;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/** One document ready for the index: its metadata, its text (for snippets) and its postings. */
public record IndexedDocument(UrlMetadata metadata, String text, List<Posting> postings) {
    public IndexedDocument {
        postings = List.copyOf(postings);
        text = text == null ? "" : text;
    }
}
