package org.peerdex.actors.search.ranking;

/**
 * A link-based rank per host (by host hash, the last 6 characters of a URL hash), in [0, 1]. Pluggable: the
 * node feeds it whatever link graph it has.
 */
public interface LinkRank {
    LinkRank NONE = new LinkRank() {
        @Override
        public double rank(String hostHash) {
            return 0.0;
        }

        @Override
        public double max() {
            return 0.0;
        }
    };

    double rank(String hostHash);

    /** No host's rank is above this (score bounds add it for a host they have not looked up). */
    default double max() {
        return 1.0;
    }
}
