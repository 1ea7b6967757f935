package org.peerdex.actors.dht.shard;

import java.util.List;
import java.util.Optional;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.url.UrlClaim;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * What a ShardOwner checks in every received posting and metadata record beyond what decoding already proves
 * (hash alphabets and lengths, non-negative counters): plausible counters, ascending positions inside the text,
 * no cached copies (a peer forwards only what it holds for real), and bounded strings. A metadata record is accepted
 * only when its URL is an http(s) URL that hashes to its URL hash ({@link UrlClaim}): every path on which metadata
 * arrives from another peer (stored transfers in ShardOwner, search replies in RemoteSearch) goes through
 * {@link #problem(UrlMetadata)}.
 */
public final class PostingValidator {
    /** Longer than any real document (the condenser stops at 200,000 words). */
    static final int MAX_WORDS = 1_000_000;
    static final int MAX_URL_LENGTH = UrlClaim.MAX_URL_LENGTH;
    static final int MAX_TEXT_FIELD = 16 * 1024;

    private PostingValidator() {}

    /** Why the posting is malformed, or empty if it is fine. */
    public static Optional<String> problem(Posting p) {
        if (p.hitCount() < 1) return Optional.of("posting " + p.word() + "/" + p.url() + " has no hits");
        if (p.wordsInText() > MAX_WORDS || p.wordsInTitle() > MAX_WORDS || p.hitCount() > MAX_WORDS) {
            return Optional.of("posting " + p.word() + "/" + p.url() + " has implausible counters");
        }
        int prev = -1;
        for (int pos : p.positions()) {
            if (pos < prev) return Optional.of("posting " + p.word() + "/" + p.url() + " positions not ascending");
            prev = pos;
        }
        if (prev > MAX_WORDS) return Optional.of("posting " + p.word() + "/" + p.url() + " position beyond text");
        if (p.has(Posting.CACHED) || p.expiresAt() != 0) {
            return Optional.of("posting " + p.word() + "/" + p.url() + " is a cached copy");
        }
        if (!p.language().isEmpty() && !isLanguageCode(p.language())) {
            return Optional.of("posting " + p.word() + "/" + p.url() + " has a bad language code");
        }
        if (p.urlLength() > MAX_URL_LENGTH) return Optional.of("posting " + p.url() + " URL too long");
        return Optional.empty();
    }

    /**
     * Whether {@code s} is a language code as postings carry it: two or three lower-case letters, optionally a hyphen
     * and one to four letters or digits ("en", "deu", "pt-BR", "zh-Hant"). Checked by hand: a regex matcher for
     * every received posting was a sixtieth of a holder's allocations.
     */
    static boolean isLanguageCode(String s) {
        int n = s.length();
        int letters = 0;
        while (letters < n && letters < 4 && s.charAt(letters) >= 'a' && s.charAt(letters) <= 'z') letters++;
        if (letters < 2 || letters > 3) return false;
        if (letters == n) return true;
        if (s.charAt(letters) != '-') return false;
        int rest = n - letters - 1;
        if (rest < 1 || rest > 4) return false;
        for (int i = letters + 1; i < n; i++) {
            char c = s.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')) return false;
        }
        return true;
    }

    /** Why a metadata record from another peer must be dropped, or empty if it may be stored and shown. */
    public static Optional<String> problem(UrlMetadata m) {
        Optional<String> url = urlProblem(m);
        if (url.isPresent()) return url;
        if (m.title().length() > MAX_TEXT_FIELD || m.description().length() > MAX_TEXT_FIELD
                || m.headings().size() > 256 || m.keywords().size() > 256) {
            return Optional.of("metadata of " + m.urlHash() + " too large");
        }
        if (m.size() < 0 || m.wordsInText() < 0 || m.linksLocal() < 0 || m.linksOther() < 0) {
            return Optional.of("metadata of " + m.urlHash() + " has negative counters");
        }
        // the holder names the crawler to ask for the record again; anything else is a string a sender chose freely
        if (m.holder() != null && !Base64Order.isHash(m.holder(), PeerId.LENGTH)) {
            return Optional.of("metadata of " + m.urlHash() + " names a holder that is not a peer id");
        }
        return Optional.empty();
    }

    /** Why the record's URL is not a link to show for its URL hash (not http(s), unparsable, another hash), or empty. */
    public static Optional<String> urlProblem(UrlMetadata m) {
        if (m.urlHash() == null || m.url() == null || m.url().isEmpty()) return Optional.of("metadata without URL");
        return UrlClaim.problem(m.url(), m.urlHash()).map(p -> "metadata of " + m.urlHash().value() + ": " + p);
    }

    /** How many of the records have a URL {@link #urlProblem} refuses. */
    public static int badUrls(List<UrlMetadata> metadata) {
        int n = 0;
        for (UrlMetadata m : metadata) if (m != null && urlProblem(m).isPresent()) n++;
        return n;
    }

    public static Optional<String> firstProblem(List<Posting> postings, List<UrlMetadata> metadata) {
        for (Posting p : postings) {
            Optional<String> r = problem(p);
            if (r.isPresent()) return r;
        }
        for (UrlMetadata m : metadata) {
            Optional<String> r = problem(m);
            if (r.isPresent()) return r;
        }
        return Optional.empty();
    }
}
