package org.peerdex.storage.index;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.meta.PageImage;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.text.Condenser;
import org.peerdex.storage.text.DocumentText;

/** Builds a document's postings from its condensed text and metadata. */
public final class PostingFactory {
    private PostingFactory() {}

    public static IndexedDocument build(UrlMetadata meta, DocumentText text) {
        return build(meta, text, List.of());
    }

    /** A page with images: they are kept for image search and its postings carry {@link Posting#HAS_IMAGE}. */
    public static IndexedDocument build(UrlMetadata meta, DocumentText text, List<PageImage> images) {
        Condenser.Condensed c = Condenser.condense(text);
        return new IndexedDocument(meta, text.body(), postings(meta, c, images.isEmpty() ? 0 : Posting.HAS_IMAGE),
                images);
    }

    public static List<Posting> postings(UrlMetadata meta, Condenser.Condensed c) {
        return postings(meta, c, 0);
    }

    private static List<Posting> postings(UrlMetadata meta, Condenser.Condensed c, int extraFlags) {
        UrlHash url = meta.urlHash();
        int day = meta.lastModified() > 0
                ? (int) Instant.ofEpochMilli(meta.lastModified()).atOffset(ZoneOffset.UTC).toLocalDate().toEpochDay()
                : 0;
        char doctype = meta.doctype().isEmpty() ? 'h' : meta.doctype().charAt(0);
        List<Posting> out = new ArrayList<>(c.words().size());
        for (Map.Entry<String, Condenser.WordFeatures> e : c.words().entrySet()) {
            Condenser.WordFeatures f = e.getValue();
            out.add(new Posting(WordHash.of(e.getKey()), url, null, f.flags() | extraFlags, f.hits(), f.positions(),
                    c.wordsInText(), c.wordsInTitle(), Math.max(0, day), meta.language(), doctype, meta.linksLocal(),
                    meta.linksOther(), c.urlLength(), c.urlComponents(), 0));
        }
        return out;
    }
}
