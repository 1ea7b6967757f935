package org.peerdex.actors.search.ranking;

/**
 * A link-based rank per host (by host hash, the last 6 characters of a URL hash), in [0, 1]. Pluggable: the
 * node feeds it whatever link graph it has.
 */
public interface LinkRank {
    LinkRank NONE = hostHash -> 0.0;

    double rank(String hostHash);
}
