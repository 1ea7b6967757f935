package org.peerdex.storage.rwi;

/**
 * The score a posting list's blocks are bounded by: when the fold writes a block it stores the highest score of
 * its postings under this function, and the {@link #revision()} the function had, so a search scoring by the same
 * function can pass over a whole block whose highest score cannot enter its top k (block-max pruning). A search
 * uses a block's bound only if the block's revision is the function's own: a block scored by another build's
 * function (the formula or its coefficients changed) is read posting by posting, never skipped on a wrong bound.
 */
public interface BlockScore {
    /**
     * A fingerprint of the function, positive (0 marks a block without a score): change it whenever a posting's
     * score under the function may change.
     */
    int revision();

    /** The posting's score; every search that trusts the bound scores no candidate of this posting higher. */
    double of(Posting posting);
}
