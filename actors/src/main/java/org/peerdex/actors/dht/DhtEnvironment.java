package org.peerdex.actors.dht;

import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * Time and chance as the DHT actors see them, one per ActorSystem. A node uses the wall clock and
 * ThreadLocalRandom; a simulation installs its simulated clock and one seeded random source, so the same actor
 * code runs hours of network life in minutes and a seed fixes the run.
 */
public final class DhtEnvironment implements Extension {
    private static final Id ID = new Id();

    private volatile LongSupplier clock = System::currentTimeMillis;
    private volatile SplittableRandom random;

    /** The extension id (typed extensions need one). */
    public static final class Id extends ExtensionId<DhtEnvironment> {
        @Override
        public DhtEnvironment createExtension(ActorSystem<?> system) {
            return new DhtEnvironment();
        }
    }

    public static DhtEnvironment get(ActorSystem<?> system) {
        return ID.apply(system);
    }

    /** Installs a clock (milliseconds since the epoch) and a seeded random source; call before spawning peers. */
    public void simulate(LongSupplier millis, long seed) {
        this.clock = millis;
        this.random = new SplittableRandom(seed);
    }

    /** Milliseconds since the epoch: the wall clock, or simulated time. */
    public long millis() {
        return clock.getAsLong();
    }

    /** A random long in [0, bound). */
    public long nextLong(long bound) {
        SplittableRandom r = random;
        if (r == null) return ThreadLocalRandom.current().nextLong(bound);
        synchronized (r) {
            return r.nextLong(bound);
        }
    }
}
