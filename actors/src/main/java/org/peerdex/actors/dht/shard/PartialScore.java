package org.peerdex.actors.dht.shard;

import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.storage.rwi.BlockScore;
import org.peerdex.storage.rwi.Posting;

/**
 * The score a holder can compute from one posting alone, to cap its answer to the top k: the querying peer's
 * own score of a one-word query under the default ranking profile ({@link Scorer#oneWordDefault}). Scores do not
 * depend on the other candidates and a one-word query's BM25 share does not depend on N or df, so for such a
 * query with the default profile a holder's top k are exactly the querying peer's best of that key; for other
 * profiles and several words it is the closest a holder can judge.
 */
public final class PartialScore {
    /** What the index's blocks store their highest partial score by (a holder passes over blocks by it). */
    public static final BlockScore BLOCKS = Scorer.ONE_WORD_BLOCKS;

    private PartialScore() {}

    public static double of(Posting p) {
        return Scorer.oneWordDefault(p);
    }
}
