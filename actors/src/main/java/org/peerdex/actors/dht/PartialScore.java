package org.peerdex.actors.dht;

import org.peerdex.storage.rwi.Posting;

/**
 * The score a holder can compute from one posting alone, to cap its answer to the top k: term frequency
 * (saturating, as in BM25), appearance in title, URL, headings and anchors, and an early first position.
 * The querying peer re-ranks with its full profile; this only decides what is worth sending.
 */
public final class PartialScore {
    private PartialScore() {}

    public static double of(Posting p) {
        double tf = p.hitCount();
        double len = Math.max(1, p.wordsInText());
        double k1 = 1.2;
        double b = 0.75;
        double avg = 500;
        double s = tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg));
        if (p.has(Posting.IN_TITLE)) s += 2.0;
        if (p.has(Posting.IN_URL)) s += 1.0;
        if (p.has(Posting.IN_HEADING)) s += 0.7;
        if (p.has(Posting.IN_ANCHOR)) s += 0.7;
        if (p.has(Posting.IN_DESCRIPTION)) s += 0.3;
        s += 0.5 / (1 + p.firstPosition() / 50.0);
        return s;
    }
}
