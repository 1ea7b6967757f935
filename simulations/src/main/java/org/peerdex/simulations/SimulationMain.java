package org.peerdex.simulations;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.peerdex.simulations.report.ReportWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The simulation CLI: {@code java -jar peerdex-simulations.jar --peers 500 --partitions 16 --redundancy 3
 * --docs 50000 --queries 2000 --churn weibull:0.4,40m --seed 42 --out DIR}. Flags override keys of the
 * scenario file (--config), which overrides the defaults in scenario.conf.
 */
@Command(name = "peerdex-simulations", mixinStandardHelpOptions = true,
        description = "Runs virtual peers of the real Peerdex DHT actors over a modelled network in simulated time.")
public final class SimulationMain implements Callable<Integer> {
    @Option(names = "--config", description = "scenario file (HOCON; keys as in scenario.conf)")
    File config;
    @Option(names = "--peers", description = "virtual peers") Integer peers;
    @Option(names = "--partitions", description = "DHT partitions per word: a COUNT, power of two (16 = exponent 4)")
    Integer partitions;
    @Option(names = "--redundancy", description = "copies of every posting (R)") Integer redundancy;
    @Option(names = "--docs", description = "synthetic documents") Integer docs;
    @Option(names = "--queries", description = "queries") Integer queries;
    @Option(names = "--query-mix", description = "percent of 1,2,3,4-word queries, e.g. 40,35,15,10") String queryMix;
    @Option(names = "--churn", description = "none or weibull:SHAPE,SCALE (session times)") String churn;
    @Option(names = "--down", description = "auto or weibull:SHAPE,SCALE (down times)") String down;
    @Option(names = "--crash-fraction", description = "share of sessions ending in a crash") Double crashFraction;
    @Option(names = "--duration", description = "main phase length in simulated time, e.g. 1h") String duration;
    @Option(names = "--partition-at", description = "split the ring at this time into the main phase") String partitionAt;
    @Option(names = "--heal-at", description = "heal the split at this time into the main phase") String healAt;
    @Option(names = "--partition-groups", description = "arcs the ring is split into") Integer partitionGroups;
    @Option(names = "--loss", description = "message loss probability") Double loss;
    @Option(names = "--rtt", description = "median round-trip time, e.g. 80ms") String rtt;
    @Option(names = "--bandwidth", description = "per-link bytes per second") String bandwidth;
    @Option(names = "--seed", description = "fixes placement, corpus, workload, churn and faults") Long seed;
    @Option(names = "--samples", description = "points of the time series") Integer samples;
    @Option(names = "--hostile", split = ",", description = "share of hostile peers, or several (0,0.1,0.3):"
            + " one run each into DIR/hostile-SHARE, a table and plot in DIR/report.html")
    List<Double> hostile;
    @Option(names = "--hostile-kind", description = "sybil, fake, drop or all (default all)") String hostileKind;
    @Option(names = "--set", description = "any scenario key, e.g. --set dht.rebalance-delay=30s") Map<String, String> set;
    @Option(names = "--out", required = true, description = "output directory (summary.json, CSVs, report.html)")
    Path out;
    @Option(names = "--no-progress", description = "no progress bar") boolean noProgress;

    /** the command line, echoed in a sweep's report */
    private String[] args = new String[0];

    public static void main(String[] args) {
        SimulationMain main = new SimulationMain();
        main.args = args;
        System.exit(new CommandLine(main).execute(args));
    }

    Config overrides() {
        Config c = ConfigFactory.empty();
        Object[][] flags = {{"peers", peers}, {"partitions", partitions}, {"redundancy", redundancy}, {"docs", docs},
            {"queries", queries}, {"query-mix", queryMix}, {"churn", churn}, {"down", down},
            {"crash-fraction", crashFraction}, {"duration", duration}, {"partition-at", partitionAt},
            {"heal-at", healAt}, {"partition-groups", partitionGroups}, {"loss", loss}, {"rtt", rtt},
            {"bandwidth", bandwidth}, {"seed", seed}, {"samples", samples}, {"hostile.kind", hostileKind},
            {"hostile.share", hostile != null && hostile.size() == 1 ? hostile.get(0) : null}};
        for (Object[] f : flags) if (f[1] != null) c = c.withValue((String) f[0], ConfigValueFactory.fromAnyRef(f[1]));
        if (set != null) for (var e : set.entrySet()) c = ConfigFactory.parseString(e.getKey() + " = " + e.getValue()).withFallback(c);
        if (config != null) {
            if (!config.isFile()) throw new CommandLine.ParameterException(new CommandLine(this), "no scenario file " + config);
            c = c.withFallback(ConfigFactory.parseFile(config));
        }
        return c;
    }

