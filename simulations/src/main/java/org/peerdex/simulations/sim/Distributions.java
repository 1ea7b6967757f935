package org.peerdex.simulations.sim;

import java.util.random.RandomGenerator;

/** Sampling of the distributions the models use; every method takes the random source explicitly. */
public final class Distributions {
    private Distributions() {}

    /** A standard normal variate (Box-Muller; one of the pair is discarded to keep call counts simple). */
    public static double normal(RandomGenerator r) {
        double u1 = 1.0 - r.nextDouble(); // (0,1]
        double u2 = r.nextDouble();
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }

    /** Log-normal with the given median and sigma of the underlying normal. Mean = median * exp(sigma^2/2). */
    public static double logNormal(RandomGenerator r, double median, double sigma) {
        return median * Math.exp(sigma * normal(r));
    }

    /** Weibull(shape k, scale lambda) by inversion: lambda * (-ln U)^(1/k). */
    public static double weibull(RandomGenerator r, double shape, double scale) {
        double u = 1.0 - r.nextDouble();
        return scale * Math.pow(-Math.log(u), 1.0 / shape);
    }

    /** The analytic mean of Weibull(k, lambda): lambda * Gamma(1 + 1/k). */
    public static double weibullMean(double shape, double scale) {
        return scale * gamma(1 + 1.0 / shape);
    }

    /** Gamma function by the Lanczos approximation (g = 7, 9 terms), good to ~15 digits for x > 0. */
    public static double gamma(double x) {
        if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * gamma(1 - x));
        double[] g = {0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7};
        x -= 1;
        double a = g[0];
        double t = x + 7.5;
        for (int i = 1; i < 9; i++) a += g[i] / (x + i);
        return Math.sqrt(2 * Math.PI) * Math.pow(t, x + 0.5) * Math.exp(-t) * a;
    }
}
