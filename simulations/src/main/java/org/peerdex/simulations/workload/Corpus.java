package org.peerdex.simulations.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.url.UrlNormalizer;
import org.peerdex.simulations.sim.Distributions;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.index.PostingFactory;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.text.DocumentText;
import org.peerdex.storage.text.Tokenizer;

/**
 * A synthetic corpus: word ranks drawn from a Zipf distribution over a fixed vocabulary, document lengths from a
 * log-normal (median and sigma as measured for web pages: most are short, a few very long). Documents are built
 * with the indexer's own {@link PostingFactory} (condenser, flags, positions), so their postings are the ones a
 * crawl would make. A pure function of the seed.
 */
public final class Corpus {
    /** Corpus parameters. */
    public record Settings(int docs, int vocabulary, double zipfExponent, double lengthMedian, double lengthSigma) {
        public Settings {
            if (docs < 1 || vocabulary < 10) throw new IllegalArgumentException("docs >= 1 and vocabulary >= 10");
            if (zipfExponent <= 0 || lengthMedian < 1 || lengthSigma < 0) throw new IllegalArgumentException("bad corpus shape");
        }
    }

    private static final String[] ONSETS = {"b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s",
        "t", "v", "w", "z", "br", "st", "tr", "pl"};
    private static final String[] VOWELS = {"a", "e", "i", "o", "u", "ai", "ou"};

    private final Settings settings;
    private final double[] cdf;
    private final long seed;

    public Corpus(Settings settings, long seed) {
        this.settings = settings;
        this.seed = seed;
        this.cdf = new double[settings.vocabulary()];
        double sum = 0;
        for (int r = 0; r < cdf.length; r++) {
            sum += 1.0 / Math.pow(r + 1, settings.zipfExponent());
            cdf[r] = sum;
        }
        for (int r = 0; r < cdf.length; r++) cdf[r] /= sum;
    }

    public Settings settings() {
        return settings;
    }

    /** The word of rank r (0 = most frequent): letters only, distinct per rank, at least two syllables. */
    public static String word(int rank) {
        StringBuilder b = new StringBuilder();
        int n = rank;
        int syllables = 0;
        do {
            b.append(ONSETS[n % ONSETS.length]);
            n /= ONSETS.length;
            b.append(VOWELS[n % VOWELS.length]);
            n /= VOWELS.length;
            syllables++;
        } while (n > 0 || syllables < 2);
        return b.toString();
    }

    int zipfRank(SplittableRandom r) {
        double u = r.nextDouble();
        int lo = 0;
        int hi = cdf.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cdf[mid] < u) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    public String url(int doc) {
        return "http://site" + (doc % 997) + ".example/page/" + doc;
    }

    /** Document {@code doc} (0-based), the same for the same seed, built as the indexer would. */
    public IndexedDocument document(int doc) {
        SplittableRandom r = new SplittableRandom(seed ^ (doc * 0x9E3779B97F4A7C15L));
        int len = (int) Math.max(5, Math.min(5000, Math.round(Distributions.logNormal(r, settings.lengthMedian(),
                settings.lengthSigma()))));
        List<String> words = new ArrayList<>(len);
        for (int i = 0; i < len; i++) words.add(word(zipfRank(r)));
        String title = String.join(" ", words.subList(0, Math.min(5, words.size())));
        return build(url(doc), title, String.join(" ", words), 1_700_000_000_000L + (long) doc * 60_000L);
    }

    /** A document as the indexer builds it from a page's title and text. */
    public static IndexedDocument build(String url, String title, String body, long modified) {
        String normal = UrlNormalizer.normalize(url).orElseThrow(() -> new IllegalArgumentException("not a URL: " + url));
        UrlHash hash = UrlHash.ofNormalized(normal);
        DocumentText text = new DocumentText(normal, title, "", List.of(), "", List.of(), List.of(), List.of(), body);
        int words = Tokenizer.plainWords(body).size();
        UrlMetadata meta = new UrlMetadata(hash, normal, title, "", "", List.of(), "en", "h", "text/html",
                body.length(), modified, modified, 0, 0, words, null, Integer.toHexString(body.hashCode()), List.of());
        return PostingFactory.build(meta, text);
    }
}
