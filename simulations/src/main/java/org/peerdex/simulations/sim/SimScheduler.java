package org.peerdex.simulations.sim;

import com.typesafe.config.Config;
import java.util.concurrent.ThreadFactory;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.Scheduler;
import org.apache.pekko.event.LoggingAdapter;
import scala.concurrent.ExecutionContext;
import scala.concurrent.duration.FiniteDuration;

/**
 * Pekko's scheduler in simulated time ({@code pekko.scheduler.implementation}): every timer of the real actors
 * (Replicator ticks, ask timeouts, rebalance debounce) becomes an event of the run's {@link SimRuntime}.
 * Like ExplicitlyTriggeredScheduler from the testkit, but sharing one event queue with the network model, so
 * network deliveries and timers interleave in one deterministic order.
 */
public final class SimScheduler implements Scheduler {
    private final SimRuntime runtime;

    public SimScheduler(Config config, LoggingAdapter log, ThreadFactory threadFactory) {
        this.runtime = SimRuntime.of(config.getString("peerdex.sim.run-id"));
    }

    private static final class Task implements Cancellable {
        private volatile boolean cancelled;

        @Override
        public boolean cancel() {
            boolean was = cancelled;
            cancelled = true;
            return !was;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }
    }

    private static long micros(FiniteDuration d) {
        return Math.max(0, d.toMicros());
    }

    @Override
    public Cancellable scheduleOnce(FiniteDuration delay, Runnable runnable, ExecutionContext executor) {
        Task t = new Task();
        runtime.schedule(micros(delay), () -> {
            if (!t.cancelled) {
                t.cancelled = true;
                executor.execute(runnable);
            }
        });
        return t;
    }

    @Override
    public Cancellable schedule(FiniteDuration initialDelay, FiniteDuration interval, Runnable runnable,
                                ExecutionContext executor) {
        Task t = new Task();
        long every = Math.max(1, micros(interval));
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            if (t.cancelled) return;
            executor.execute(runnable);
            runtime.schedule(every, tick[0]);
        };
        runtime.schedule(micros(initialDelay), tick[0]);
        return t;
    }

    @Override
    public double maxFrequency() {
        return 1000.0;
    }
}
