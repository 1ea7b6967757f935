package org.peerdex.actors.dht;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.peerdex.actors.dht.replication.Replicator;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.text.DocumentText;

/** Synthetic documents from a small vocabulary; "kernel" is in every 3rd, "linux" in every 2nd document. */
public final class TestCorpus {
    public static final String[] WORDS = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
            "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"};

    private TestCorpus() {}

    public static List<IndexedDocument> documents(int n, long seed) {
        return documents(0, n, seed);
    }

    /** Documents {@code first} to {@code first + n - 1}: their URLs and "unique" words are theirs alone. */
    public static List<IndexedDocument> documents(int first, int n, long seed) {
        Random r = new Random(seed);
        List<IndexedDocument> out = new ArrayList<>();
        for (int i = first; i < first + n; i++) {
            String url = "http://site" + (i % 7) + ".test/page-" + i + ".html";
            StringBuilder body = new StringBuilder();
            int len = 30 + r.nextInt(60);
            for (int w = 0; w < len; w++) body.append(WORDS[r.nextInt(WORDS.length)]).append(' ');
            if (i % 2 == 0) body.append("linux ".repeat(1 + r.nextInt(4)));
            if (i % 3 == 0) body.append("kernel ".repeat(1 + r.nextInt(4)));
            body.append("unique").append(i);
            String title = "Page " + i + (i % 5 == 0 ? " linux kernel" : "");
            UrlHash h = UrlHash.of(url);
            UrlMetadata meta = new UrlMetadata(h, url, title, "", "", List.of(), "en", "h", "text/html",
                    body.length(), 0, System.currentTimeMillis(), 0, 0, len, null, "", List.of());
            DocumentText text = new DocumentText(url, title, "", List.of(), "", List.of(), List.of(), List.of(),
                    body.toString());
            out.add(PostingFactory.build(meta, text));
        }
        return out;
    }

    /** The documents' postings of these words. */
    public static List<Posting> postingsOf(List<IndexedDocument> docs, org.peerdex.protocol.hash.WordHash... words) {
        List<org.peerdex.protocol.hash.WordHash> asked = List.of(words);
        List<Posting> out = new ArrayList<>();
        for (IndexedDocument d : docs) for (Posting p : d.postings()) if (asked.contains(p.word())) out.add(p);
        return out;
    }

    /** Writes the documents durably on the peer, then hands them to its Replicator (as the Indexer does). */
    public static void index(TestNetwork.Peer peer, List<IndexedDocument> docs) {
        PeerStorage s = peer.storage();
        List<Posting> postings = new ArrayList<>();
        List<UrlMetadata> metadata = new ArrayList<>();
        for (IndexedDocument d : docs) {
            s.writer().add(d);
            postings.addAll(d.postings());
            metadata.add(d.metadata());
        }
        s.writer().flush();
        peer.dht().replicate(postings, metadata);
    }
}
