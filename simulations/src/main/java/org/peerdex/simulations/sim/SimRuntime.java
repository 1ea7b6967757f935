package org.peerdex.simulations.sim;

import java.util.List;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The engine under one simulated ActorSystem: the {@link EventScheduler} (simulated time) and one FIFO of ready
 * tasks that stands in for every dispatcher's thread pool. The driver thread alone runs both: it drains the ready
 * tasks (actor mailboxes, blocking work), then takes the next timed event, and so on; so a seed gives the same
 * interleaving every time. Pekko finds the runtime of its system by {@code peerdex.sim.run-id}.
 */
public final class SimRuntime {
    /** Simulated time starts here (2026-01-01T00:00Z), so TTLs and dates in the actors look sane. */
    public static final long EPOCH_MILLIS = 1_767_225_600_000L;
    private static final Map<String, SimRuntime> RUNS = new ConcurrentHashMap<>();

    private final String id;
    private final EventScheduler events;
    private final ConcurrentLinkedQueue<Runnable> ready = new ConcurrentLinkedQueue<>();
    private final ExecutorService executor = new ReadyQueue();
    private long tasksRun;

    private SimRuntime(String id, long seed) {
        this.id = id;
        this.events = new EventScheduler(seed);
    }

    /** A new runtime, registered under a fresh id for the system's config. */
    public static SimRuntime create(long seed) {
        String id = "run-" + java.util.UUID.randomUUID();
        SimRuntime r = new SimRuntime(id, seed);
        RUNS.put(id, r);
        return r;
    }

    public static SimRuntime of(String id) {
        SimRuntime r = RUNS.get(id);
        if (r == null) throw new IllegalStateException("no simulation runtime " + id);
        return r;
    }

    public String id() {
        return id;
    }

    public void unregister() {
        RUNS.remove(id);
    }

    public EventScheduler events() {
        return events;
    }

    /** Simulated now in microseconds since the start. */
    public synchronized long nowMicros() {
        return events.nowMicros();
    }

    /** Simulated wall clock for the actors. */
    public long millis() {
        return EPOCH_MILLIS + nowMicros() / 1000;
    }

    public ExecutorService executor() {
        return executor;
    }

    public synchronized void schedule(long delayMicros, Runnable action) {
        events.schedule(delayMicros, action);
    }

    public long tasksRun() {
        return tasksRun;
    }

    /** Runs ready tasks until none is left. */
    public void drain() {
        Runnable r;
        while ((r = ready.poll()) != null) {
            tasksRun++;
            r.run();
        }
    }

    /** Runs everything due up to {@code untilMicros} and leaves the clock there. */
    public void runUntil(long untilMicros) {
        drain();
        while (true) {
            synchronized (this) {
                if (events.nextEventAt() > untilMicros) {
                    events.runUntil(untilMicros);
                    break;
                }
                events.step();
            }
            drain();
        }
        drain();
    }

    /**
     * Runs in steps of {@code stepMicros} until {@code done} holds or {@code maxMicros} of simulated time passed;
     * returns whether it held.
     */
    public boolean runUntil(BooleanSupplier done, long stepMicros, long maxMicros) {
        long end = nowMicros() + maxMicros;
        drain();
        while (!done.getAsBoolean()) {
            if (nowMicros() >= end) return false;
            runUntil(Math.min(end, nowMicros() + stepMicros));
        }
        return true;
    }

    private final class ReadyQueue extends AbstractExecutorService {
        @Override
        public void execute(Runnable command) {
            ready.add(command);
        }

        @Override
        public void shutdown() {}

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }
}
