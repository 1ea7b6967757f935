package org.peerdex.simulations.report;

import java.util.Arrays;

/**
 * Nearest-rank percentiles of a finished set of values (the smallest value with at least p% of the values at or
 * below it): the one definition behind every percentile the simulator, its report and the benchmarks print. Latencies
 * recorded while a load runs go to an HdrHistogram instead ({@code SearchLoadBenchmark}, {@code SoakBenchmark}).
 */
public final class Percentiles {
    private Percentiles() {}

    /** The {@code pct}-th percentile (0 < pct ≤ 100) of {@code values}, in any order; 0 when there are none. */
    public static long of(long[] values, double pct) {
        if (values.length == 0) return 0;
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[rank(sorted.length, pct)];
    }

    /** The {@code pct}-th percentile (0 < pct ≤ 100) of {@code values}, in any order; NaN when there are none. */
    public static double of(double[] values, double pct) {
        if (values.length == 0) return Double.NaN;
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[rank(sorted.length, pct)];
    }

    /** The index of the nearest-rank percentile in a sorted array of {@code n} values. */
    static int rank(int n, double pct) {
        if (!(pct > 0 && pct <= 100)) throw new IllegalArgumentException("percentile out of (0, 100]: " + pct);
        int i = (int) Math.ceil(pct / 100.0 * n) - 1;
        return Math.max(0, Math.min(n - 1, i));
    }
}
