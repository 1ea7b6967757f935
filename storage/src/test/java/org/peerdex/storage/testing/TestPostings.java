package org.peerdex.storage.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.text.DocumentText;

/** Postings and documents for tests, built from a seed so that a failure can be replayed. */
public final class TestPostings {
    private static final String[] LANGUAGES = {"", "en", "de", "fr", "ru", "zh"};

    private TestPostings() {}

    /** A posting with every feature set to a random value, large counters included. */
    public static Posting random(Random r, WordHash word, UrlHash url) {
        int n = r.nextInt(Posting.MAX_POSITIONS + 1);
        int[] positions = new int[n];
        int p = 0;
        for (int i = 0; i < n; i++) {
            p += r.nextInt(r.nextBoolean() ? 10 : 100_000);
            positions[i] = p;
        }
        return new Posting(word, url, r.nextBoolean() ? PeerId.random(r) : null, r.nextInt(1 << 10),
                big(r), positions, big(r), r.nextInt(300), r.nextInt(30_000), LANGUAGES[r.nextInt(LANGUAGES.length)],
                "htp".charAt(r.nextInt(3)), big(r), big(r), r.nextInt(3000), r.nextInt(40),
                r.nextBoolean() ? 0 : 1_700_000_000L + r.nextInt(1_000_000));
    }

    /** Counters of every size class: below 128, above 255, above 65,535. */
    private static int big(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> r.nextInt(128);
            case 1 -> 256 + r.nextInt(10_000);
            case 2 -> 65_536 + r.nextInt(1_000_000);
            default -> r.nextInt(Integer.MAX_VALUE);
        };
    }

    public static UrlHash url(int n) {
        return UrlHash.of(url(n, "docs.example.org"));
    }

    public static String url(int n, String host) {
        return "https://" + host + "/manual/page-" + n + ".html";
    }

    public static UrlMetadata metadata(String url, String title) {
        return new UrlMetadata(UrlHash.of(url), url, title, "about " + title, "", List.of(), "en", "h",
                "text/html", 1000, 1_700_000_000_000L, 1_700_000_100_000L, 3, 2, 10, null, "c" + url.hashCode(),
                List.of());
    }

    /** Document {@code n}: shares the words "manual" and "peerdex" with every other, and has words of its own. */
    public static IndexedDocument document(int n) {
        String url = url(n, "docs.example.org");
        String title = "Manual page " + n;
        String body = "The peerdex manual, page " + n + ", explains setting_" + n + " and topic" + (n % 7)
                + ". Unique word doc" + n + "word appears here.";
        return PostingFactory.build(metadata(url, title),
                new DocumentText(url, title, "", List.of(), "", List.of(), List.of(), List.of(), body));
    }

    /** Word hashes of w0..w(n-1). */
    public static List<WordHash> words(int n) {
        List<WordHash> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(WordHash.of("w" + i));
        return out;
    }
}
