package org.peerdex.simulations.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

class EventSchedulerTest {
    /** The order the calendar must keep: one heap of every pending event, by time, then by the order scheduled. */
    private static final class OneHeap {
        private record Event(long at, long seq, Runnable action) {}

        private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.at != b.at
                ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
        private long now;
        private long seq;

        void schedule(long delay, Runnable action) {
            queue.add(new Event(now + delay, seq++, action));
        }

        void runUntil(long until) {
            while (!queue.isEmpty() && queue.peek().at <= until) {
                Event e = queue.poll();
                now = e.at;
                e.action.run();
            }
            if (until > now) now = until;
        }
    }

    /** A delay of every scale the simulator uses: none, microseconds, a slot or a few, seconds, past the ring. */
    private static long delay(SplittableRandom r) {
        return switch (r.nextInt(6)) {
            case 0 -> 0;
            case 1 -> r.nextLong(50);
            case 2 -> r.nextLong(3 * EventScheduler.SLOT_MICROS);
            case 3 -> r.nextLong(2_000_000);
            case 4 -> 4_000_000 + r.nextLong(200_000);
            default -> r.nextLong(60_000_000);
        };
    }

    /**
     * Runs one workload (events that schedule 0 to 2 more, a run until each of a series of times, the clock left
     * between events) on a scheduler given as its schedule and runUntil; the trace is every event's id and time.
     */
    private static List<String> trace(long seed, BiConsumer<Long, Runnable> schedule, java.util.function.LongConsumer runUntil,
                                      java.util.function.LongSupplier now) {
        SplittableRandom r = new SplittableRandom(seed);
        List<String> out = new ArrayList<>();
        int[] next = {0};
        class Spawn implements Runnable {
            final int id = next[0]++;

            @Override
            public void run() {
                out.add(id + "@" + now.getAsLong());
                if (next[0] > 20_000) return;
                int children = r.nextInt(3);
                for (int i = 0; i < children; i++) schedule.accept(delay(r), new Spawn());
            }
        }
        for (int i = 0; i < 200; i++) schedule.accept(delay(r), new Spawn());
        long t = 0;
        for (int step = 0; step < 400; step++) {
            t += r.nextInt(4) == 0 ? 30_000_000 : r.nextLong(700_000);
            runUntil.accept(t);
            if (r.nextInt(3) == 0) schedule.accept(delay(r), new Spawn());
        }
        runUntil.accept(Long.MAX_VALUE / 2);
        return out;
    }

    @Test
    void theCalendarRunsEventsInTheOrderOfOneHeap() {
        for (long seed = 1; seed <= 5; seed++) {
            EventScheduler calendar = new EventScheduler(seed);
            List<String> got = trace(seed, calendar::schedule, calendar::runUntil, calendar::nowMicros);
            OneHeap heap = new OneHeap();
            List<String> want = trace(seed, heap::schedule, heap::runUntil, () -> heap.now);
            assertTrue(want.size() > 10_000, "a workload of " + want.size() + " events");
            assertEquals(want, got, "seed " + seed);
            assertTrue(calendar.isIdle());
            assertEquals(0, calendar.pending());
        }
    }

    @Test
    void theNextEventAndThePendingCountSeeEverySlot() {
        EventScheduler s = new EventScheduler(1);
        assertEquals(Long.MAX_VALUE, s.nextEventAt());
        List<Long> ran = new ArrayList<>();
        for (long at : new long[] {90_000_000, 5, 5, 1_500, 4_100_000}) s.schedule(at, () -> ran.add(s.nowMicros()));
        assertEquals(5, s.pending());
        assertEquals(5, s.nextEventAt());
        s.runUntil(1_499);
        assertEquals(List.of(5L, 5L), ran);
        assertEquals(1_499, s.nowMicros());
        assertEquals(1_500, s.nextEventAt());
        // an event before the slot the calendar looked ahead to still runs first
        s.runUntil(2_000);
        s.schedule(10, () -> ran.add(s.nowMicros()));
        assertEquals(2_010, s.nextEventAt());
        s.runUntil(Long.MAX_VALUE / 2);
        assertEquals(List.of(5L, 5L, 1_500L, 2_010L, 4_100_000L, 90_000_000L), ran);
        assertTrue(s.isIdle());
    }
}
