package org.peerdex.simulations.churn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.peerdex.simulations.sim.Distributions;

class ChurnModelTest {
    private static final long HOUR = 3600_000_000L;

    @Test
    void weibullSamplesHaveTheAnalyticMean() {
        WeibullSpec w = WeibullSpec.parse("weibull:0.5,40m");
        SplittableRandom r = new SplittableRandom(5);
        double sum = 0;
        int n = 200_000;
        for (int i = 0; i < n; i++) sum += w.sampleMicros(r);
        // shape 0.5: mean = scale * Gamma(3) = 2 * scale
        assertEquals(2 * 40 * 60e6, w.meanMicros(), 1);
        assertEquals(1.0, sum / n / w.meanMicros(), 0.03);
        assertEquals(120.0, Distributions.gamma(6), 1e-9);
    }

    @Test
    void everyPeerAlternatesLeavingAndJoiningAndStablePeersStay() {
        ChurnModel m = new ChurnModel(WeibullSpec.parse("weibull:0.4,20m"), WeibullSpec.parse("weibull:0.4,5m"), 0.5);
        List<ChurnEvent> events = m.schedule(100, 10, 0, 4 * HOUR, 42);
        assertTrue(events.size() > 100, "events " + events.size());
        Map<Integer, Boolean> up = new HashMap<>();
        long last = -1;
        int crashes = 0;
        for (ChurnEvent e : events) {
            assertTrue(e.atMicros() >= last && e.atMicros() < 4 * HOUR);
            last = e.atMicros();
            assertTrue(e.peer() >= 10, "stable peer " + e.peer() + " churned");
            boolean isUp = up.getOrDefault(e.peer(), true);
            assertEquals(isUp, e.kind() != ChurnEvent.Kind.JOIN, "peer " + e.peer() + " " + e.kind());
            up.put(e.peer(), e.kind() == ChurnEvent.Kind.JOIN);
            if (e.kind() == ChurnEvent.Kind.CRASH) crashes++;
        }
        long ends = events.stream().filter(e -> e.kind() != ChurnEvent.Kind.JOIN).count();
        assertEquals(0.5, crashes / (double) ends, 0.1);
    }

    @Test
    void schedulesArePureFunctionsOfTheSeed() {
        ChurnModel m = new ChurnModel(WeibullSpec.parse("weibull:0.4,20m"), WeibullSpec.parse("weibull:0.4,5m"), 0.5);
        assertEquals(m.schedule(50, 0, 0, HOUR, 1), m.schedule(50, 0, 0, HOUR, 1));
        assertNotEquals(m.schedule(50, 0, 0, HOUR, 1), m.schedule(50, 0, 0, HOUR, 2));
    }

    @Test
    void badSpecsAreRefusedWithAClearMessage() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> WeibullSpec.parse("weibull:abc,4m"));
        assertTrue(e.getMessage().contains("shape"));
    }
}
