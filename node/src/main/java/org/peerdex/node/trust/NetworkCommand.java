package org.peerdex.node.trust;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code peerdex network init|admit}: a private network's certificate authority (see {@link NetworkCa}). */
@Command(name = "network", mixinStandardHelpOptions = true,
        description = "A private network's own CA: peers admitted by its certificates form a Pekko Cluster over TLS.",
        subcommands = {NetworkCommand.Init.class, NetworkCommand.Admit.class})
public final class NetworkCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("peerdex network: say init or admit (peerdex network --help)");
        return 2;
    }

    /** Creates the CA. */
    @Command(name = "init", mixinStandardHelpOptions = true, description = "creates the network's CA in DIR")
    static final class Init implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "CA-DIR")
        Path dir;

        @Option(names = "--network", paramLabel = "NAME", defaultValue = "peerdex", description = "the network name")
        String network;

        @Option(names = "--days", defaultValue = "3650", description = "validity of the CA certificate")
        int days;

        @Override
        public Integer call() {
            try {
                var c = NetworkCa.init(dir, network, Duration.ofDays(days));
                System.out.println("created the CA of network '" + network + "' in " + dir + " (" + c.getSubjectX500Principal()
                        + "); keep " + NetworkCa.CA_STORE + " and " + NetworkCa.CA_PASSWORD + " offline");
                return 0;
            } catch (Exception e) {
                System.err.println("peerdex network init: " + e.getMessage());
                return 2;
            }
        }
    }

    /** Issues a peer certificate. */
    @Command(name = "admit", mixinStandardHelpOptions = true,
            description = "issues peer NAME a key and certificate of the CA in CA-DIR, written to --out (default CA-DIR/NAME)")
    static final class Admit implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "CA-DIR")
        Path dir;

        @Parameters(index = "1", paramLabel = "NAME")
        String name;

        @Option(names = "--out", paramLabel = "DIR", description = "where the peer's files go")
        Path out;

        @Option(names = "--days", defaultValue = "365", description = "validity of the peer certificate")
        int days;

        @Override
        public Integer call() {
            Path target = out == null ? dir.resolve(name) : out;
            try {
                var c = NetworkCa.admit(dir, name, target, Duration.ofDays(days));
                System.out.println("admitted " + c.getSubjectX500Principal() + ": copy " + target
                        + " to the peer and start it with --cluster HOST:PORT --cluster-tls DIR");
                return 0;
            } catch (Exception e) {
                System.err.println("peerdex network admit: " + e.getMessage());
                return 2;
            }
        }
    }
}
