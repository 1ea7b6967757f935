package org.peerdex.simulations.net;

/**
 * The modelled network's parameters.
 *
 * @param rttMillis          median round-trip time between two peers
 * @param rttSigma           sigma of the log-normal spread of per-link RTTs around the median (0 = every link equal)
 * @param jitterSigma        sigma of the log-normal per-message jitter on a link's one-way delay
 * @param loss               probability that a message is lost
 * @param bandwidthBytesPerSec per-link bandwidth; a message of b bytes takes b / bandwidth to serialize (0 = infinite)
 */
public record LinkSettings(double rttMillis, double rttSigma, double jitterSigma, double loss,
                           double bandwidthBytesPerSec) {
    public LinkSettings {
        if (rttMillis < 0 || rttSigma < 0 || jitterSigma < 0) throw new IllegalArgumentException("latency must not be negative");
        if (loss < 0 || loss >= 1) throw new IllegalArgumentException("loss must be in [0, 1)");
        if (bandwidthBytesPerSec < 0) throw new IllegalArgumentException("bandwidth must not be negative");
    }

    public static LinkSettings defaults() {
        return new LinkSettings(80, 0.5, 0.1, 0.0, 1_250_000);
    }
}
