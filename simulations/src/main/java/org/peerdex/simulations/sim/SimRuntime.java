package org.peerdex.simulations.sim;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.ToIntFunction;
import org.apache.pekko.actor.ActorPath;
import org.apache.pekko.dispatch.Mailbox;

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
    private final ConcurrentLinkedQueue<Task> ready = new ConcurrentLinkedQueue<>();
    private final ExecutorService executor = new ReadyQueue();
    private long tasksRun;
    /** The thread that drives the run once the system is up ({@link #started}); null before. */
    private volatile Thread driver;
    /** Tasks submitted from another thread than the driver after {@link #started}: none in a reproducible run. */
    private final java.util.concurrent.atomic.AtomicLong foreignTasks = new java.util.concurrent.atomic.AtomicLong();
    /** The peer the running task works for, -1 for none (timed events, the driver, system actors). */
    private int current = -1;
    private ToIntFunction<ActorPath> peerOfPath = p -> -1;
    /** Which peer each actor (by its mailbox) works for; stopped actors are purged now and then. */
    private final Map<Mailbox, Integer> actorPeers = new IdentityHashMap<>();
    private int purgeAt = 10_000;

    /** A ready task and the peer that was running when it was submitted. */
    private record Task(Runnable run, int submittedBy) {}

    private SimRuntime(String id, long seed) {
        this.id = id;
        this.events = new EventScheduler(seed);
    }

    /** A new runtime, registered under a fresh id for the system's config. */
    public static SimRuntime create(long seed) {
        String id = "run-" + UUID.randomUUID();
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

    /** Tasks run since {@link #started}. */
    public long tasksRun() {
        return tasksRun;
    }

    /**
     * The system is up; from now on only the calling thread drives the run. The tasks counted so far are dropped:
     * while the system starts, a helper thread submits the guardians' and loggers' first runs as the driver drains,
     * and how many runs a mailbox takes depends on that race (2-4 in 40,000 between runs of one seed), though
     * what they do does not.
     */
    public void started() {
        driver = Thread.currentThread();
        tasksRun = 0;
    }

    /**
     * Tasks another thread than the driver submitted after {@link #started} (a blocking call's callback on a real
     * pool, say): their place in the queue depends on the host's timing, so a run with any is not reproducible.
     */
    public long foreignTasks() {
        return foreignTasks.get();
    }

    /**
     * How to tell from an actor's path which peer it belongs to (-1: none). An actor whose path does not say (one
     * started with systemActorOf, say) belongs to the peer that started it: the one running when its mailbox was
     * first scheduled, which is at its creation. A guardian's run belongs to the peer that scheduled it (two peers
     * starting system actors within one drain would both be taken for the first). Other tasks (blocking work, future callbacks) belong to the peer
     * that submitted them.
     */
    public void attributeBy(ToIntFunction<ActorPath> peerOfPath) {
        this.peerOfPath = peerOfPath;
    }

    /** The peer the running task works for, -1 for none: the sender of what it tells another peer. */
    public int currentPeer() {
        return current;
    }

    /** Runs ready tasks until none is left. */
    public void drain() {
        Thread d = driver;
        // a run may be driven from another thread than the one that built it: the driver is whoever drains
        if (d != null && d != Thread.currentThread()) driver = Thread.currentThread();
        Task t;
        while ((t = ready.poll()) != null) {
            tasksRun++;
            int outer = current;
            current = peerOf(t);
            try {
                t.run().run();
            } finally {
                current = outer;
            }
        }
    }

    private int peerOf(Task t) {
        if (!(t.run() instanceof Mailbox m) || m.actor() == null) return t.submittedBy();
        Integer known = actorPeers.get(m);
        if (known == null) {
            ActorPath path = m.actor().self().path();
            int byPath = peerOfPath.applyAsInt(path);
            // a guardian works for whoever scheduled it: it starts the children of systemActorOf (they are
            // created asynchronously, in the guardian's run)
            if (byPath < 0 && path.elements().size() <= 1) return t.submittedBy();
            known = byPath >= 0 ? byPath : t.submittedBy();
            actorPeers.put(m, known);
            if (actorPeers.size() >= purgeAt) {
                actorPeers.keySet().removeIf(Mailbox::isClosed);
                purgeAt = Math.max(10_000, 2 * actorPeers.size());
            }
        }
        return known;
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
            Thread d = driver;
            if (d != null && Thread.currentThread() != d) foreignTasks.incrementAndGet();
            ready.add(new Task(command, current));
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
