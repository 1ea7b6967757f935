package org.peerdex.actors.crawl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The per-minute ring of the last hour behind the console's plots. */
class RateMeterTest {
    static final long MIN = 60_000;

    @Test
    void countsEachMinuteOfTheLastHourOldestFirst() {
        RateMeter m = new RateMeter();
        long t0 = 1_000 * MIN; // the start of a minute
        assertArrayEquals(new long[60], m.lastHour(t0), "nothing recorded");
        m.record(t0 + 5_000, 3);
        m.record(t0 + 59_000, 2);
        m.record(t0 + 2 * MIN + 1, 7);
        long[] h = m.lastHour(t0 + 2 * MIN + 30_000);
        assertEquals(7, h[59], "the current minute so far");
        assertEquals(0, h[58]);
        assertEquals(5, h[57]);
        assertEquals(12, Arrays.stream(h).sum());
    }

    @Test
    void minutesOlderThanAnHourAreForgottenEvenWhenTheirSlotIsReused() {
        RateMeter m = new RateMeter();
        long t0 = 500 * MIN;
        m.record(t0, 4);
        // an hour and a minute later, the slot of t0's minute belongs to another minute
        long later = t0 + 61 * MIN;
        assertEquals(0, Arrays.stream(m.lastHour(later)).sum());
        m.record(later + 1, 1);
        long[] h = m.lastHour(later + 2);
        assertEquals(1, h[59]);
        assertEquals(1, Arrays.stream(h).sum());
        // 59 minutes later it is the oldest minute shown, at 60 it is gone
        assertEquals(1, m.lastHour(later + 59 * MIN)[0]);
        assertEquals(0, Arrays.stream(m.lastHour(later + 60 * MIN)).sum());
    }
}
