package org.peerdex.storage.rwi;

import java.util.Arrays;
import java.util.Objects;
import org.peerdex.protocol.WireMessage;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;

/**
 * One entry of the reverse word index: word W occurs in the document with URL hash U, with the features the
 * ranking needs (YaCy's word reference row, without its 255-saturating counters).
 *
 * @param holder         the peer that holds the URL's full metadata (null: this peer)
 * @param flags          appearance bits, see the {@code IN_*} constants
 * @param hitCount       occurrences of the word in the document (all fields)
 * @param positions      word positions in the text, ascending, at most {@link #MAX_POSITIONS}
 * @param wordsInText    length of the document's text in words
 * @param wordsInTitle   length of the title in words
 * @param lastModified   the document's date, epoch day (0 unknown)
 * @param language       ISO 639-1 code or "" if unknown
 * @param doctype        one character: h html, t text, p pdf, ...
 * @param linksLocal     links to the same host
 * @param linksOther     links to other hosts
 * @param urlLength      characters of the URL
 * @param urlComponents  path segments and query parameters of the URL
 * @param expiresAt      epoch second after which a cached remote posting is dropped; 0 = never
 */
public record Posting(WordHash word, UrlHash url, PeerId holder, int flags, int hitCount, int[] positions,
                      int wordsInText, int wordsInTitle, int lastModified, String language, char doctype,
                      int linksLocal, int linksOther, int urlLength, int urlComponents, long expiresAt)
        implements WireMessage {
    public static final int MAX_POSITIONS = 16;

    public static final int IN_TITLE = 1;
    public static final int IN_URL = 1 << 1;
    public static final int IN_ANCHOR = 1 << 2;
    public static final int IN_EMPHASIS = 1 << 3;
    public static final int IN_HEADING = 1 << 4;
    public static final int IN_DESCRIPTION = 1 << 5;
    public static final int IN_KEYWORDS = 1 << 6;
    public static final int IN_AUTHOR = 1 << 7;
    /** Learned from a remote peer's answer and kept with a TTL. */
    public static final int CACHED = 1 << 8;
    public static final int HAS_IMAGE = 1 << 9;

    public Posting {
        if (word == null || url == null) throw new IllegalArgumentException("posting needs a word and a URL");
        if (positions == null) positions = new int[0];
        if (positions.length > MAX_POSITIONS) positions = Arrays.copyOf(positions, MAX_POSITIONS);
        if (language == null) language = "";
        if (language.length() > 8) language = language.substring(0, 8);
        if (hitCount < 0 || wordsInText < 0 || wordsInTitle < 0 || linksLocal < 0 || linksOther < 0
                || urlLength < 0 || urlComponents < 0 || lastModified < 0 || expiresAt < 0) {
            throw new IllegalArgumentException("posting counters must not be negative");
        }
    }

    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** The first position of the word in the text, or wordsInText if unknown. */
    public int firstPosition() {
        return positions.length == 0 ? wordsInText : positions[0];
    }

    public Posting withWord(WordHash w) {
        return new Posting(w, url, holder, flags, hitCount, positions, wordsInText, wordsInTitle, lastModified,
                language, doctype, linksLocal, linksOther, urlLength, urlComponents, expiresAt);
    }

    public Posting asCached(PeerId from, long expiresAtEpochSecond) {
        return new Posting(word, url, holder == null ? from : holder, flags | CACHED, hitCount, positions,
                wordsInText, wordsInTitle, lastModified, language, doctype, linksLocal, linksOther, urlLength,
                urlComponents, expiresAtEpochSecond);
    }

    public Posting withHolder(PeerId h) {
        return new Posting(word, url, h, flags, hitCount, positions, wordsInText, wordsInTitle, lastModified,
                language, doctype, linksLocal, linksOther, urlLength, urlComponents, expiresAt);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Posting p && word.equals(p.word) && url.equals(p.url)
                && Objects.equals(holder, p.holder) && flags == p.flags && hitCount == p.hitCount
                && Arrays.equals(positions, p.positions) && wordsInText == p.wordsInText
                && wordsInTitle == p.wordsInTitle && lastModified == p.lastModified && language.equals(p.language)
                && doctype == p.doctype && linksLocal == p.linksLocal && linksOther == p.linksOther
                && urlLength == p.urlLength && urlComponents == p.urlComponents && expiresAt == p.expiresAt;
    }

    @Override
    public int hashCode() {
        return word.hashCode() * 31 + url.hashCode();
    }

    @Override
    public String toString() {
        return "Posting[" + word + "/" + url + " hits=" + hitCount + " flags=" + Integer.toBinaryString(flags) + "]";
    }
}
