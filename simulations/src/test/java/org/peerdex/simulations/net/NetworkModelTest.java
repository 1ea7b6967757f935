package org.peerdex.simulations.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NetworkModelTest {
    @Test
    void linkRttIsStableSymmetricAndLogNormalAroundTheMedian() {
        NetworkModel m = new NetworkModel(200, new LinkSettings(80, 0.5, 0, 0, 0), new SplittableRandom(1));
        double[] rtts = new double[199 * 100];
        int k = 0;
        for (int a = 0; a < 200; a++) {
            for (int b = a + 1; b < 200 && k < rtts.length; b++) {
                assertEquals(m.linkRttMillis(a, b), m.linkRttMillis(b, a));
                assertEquals(m.linkRttMillis(a, b), m.linkRttMillis(a, b));
                rtts[k++] = m.linkRttMillis(a, b);
            }
        }
        Arrays.sort(rtts, 0, k);
        double median = rtts[k / 2];
        assertTrue(Math.abs(median - 80) < 4, "median RTT " + median);
        // log-normal, sigma 0.5: the 84th percentile is about median * e^0.5
        double p84 = rtts[(int) (k * 0.8413)];
        assertTrue(Math.abs(p84 / median - Math.exp(0.5)) < 0.1, "p84/median " + p84 / median);
    }

    @Test
    void oneWayDelayIsHalfTheRttPlusSerialization() {
        NetworkModel m = new NetworkModel(2, new LinkSettings(100, 0, 0, 0, 1_000_000), new SplittableRandom(2));
        NetworkModel.Delivery d = m.send(0, 1, 10_000, "x");
        assertTrue(d.delivered());
        assertEquals(50_000 + 10_000, d.delayMicros()); // 50 ms one way + 10 kB at 1 MB/s
        assertEquals(1, m.traffic().get("x").messages);
        assertEquals(10_000, m.traffic().get("x").bytes);
    }

    @Test
    void lossDropsTheConfiguredShare() {
        NetworkModel m = new NetworkModel(2, new LinkSettings(10, 0, 0, 0.2, 0), new SplittableRandom(3));
        int lost = 0;
        for (int i = 0; i < 20_000; i++) if (!m.send(0, 1, 100, "x").delivered()) lost++;
        assertEquals(0.2, lost / 20_000.0, 0.015);
        assertEquals(lost, m.traffic().get("x").dropped);
    }

    @Test
    void partitionsBlockOnlyCrossGroupTrafficUntilHealed() {
        NetworkModel m = new NetworkModel(10, new LinkSettings(10, 0, 0, 0, 0), new SplittableRandom(4));
        m.partition(2);
        assertTrue(m.send(0, 4, 10, "x").delivered());
        assertFalse(m.send(0, 5, 10, "x").delivered());
        assertFalse(m.canReach(9, 1));
        m.heal();
        assertTrue(m.send(0, 5, 10, "x").delivered());
        assertTrue(m.canReach(9, 1));
    }

    @Test
    void theSameSeedGivesTheSameDelays() {
        long[] a = delays(7);
        long[] b = delays(7);
        long[] c = delays(8);
        assertTrue(Arrays.equals(a, b));
        assertFalse(Arrays.equals(a, c));
    }

    private static long[] delays(long seed) {
        NetworkModel m = new NetworkModel(5, LinkSettings.defaults(), new SplittableRandom(seed));
        long[] out = new long[100];
        for (int i = 0; i < 100; i++) out[i] = m.send(i % 5, (i + 1) % 5, 500, "x").delayMicros();
        return out;
    }
}
