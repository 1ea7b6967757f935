package org.peerdex.simulations.churn;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Peer churn as measured in deployed P2P networks: alternating sessions (up) and down times, each drawn from its
 * own Weibull distribution (Stutzbach and Rejaie 2006 found shapes of 0.3-0.6 for sessions); a session ends in a
 * crash with probability {@code crashFraction}, otherwise in a graceful leave. Schedules are a pure function of
 * the seed: every peer draws from its own split of the random stream, so adding peers does not change the others.
 */
public final class ChurnModel {
    private final WeibullSpec session;
    private final WeibullSpec down;
    private final double crashFraction;

    public ChurnModel(WeibullSpec session, WeibullSpec down, double crashFraction) {
        if (crashFraction < 0 || crashFraction > 1) throw new IllegalArgumentException("crash fraction must be in [0, 1]");
        this.session = session;
        this.down = down;
        this.crashFraction = crashFraction;
    }

    public WeibullSpec session() {
        return session;
    }

    public WeibullSpec down() {
        return down;
    }

    public double crashFraction() {
        return crashFraction;
    }

    /**
     * The churn events of peers {@code 0..peers-1} in [startMicros, endMicros), sorted by time then peer. Every
     * peer is up at {@code startMicros}; {@code stable} peers (the first ones) never churn, so that a network keeps
     * a core (as long-lived peers do in practice).
     */
    public List<ChurnEvent> schedule(int peers, int stable, long startMicros, long endMicros, long seed) {
        List<ChurnEvent> out = new ArrayList<>();
        SplittableRandom root = new SplittableRandom(seed);
        for (int p = 0; p < peers; p++) {
            SplittableRandom r = root.split();
            if (p < stable) continue;
            long t = startMicros;
            while (true) {
                t += session.sampleMicros(r);
                if (t >= endMicros) break;
                out.add(new ChurnEvent(t, p, r.nextDouble() < crashFraction ? ChurnEvent.Kind.CRASH : ChurnEvent.Kind.LEAVE));
                t += down.sampleMicros(r);
                if (t >= endMicros) break;
                out.add(new ChurnEvent(t, p, ChurnEvent.Kind.JOIN));
            }
        }
        out.sort(Comparator.comparingLong(ChurnEvent::atMicros).thenComparingInt(ChurnEvent::peer));
        return out;
    }

    /** Expected fraction of time a peer is up: E[session] / (E[session] + E[down]). */
    public double availability() {
        return session.meanMicros() / (session.meanMicros() + down.meanMicros());
    }
}
