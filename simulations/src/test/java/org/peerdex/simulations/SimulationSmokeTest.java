package org.peerdex.simulations;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SimulationSmokeTest {
    @Test
    void smallRunCompletes() {
        Scenario sc = Scenario.load(ConfigFactory.parseString("peers = 20, docs = 300, queries = 40, duration = 5m, samples = 3"));
        try (Simulation sim = new Simulation(sc)) {
            sim.progress((p, f, s) -> System.out.printf("%s %.2f %s%n", p, f, s));
            Map<String, Object> summary = sim.run();
            System.out.println(summary);
            assertEquals(20, sim.upCount());
        }
    }
}
