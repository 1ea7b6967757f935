package org.peerdex.simulations.sim;

import java.util.ArrayList;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Discrete-event simulated time: events ordered by simulated time, ties broken by the order they were scheduled
 * in. Nothing reads the wall clock; one seeded {@link SplittableRandom} is the only source of chance, and
 * sub-models take {@link #split() splits} of it, so a seed fixes the whole run.
 * <p>The pending events are kept as a calendar: a heap of the events of the current slot of {@value #SLOT_MICROS}
 * µs, a ring of {@value #SLOTS} unsorted slots after it, and a heap of the events beyond the ring. An event goes to
 * the heap of its slot only when the clock reaches the slot, so the heap an event is taken from holds one slot's
 * events instead of every pending one (millions at 100,000 peers, where one heap took a tenth of the run in its
 * compares). The order is the same: by time, then by the order scheduled.
 */
public final class EventScheduler {
    private record Event(long at, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    /** Simulated µs a slot of the calendar spans. */
    static final long SLOT_MICROS = 1_000;
    /** Slots of the ring after the current one (a power of two): about four simulated seconds. */
    static final int SLOTS = 4_096;

    /** the events before {@link #slotEnd}, ordered */
    private final PriorityQueue<Event> current = new PriorityQueue<>();
    /** the events of the slots after the current one, each unordered: slot i of the ring holds [start, start + µs) */
    @SuppressWarnings("unchecked")
    private final ArrayList<Event>[] ring = new ArrayList[SLOTS];
    /** the events at or after {@link #horizon()}, ordered */
    private final PriorityQueue<Event> far = new PriorityQueue<>();
    /** where the current slot ends (exclusive): the ring's first slot begins there */
    private long slotEnd = SLOT_MICROS;
    private int size;
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
        add(new Event(now + delayMicros, seq++, action));
    }

    private long horizon() {
        return slotEnd + SLOTS * SLOT_MICROS;
    }

    private void add(Event e) {
        size++;
        place(e);
    }

    /** Puts a pending event where its time belongs: the current slot's heap, its slot of the ring, or beyond. */
    private void place(Event e) {
        if (e.at < slotEnd) {
            current.add(e);
        } else if (e.at < horizon()) {
            int i = (int) ((e.at / SLOT_MICROS) & (SLOTS - 1));
            if (ring[i] == null) ring[i] = new ArrayList<>();
            ring[i].add(e);
        } else {
            far.add(e);
        }
    }

    /**
     * The next event, in the current slot's heap (null when none is pending): while that is empty, the next slot
     * becomes the current one, and the events beyond the ring that now fall inside it move into it. With the ring
     * empty as well, the clock's slot jumps to the first far event's.
     */
    private Event head() {
        while (current.isEmpty()) {
            if (size == 0) return null;
            if (far.size() == size) {
                // nothing in the ring: jump to the slot of the first far event
                slotEnd = (far.peek().at / SLOT_MICROS) * SLOT_MICROS;
            }
            long start = slotEnd;
            slotEnd += SLOT_MICROS;
            ArrayList<Event> slot = ring[(int) ((start / SLOT_MICROS) & (SLOTS - 1))];
            if (slot != null && !slot.isEmpty()) {
                current.addAll(slot);
                slot.clear();
            }
            // the slot that just joined the end of the ring takes the far events inside it
            while (!far.isEmpty() && far.peek().at < horizon()) place(far.poll());
        }
        return current.peek();
    }

    public void scheduleAt(long atMicros, Runnable action) {
        schedule(Math.max(0, atMicros - now), action);
    }

    public boolean isIdle() {
        return size == 0;
    }

    public int pending() {
        return size;
    }

    public long executed() {
        return executed;
    }

    /** Time of the next event, or Long.MAX_VALUE when none is pending. */
    public long nextEventAt() {
        Event e = head();
        return e == null ? Long.MAX_VALUE : e.at;
    }

    /** Runs one event; false if none is pending. */
    public boolean step() {
        if (head() == null) return false;
        Event e = current.poll();
        size--;
        now = e.at;
        executed++;
        e.action.run();
        return true;
    }

    /** Runs every event due up to and including {@code untilMicros}, then sets the clock there. */
    public void runUntil(long untilMicros) {
        for (Event e = head(); e != null && e.at <= untilMicros; e = head()) step();
        if (untilMicros > now) now = untilMicros;
    }

    /** Runs until no event is pending or {@code maxEvents} ran; returns the number run. */
    public long runUntilIdle(long maxEvents) {
        long n = 0;
        while (n < maxEvents && step()) n++;
        return n;
    }
}
