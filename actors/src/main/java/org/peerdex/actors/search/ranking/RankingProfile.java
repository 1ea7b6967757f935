package org.peerdex.actors.search.ranking;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Named coefficients, one per {@link Factor}, each in [-100, 100]. A result's score is the sum over factors of
 * coefficient × the factor's value mapped to [0, 1] by the factor's fixed map ({@code Scorer.normalize}; the
 * same whichever other candidates a peer sees), post-ranking factors added unnormalized.
 */
public record RankingProfile(String name, Map<Factor, Double> coefficients) {
    public static final double MAX_ABS = 100;

    public RankingProfile {
        EnumMap<Factor, Double> m = new EnumMap<>(Factor.class);
        for (Factor f : Factor.values()) m.put(f, 0.0);
        if (coefficients != null) {
            coefficients.forEach((f, v) -> {
                if (v == null || v.isNaN() || Math.abs(v) > MAX_ABS) {
                    throw new IllegalArgumentException("coefficient " + f.key() + " must be a number in [-100, 100]");
                }
                m.put(f, v);
            });
        }
        coefficients = Collections.unmodifiableMap(m);
        name = name == null || name.isBlank() ? "custom" : name;
    }

    /** The default profile, tuned on a development split of known-item queries (docs/search.md). */
    public static RankingProfile defaults() {
        Map<Factor, Double> c = new EnumMap<>(Factor.class);
        c.put(Factor.TITLE, 6.0);
        c.put(Factor.TITLE_EXACTNESS, 5.0);
        c.put(Factor.URL, 3.0);
        c.put(Factor.ANCHOR, 2.0);
        c.put(Factor.EMPHASIS, 0.5);
        c.put(Factor.HEADING, 2.5);
        c.put(Factor.DESCRIPTION, 1.0);
        c.put(Factor.KEYWORDS, 0.5);
        c.put(Factor.AUTHOR, 0.2);
        c.put(Factor.DOMAIN_LENGTH, 0.2);
        c.put(Factor.URL_COMPONENTS, 0.5);
        c.put(Factor.URL_LENGTH, 0.5);
        c.put(Factor.DATE, 0.2);
        c.put(Factor.WORDS_IN_TITLE, 0.5);
        c.put(Factor.WORDS_IN_TEXT, 0.0);
        c.put(Factor.LINKS_LOCAL, 0.1);
        c.put(Factor.LINKS_OTHER, 0.1);
        c.put(Factor.HIT_COUNT, 0.5);
        c.put(Factor.TERM_FREQUENCY, 1.0);
        c.put(Factor.POSITION, 1.0);
        c.put(Factor.WORD_DISTANCE, 1.0);
        c.put(Factor.LANGUAGE, 1.0);
        c.put(Factor.MEDIA, 0.5);
        c.put(Factor.BM25, 4.0);
        c.put(Factor.LINK_RANK, 1.0);
        c.put(Factor.FEEDBACK, 8.0);
        return new RankingProfile("default", c);
    }

    public double coefficient(Factor f) {
        return coefficients.get(f);
    }

    /** True if every factor has the same coefficient in both profiles, whatever their names. */
    public boolean sameCoefficients(RankingProfile other) {
        return coefficients.equals(other.coefficients);
    }

    public RankingProfile with(Factor f, double value) {
        Map<Factor, Double> m = new EnumMap<>(coefficients);
        m.put(f, value);
        return new RankingProfile(name, m);
    }

    /** As JSON-ready map: {@code {name, coefficients: {title: 6.0, ...}}}. */
    public Map<String, Object> toJson() {
        Map<String, Double> c = new LinkedHashMap<>();
        coefficients.forEach((f, v) -> c.put(f.key(), v));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        out.put("coefficients", c);
        return out;
    }

    /**
     * Reads a profile from JSON-like values: factors not named keep their value in {@code base}; unknown names
     * and non-numbers are errors.
     */
    public static RankingProfile fromJson(Map<String, ?> json, RankingProfile base) {
        Object name = json.get("name");
        Object coeffs = json.get("coefficients");
        if (coeffs != null && !(coeffs instanceof Map)) throw new IllegalArgumentException("coefficients must be an object");
        Map<Factor, Double> m = new EnumMap<>(base.coefficients());
        if (coeffs != null) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) coeffs).entrySet()) {
                Factor f = Factor.fromKey(String.valueOf(e.getKey()));
                if (!(e.getValue() instanceof Number n)) {
                    throw new IllegalArgumentException("coefficient " + e.getKey() + " must be a number");
                }
                m.put(f, n.doubleValue());
            }
        }
        return new RankingProfile(name == null ? base.name() : String.valueOf(name), m);
    }
}
