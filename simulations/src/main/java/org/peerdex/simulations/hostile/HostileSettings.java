package org.peerdex.simulations.hostile;

import com.typesafe.config.Config;
import java.util.Locale;

/**
 * The hostile share of a scenario: how many peers are hostile, what they do, and what the operator spends.
 *
 * @param share       fraction of the peers that are hostile (0..1)
 * @param kind        what they do ({@link Kind})
 * @param prefixes    address prefixes (/24) a Sybil operator holds, shared by all its ids
 * @param mintTries   random ids the Sybil operator mints per id it places (it keeps the one nearest its target)
 * @param targetWords the most frequent words whose positions (every partition) the Sybil operator aims at
 * @param fakesPerKey made-up postings a faking peer adds to every key it answers
 */
public record HostileSettings(double share, Kind kind, int prefixes, int mintTries, int targetWords,
                              int fakesPerKey) {
    /** What hostile peers do. */
    public enum Kind {
        /** ids minted from few prefixes, aimed at chosen word positions; the peers otherwise run the real actors */
        SYBIL,
        /** random ids at addresses of their own; answer lookups with made-up postings and metadata */
        FAKE,
        /** random ids at addresses of their own; acknowledge stores without storing, ignore lookups */
        DROP,
        /** Sybil placement, and every other peer fakes, the rest drop */
        ALL;

        public static Kind parse(String s) {
            try {
                return valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("hostile kind is sybil, fake, drop or all, not " + s);
            }
        }

        /** Whether ids are minted from the operator's few prefixes and aimed at targets. */
        public boolean sybilPlacement() {
            return this == SYBIL || this == ALL;
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What one hostile peer does once it runs. */
    public enum Behaviour { HONEST, FAKE, DROP }

    public static final HostileSettings NONE = new HostileSettings(0, Kind.ALL, 4, 256, 4, 10);

    public HostileSettings {
        if (!(share >= 0 && share <= 1)) throw new IllegalArgumentException("hostile share must be in 0..1, not " + share);
        if (prefixes < 1) throw new IllegalArgumentException("hostile prefixes must be at least 1");
        if (mintTries < 1) throw new IllegalArgumentException("hostile mint-tries must be at least 1");
        if (targetWords < 1) throw new IllegalArgumentException("hostile target-words must be at least 1");
        if (fakesPerKey < 1) throw new IllegalArgumentException("hostile fakes-per-key must be at least 1");
    }

    public static HostileSettings from(Config c) {
        return new HostileSettings(c.getDouble("share"), Kind.parse(c.getString("kind")), c.getInt("prefixes"),
                c.getInt("mint-tries"), c.getInt("target-words"), c.getInt("fakes-per-key"));
    }

    /** Hostile peers among {@code peers}. */
    public int count(int peers) {
        return (int) Math.round(share * peers);
    }

    /** The behaviour of the {@code j}-th hostile peer (in minting order). */
    public Behaviour behaviour(int j) {
        return switch (kind) {
            case SYBIL -> Behaviour.HONEST;
            case FAKE -> Behaviour.FAKE;
            case DROP -> Behaviour.DROP;
            case ALL -> j % 2 == 0 ? Behaviour.FAKE : Behaviour.DROP;
        };
    }
}
