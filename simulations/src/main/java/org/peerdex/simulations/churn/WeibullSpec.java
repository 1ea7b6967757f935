package org.peerdex.simulations.churn;

import java.util.random.RandomGenerator;
import org.peerdex.simulations.sim.Distributions;
import org.peerdex.simulations.sim.SimDurations;

/** A Weibull distribution of durations, written {@code weibull:SHAPE,SCALE} (e.g. {@code weibull:0.4,40m}). */
public record WeibullSpec(double shape, long scaleMicros) {
    public WeibullSpec {
        if (!(shape > 0) || scaleMicros <= 0) throw new IllegalArgumentException("Weibull needs shape > 0 and scale > 0");
    }

    public static WeibullSpec parse(String text) {
        String t = text.trim();
        if (!t.startsWith("weibull:")) throw new IllegalArgumentException("churn must be none or weibull:SHAPE,SCALE, not " + text);
        String[] parts = t.substring("weibull:".length()).split(",");
        if (parts.length != 2) throw new IllegalArgumentException("weibull needs SHAPE,SCALE: " + text);
        double shape;
        try {
            shape = Double.parseDouble(parts[0].trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Weibull shape is not a number: " + parts[0]);
        }
        return new WeibullSpec(shape, SimDurations.parseMicros(parts[1]));
    }

    public long sampleMicros(RandomGenerator r) {
        return Math.max(1, Math.round(Distributions.weibull(r, shape, scaleMicros)));
    }

    public double meanMicros() {
        return Distributions.weibullMean(shape, scaleMicros);
    }

    @Override
    public String toString() {
        return "weibull:" + shape + "," + SimDurations.format(scaleMicros);
    }
}
