package org.peerdex.benchmarks;

import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.peerdex.simulations.sim.EventScheduler;

/**
 * The simulator's event calendar against one heap of every pending event (what it replaced), on the same workload:
 * {@code pending} events, each scheduling the next at a random delay of up to two simulated seconds, until
 * {@code total} have run. Prints nanoseconds an event for each, three rounds (the first warms the JIT up).
 * <pre>java -cp benchmarks/target/peerdex-benchmarks.jar org.peerdex.benchmarks.EventQueueBenchmark 1000000 7000000</pre>
 */
public final class EventQueueBenchmark {
    private record Event(long at, long seq) {}

    private EventQueueBenchmark() {}

    public static void main(String[] args) {
        int pending = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        long total = args.length > 1 ? Long.parseLong(args[1]) : 7_000_000;
        for (int round = 0; round < 3; round++) {
            EventScheduler calendar = new EventScheduler(1);
            SplittableRandom r = new SplittableRandom(7);
            long[] ran = {0};
            Runnable[] next = new Runnable[1];
            next[0] = () -> {
                if (++ran[0] < total) calendar.schedule(r.nextLong(2_000_000), next[0]);
            };
            for (int i = 0; i < pending; i++) calendar.schedule(r.nextLong(2_000_000), next[0]);
            long t0 = System.nanoTime();
            calendar.runUntil(Long.MAX_VALUE / 4);
            long calendarNanos = System.nanoTime() - t0;

            PriorityQueue<Event> heap = new PriorityQueue<>((a, b) -> a.at() != b.at()
                    ? Long.compare(a.at(), b.at()) : Long.compare(a.seq(), b.seq()));
            SplittableRandom r2 = new SplittableRandom(7);
            long seq = 0;
            long heapRan = 0;
            for (int i = 0; i < pending; i++) heap.add(new Event(r2.nextLong(2_000_000), seq++));
            long t1 = System.nanoTime();
            while (!heap.isEmpty()) {
                Event e = heap.poll();
                if (++heapRan < total) heap.add(new Event(e.at() + r2.nextLong(2_000_000), seq++));
            }
            long heapNanos = System.nanoTime() - t1;
            System.out.printf("round %d: %,d pending, %,d events: calendar %.0f ns an event, one heap %.0f ns an event%n",
                    round + 1, pending, ran[0], (double) calendarNanos / ran[0], (double) heapNanos / heapRan);
        }
    }
}
