package org.peerdex.simulations.sim;

import java.util.Locale;

/** Parses durations as scenarios write them: {@code 500ms}, {@code 30s}, {@code 40m}, {@code 2h}, {@code 1d}. */
public final class SimDurations {
    private SimDurations() {}

    /** Microseconds of a duration text; a bare number is seconds. */
    public static long parseMicros(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        double factor;
        String num;
        if (t.endsWith("ms")) {
            factor = 1e3;
            num = t.substring(0, t.length() - 2);
        } else if (t.endsWith("us")) {
            factor = 1;
            num = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            factor = 1e6;
            num = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
            factor = 60e6;
            num = t.substring(0, t.length() - 1);
        } else if (t.endsWith("h")) {
            factor = 3600e6;
            num = t.substring(0, t.length() - 1);
        } else if (t.endsWith("d")) {
            factor = 86400e6;
            num = t.substring(0, t.length() - 1);
        } else {
            factor = 1e6;
            num = t;
        }
        try {
            double v = Double.parseDouble(num.trim());
            if (v < 0 || Double.isNaN(v)) throw new NumberFormatException();
            return Math.round(v * factor);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a duration (like 500ms, 30s, 40m, 2h): " + text);
        }
    }

    public static String format(long micros) {
        if (micros % 3600_000_000L == 0 && micros > 0) return micros / 3600_000_000L + "h";
        if (micros % 60_000_000L == 0 && micros > 0) return micros / 60_000_000L + "m";
        if (micros % 1_000_000L == 0) return micros / 1_000_000L + "s";
        return micros / 1000 + "ms";
    }
}
