package org.peerdex.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.peerdex.node.trust.NetworkCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The peer's command line: {@code java -jar peerdex-node.jar [options]}. Every option is also a config key. */
@Command(name = "peerdex", mixinStandardHelpOptions = true, versionProvider = Main.VersionProvider.class,
        subcommands = {NetworkCommand.class},
        description = "Runs a Peerdex peer: crawls, indexes and searches, alone or in a network of peers.",
        footer = "%nEvery option is also a HOCON key (see node/src/main/resources/reference.conf).")
public final class Main implements Callable<Integer> {
    @Option(names = "--data", paramLabel = "DIR", description = "data directory (peerdex.data-dir; default ./data)")
    Path data;

    @Option(names = "--http", paramLabel = "HOST:PORT",
            description = "HTTP address (peerdex.http.*; default 127.0.0.1:8090)")
    String http;

    @Option(names = "--cluster", paramLabel = "HOST:PORT",
            description = "cluster (Artery) address (peerdex.cluster.*; default 127.0.0.1:25520)")
    String cluster;

    @Option(names = "--cluster-tls", paramLabel = "DIR",
            description = "Artery over mutual TLS with the peer files of 'peerdex network admit' (peerdex.cluster.tls-dir)")
    Path clusterTls;

    @Option(names = "--peer", paramLabel = "HOST:PORT",
            description = "open network: where the peer protocol listens (peerdex.peer.*; selects peerdex.transport = peer)")
    String peer;

    @Option(names = "--seed", paramLabel = "HOST:PORT",
            description = "a peer to join, repeatable: a peer-protocol address (peerdex.peer.seeds), or with --cluster "
                    + "a cluster address (peerdex.cluster.seeds); none = start a new network")
    List<String> seeds = new ArrayList<>();

    @Option(names = "--network", paramLabel = "NAME", description = "network name (peerdex.network; default peerdex)")
    String network;

    /** Retired: kept so that an old command line gets the message naming what replaced it (ModePolicy). */
    @Option(names = "--network-secret", paramLabel = "SECRET", hidden = true)
    String networkSecret;

    @Option(names = "--mode", paramLabel = "MODE", description = "p2p, intranet or portal (peerdex.mode; default p2p)")
    String mode;

    @Option(names = "--config", paramLabel = "FILE", description = "a HOCON file of peerdex.* keys")
    Path configFile;

    @Option(names = "--admin-password", paramLabel = "PASSWORD", description = "sets the admin password (stored hashed)")
    String adminPassword;

    /** Builds the effective config: options over --config over -D system properties over reference.conf. */
    Config config() {
        Config overrides = ConfigFactory.empty();
        if (data != null) overrides = overrides.withValue("peerdex.data-dir", ConfigValueFactory.fromAnyRef(data.toString()));
        if (http != null) {
            HostPort hp = HostPort.parse("--http", http);
            overrides = overrides.withValue("peerdex.http.host", ConfigValueFactory.fromAnyRef(hp.host()))
                    .withValue("peerdex.http.port", ConfigValueFactory.fromAnyRef(hp.port()));
        }
        if (cluster != null) {
            HostPort hp = HostPort.parse("--cluster", cluster);
            overrides = overrides.withValue("peerdex.cluster.host", ConfigValueFactory.fromAnyRef(hp.host()))
                    .withValue("peerdex.cluster.port", ConfigValueFactory.fromAnyRef(hp.port()));
        }
        if (clusterTls != null) {
            overrides = overrides.withValue("peerdex.cluster.tls-dir", ConfigValueFactory.fromAnyRef(clusterTls.toString()));
        }
        if (peer != null) {
            if (cluster != null) throw new IllegalArgumentException("--peer (open network) and --cluster (trust domain) exclude each other");
            HostPort hp = HostPort.parse("--peer", peer);
            overrides = overrides.withValue("peerdex.peer.host", ConfigValueFactory.fromAnyRef(hp.host()))
                    .withValue("peerdex.peer.port", ConfigValueFactory.fromAnyRef(hp.port()))
                    .withValue("peerdex.transport", ConfigValueFactory.fromAnyRef("peer"));
        } else if (cluster != null) {
            overrides = overrides.withValue("peerdex.transport", ConfigValueFactory.fromAnyRef("cluster"));
        }
        if (!seeds.isEmpty()) {
            for (String s : seeds) HostPort.parse("--seed", s);
            // with --cluster (or in intranet mode, a private cluster) they are cluster (Artery) addresses; otherwise
            // peer-protocol addresses of the open network
            boolean clusterSeeds = cluster != null || (mode != null && NodeConfig.Mode.parse(mode) == NodeConfig.Mode.INTRANET);
            overrides = overrides.withValue(clusterSeeds ? "peerdex.cluster.seeds" : "peerdex.peer.seeds",
                    ConfigValueFactory.fromIterable(seeds));
        }
        if (network != null) overrides = overrides.withValue("peerdex.network", ConfigValueFactory.fromAnyRef(network));
        if (networkSecret != null) {
            overrides = overrides.withValue("peerdex.network-secret", ConfigValueFactory.fromAnyRef(networkSecret));
        }
        if (mode != null) {
            NodeConfig.Mode.parse(mode);
            overrides = overrides.withValue("peerdex.mode", ConfigValueFactory.fromAnyRef(mode));
        }
        if (adminPassword != null) {
            overrides = overrides.withValue("peerdex.admin.password-hash",
                    ConfigValueFactory.fromAnyRef(Passwords.hash(adminPassword)));
        }
        Config file = ConfigFactory.empty();
        if (configFile != null) {
            if (!Files.isRegularFile(configFile)) throw new IllegalArgumentException("no such config file: " + configFile);
            file = ConfigFactory.parseFile(new File(configFile.toString()));
        }
        return overrides.withFallback(file).withFallback(ConfigFactory.load()).resolve();
    }

    @Override
    public Integer call() {
        Config config;
        try {
            config = config();
            NodeConfig.from(config);
        } catch (RuntimeException e) {
            System.err.println("peerdex: " + e.getMessage());
            return 2;
        }
        RejoiningPeer peer;
        try {
            peer = RejoiningPeer.start(config);
        } catch (StartupException e) {
            System.err.println("peerdex: " + e.getMessage());
            return 2;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                peer.node().whenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // the JVM is going down anyway
            }
        }, "peerdex-shutdown-wait"));
        // a peer downed by the cluster (the smaller side of a partition) starts again: see RejoiningPeer
        peer.whenStopped().toCompletableFuture().join();
        return 0;
    }

    /** HOST:PORT as given on the command line. */
    record HostPort(String host, int port) {
        static HostPort parse(String option, String s) {
            int colon = s.lastIndexOf(':');
            if (colon <= 0 || colon == s.length() - 1) throw new IllegalArgumentException(option + " wants HOST:PORT, not '" + s + "'");
            int port;
            try {
                port = Integer.parseInt(s.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " wants a numeric port, not '" + s + "'");
            }
            if (port < 0 || port > 65535) throw new IllegalArgumentException(option + " port out of range: " + port);
            return new HostPort(s.substring(0, colon), port);
        }
    }

    /** Prints the version. */
    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"Peerdex " + Version.VERSION};
        }
    }

    /** Runs the command line and returns the exit code: 0 normal stop, 2 bad usage or failed start. */
    public static int run(String... args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setParameterExceptionHandler((ex, a) -> {
            System.err.println("peerdex: " + ex.getMessage() + " (see --help)");
            return 2;
        });
        return cl.execute(args);
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }
}