    @Override
    public Integer call() throws Exception {
        if (hostile != null && hostile.size() > 1) return sweep();
        Scenario sc;
        try {
            sc = Scenario.load(overrides());
        } catch (IllegalArgumentException | ConfigException e) {
            System.err.println("bad scenario: " + e.getMessage());
            return 2;
        }
        Files.createDirectories(out);
        ProgressBar bar = new ProgressBar(!noProgress);
        Map<String, Object> summary;
        try (Simulation sim = new Simulation(sc).progress(bar)) {
            summary = sim.run();
            bar.done();
            ReportWriter.write(out, sim, summary);
        }
        System.out.println(ReportWriter.headline(summary));
        System.out.println("wrote " + out.resolve("summary.json") + ", " + out.resolve("timeseries.csv") + ", "
                + out.resolve("peers.csv") + ", " + out.resolve("queries.csv") + ", " + out.resolve("report.html"));
        return 0;
    }

    /**
     * One run per hostile share, each into its own subdirectory, then the sweep's table and plot. The admission
     * bounds apply to every run (unless set otherwise), so the run without hostile peers is the same network.
     */
    private int sweep() throws Exception {
        Config base = overrides();
        if (!base.hasPath("admission.mode")) base = base.withValue("admission.mode", ConfigValueFactory.fromAnyRef("on"));
        List<Scenario> runs = new ArrayList<>();
        try {
            for (double share : hostile) {
                runs.add(Scenario.load(base.withValue("hostile.share", ConfigValueFactory.fromAnyRef(share))));
            }
        } catch (IllegalArgumentException | ConfigException e) {
            System.err.println("bad scenario: " + e.getMessage());
            return 2;
        }
        List<Map<String, Object>> summaries = new ArrayList<>();
        for (Scenario sc : runs) {
            Path dir = out.resolve(ReportWriter.sweepDir(sc.hostile().share()));
            Files.createDirectories(dir);
            ProgressBar bar = new ProgressBar(!noProgress);
            try (Simulation sim = new Simulation(sc).progress(bar)) {
                Map<String, Object> summary = sim.run();
                bar.done();
                ReportWriter.write(dir, sim, summary);
                summaries.add(summary);
            }
            System.out.println("hostile " + sc.hostile().share() + ": " + ReportWriter.headline(summaries.get(summaries.size() - 1)));
        }
        Files.createDirectories(out);
        ReportWriter.writeSweep(out, summaries, "peerdex-simulations " + String.join(" ", args));
        System.out.print(ReportWriter.hostileCsv(summaries));
        System.out.println("wrote " + out.resolve("hostile.csv") + ", " + out.resolve("report.html"));
        return 0;
    }

    /** A one-line progress bar on stderr. */
    static final class ProgressBar implements Simulation.Progress {
        private final boolean on;
        private final long start = System.nanoTime();

        ProgressBar(boolean on) {
            this.on = on;
        }

        @Override
        public void update(String phase, double fraction, String status) {
            if (!on) return;
            int width = 30;
            int filled = (int) Math.round(Math.max(0, Math.min(1, fraction)) * width);
            String bar = "#".repeat(filled) + "-".repeat(width - filled);
            System.err.printf("\r[%s] %3d%% %-9s %-40s %5.0fs", bar, Math.round(fraction * 100), phase, status,
                    (System.nanoTime() - start) / 1e9);
        }

        void done() {
            if (on) System.err.println();
        }
    }
}
