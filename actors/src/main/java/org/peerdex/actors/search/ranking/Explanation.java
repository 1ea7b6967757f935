package org.peerdex.actors.search.ranking;

import java.util.Map;

/**
 * A score broken down by factor: for each factor the raw feature value, its value normalized over the candidate
 * set, the coefficient, and the contribution (coefficient × normalized); the contributions sum to the score.
 */
public record Explanation(double score, Map<String, Part> factors) {
    /** One factor's share of a score. */
    public record Part(double raw, double normalized, double coefficient, double contribution) {}
}
