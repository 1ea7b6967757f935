package org.peerdex.actors.search;

import java.net.URI;
import java.util.List;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.url.UrlNormalizer;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.meta.UrlMetadataStore;
import org.peerdex.storage.text.DocumentText;
import org.peerdex.storage.text.Tokenizer;

/**
 * Indexes a page given as HTML straight into a peer's storage (metadata, text, postings), without a crawl: for the
 * bundled manual, test corpora and benchmarks. Blocking.
 */
public final class PageIndexer {
    private PageIndexer() {}

    /** Parses and buffers one page; call {@code storage.writer().flush()} to make it durable and searchable. */
    public static UrlHash index(PeerStorage storage, String url, String html, long lastModified,
                                List<String> incomingAnchors) {
        HtmlText.Page page = HtmlText.parse(html, url);
        return index(storage, url, page, lastModified, incomingAnchors);
    }

    public static UrlHash index(PeerStorage storage, String url, HtmlText.Page page, long lastModified,
                                List<String> incomingAnchors) {
        IndexedDocument doc = document(url, page, lastModified, incomingAnchors);
        UrlHash hash = doc.metadata().urlHash();
        storage.writer().add(doc);
        storage.metadata().appendHistory(hash, new UrlMetadataStore.HistoryEvent(
                System.currentTimeMillis(), "indexed", 200, "indexed directly (" + doc.postings().size() + " postings)"));
        return hash;
    }

    /** The document {@link #index} writes for a parsed page: metadata, text and postings. */
    public static IndexedDocument document(String url, HtmlText.Page page, long lastModified, List<String> incomingAnchors) {
        String normal = UrlNormalizer.normalize(url).orElseThrow(() -> new IllegalArgumentException("not a URL: " + url));
        UrlHash hash = UrlHash.ofNormalized(normal);
        DocumentText text = incomingAnchors.isEmpty() ? page.text() : HtmlText.withAnchors(page.text(), incomingAnchors);
        String host = hostOf(normal);
        int local = 0;
        int other = 0;
        for (HtmlText.Link l : page.links()) {
            if (host.equals(hostOf(l.url()))) local++;
            else other++;
        }
        UrlMetadata meta = new UrlMetadata(hash, normal, text.title(), text.description(), text.author(),
                text.keywords(), page.language(), "h", "text/html", text.body().length(), lastModified,
                System.currentTimeMillis(), local, other, Tokenizer.plainWords(text.body()).size(),
                null, Integer.toHexString(text.body().hashCode()), text.headings().size() > 20
                ? text.headings().subList(0, 20) : text.headings());
        return PostingFactory.build(meta, text);
    }

    private static String hostOf(String url) {
        try {
            String h = URI.create(url).getHost();
            return h == null ? "" : h;
        } catch (IllegalArgumentException e) {
            return "";
        }
    }
}
