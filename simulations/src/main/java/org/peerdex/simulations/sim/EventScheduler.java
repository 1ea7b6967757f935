package org.peerdex.simulations.sim;

import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Discrete-event simulated time: events ordered by simulated time, ties broken by the order they were scheduled
 * in. Nothing reads the wall clock; one seeded {@link SplittableRandom} is the only source of chance, and
 * sub-models take {@link #split() splits} of it, so a seed fixes the whole run.
 */
public final class EventScheduler {
    private record Event(long at, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private final SplittableRandom random;
    private long now;
    private long seq;
    private long executed;

    public EventScheduler(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** Simulated time in microseconds since the start of the run. */
    public long nowMicros() {
        return now;
    }

    public double nowMillis() {
        return now / 1000.0;
    }

    public SplittableRandom random() {
        return random;
    }

    /** An independent random stream for one sub-model, derived deterministically from the run's seed. */
    public SplittableRandom split() {
        return random.split();
    }

    /** Runs {@code action} after {@code delayMicros} of simulated time (0 = after the events already due now). */
    public void schedule(long delayMicros, Runnable action) {
        if (delayMicros < 0) throw new IllegalArgumentException("delay must not be negative");
        queue.add(new Event(now + delayMicros, seq++, action));
    }

    public void scheduleAt(long atMicros, Runnable action) {
        schedule(Math.max(0, atMicros - now), action);
    }

    public boolean isIdle() {
        return queue.isEmpty();
    }

    public int pending() {
        return queue.size();
    }

    public long executed() {
        return executed;
    }

    /** Time of the next event, or Long.MAX_VALUE when none is pending. */
    public long nextEventAt() {
        Event e = queue.peek();
        return e == null ? Long.MAX_VALUE : e.at;
    }

    /** Runs one event; false if none is pending. */
    public boolean step() {
        Event e = queue.poll();
        if (e == null) return false;
        now = e.at;
        executed++;
        e.action.run();
        return true;
    }

    /** Runs every event due up to and including {@code untilMicros}, then sets the clock there. */
    public void runUntil(long untilMicros) {
        while (!queue.isEmpty() && queue.peek().at <= untilMicros) step();
        if (untilMicros > now) now = untilMicros;
    }

    /** Runs until no event is pending or {@code maxEvents} ran; returns the number run. */
    public long runUntilIdle(long maxEvents) {
        long n = 0;
        while (n < maxEvents && step()) n++;
        return n;
    }
}
