package org.peerdex.simulations.sim;

import com.typesafe.config.Config;
import java.util.concurrent.ThreadFactory;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.ExecutorServiceConfigurator;
import org.apache.pekko.dispatch.ExecutorServiceFactory;

/** Dispatcher executor of a simulated system: tasks go to the run's ready queue, run by the driver thread. */
public final class SimExecutorConfigurator extends ExecutorServiceConfigurator {
    private final SimRuntime runtime;

    public SimExecutorConfigurator(Config config, DispatcherPrerequisites prerequisites) {
        super(config, prerequisites);
        this.runtime = SimRuntime.of(prerequisites.settings().config().getString("peerdex.sim.run-id"));
    }

    @Override
    public ExecutorServiceFactory createExecutorServiceFactory(String id, ThreadFactory threadFactory) {
        return runtime::executor;
    }
}
