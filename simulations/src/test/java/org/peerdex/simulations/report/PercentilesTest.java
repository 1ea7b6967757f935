package org.peerdex.simulations.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class PercentilesTest {
    @Test
    void nearestRankIsTheSmallestValueWithAtLeastThatShareAtOrBelowIt() {
        long[] xs = {50, 15, 40, 20, 35}; // unsorted on purpose
        assertEquals(15, Percentiles.of(xs, 5));
        assertEquals(20, Percentiles.of(xs, 30));
        assertEquals(20, Percentiles.of(xs, 40));
        assertEquals(35, Percentiles.of(xs, 50));
        assertEquals(50, Percentiles.of(xs, 100));
        assertEquals(50, xs[0], "the caller's array is left as it was");
        assertEquals(35.0, Percentiles.of(new double[] {50, 15, 40, 20, 35}, 50));
    }

    @Test
    void noValuesGiveZeroOrNaNAndABadPercentileIsRefused() {
        assertEquals(0, Percentiles.of(new long[0], 99));
        assertTrue(Double.isNaN(Percentiles.of(new double[0], 99)));
        assertThrows(IllegalArgumentException.class, () -> Percentiles.of(new long[] {1}, 0));
        assertThrows(IllegalArgumentException.class, () -> Percentiles.of(new long[] {1}, 101));
    }

    @Test
    void agreesWithHdrHistogramWithinItsPrecisionOnALatencyLikeDistribution() {
        SplittableRandom r = new SplittableRandom(1);
        long[] micros = new long[100_000];
        Histogram h = new Histogram(3);
        for (int i = 0; i < micros.length; i++) {
            micros[i] = (long) (2_000 * Math.exp(0.8 * r.nextGaussian())); // log-normal around 2 ms
            h.recordValue(micros[i]);
        }
        for (double p : new double[] {50, 90, 95, 99}) {
            long exact = Percentiles.of(micros, p);
            long approx = h.getValueAtPercentile(p);
            assertTrue(Math.abs(exact - approx) <= exact / 500 + 1, p + ": " + exact + " vs " + approx);
        }
    }
}
