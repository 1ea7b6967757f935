package org.peerdex.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.Optional;
import org.peerdex.storage.PeerStorage;

/**
 * The cluster port a peer on "port 0" reuses across restarts. A peer killed hard stays an unreachable member until
 * the split-brain resolver downs it (stable-after, 20 s), and a restart on a fresh port is a stranger to the
 * cluster: killed again or joined by other restarts within that window, the dead incarnations pile up until the
 * survivors are a minority and the resolver downs them all. A new incarnation at the same host:port instead makes
 * the cluster down the old one as soon as the join arrives. So the port a peer last bound is kept in its data
 * directory and, when the configuration asks for any free port (0), tried first; a taken port falls back to 0.
 */
final class ClusterIncarnation {
    static final String SETTING = "cluster.port";

    private ClusterIncarnation() {}

    /** The port to try first: the one of the last run when the configured port is 0, else none. */
    static Optional<Integer> portToReuse(NodeConfig nc, PeerStorage storage) {
        if (nc.clusterPort() != 0) return Optional.empty();
        return storage.setting(SETTING).flatMap(ClusterIncarnation::parsePort);
    }

    /** Config that binds the cluster endpoint to {@code port} (over the peer's own Pekko config). */
    static Config bindTo(int port) {
        return ConfigFactory.parseString("pekko.remote.artery.canonical.port = " + port);
    }

    /** Remembers the port the cluster endpoint bound, for the next run. */
    static void remember(PeerStorage storage, int port) {
        if (port > 0 && !storage.setting(SETTING).equals(Optional.of(Integer.toString(port)))) {
            storage.putSetting(SETTING, Integer.toString(port));
        }
    }

    static Optional<Integer> parsePort(String s) {
        try {
            int p = Integer.parseInt(s.trim());
            return p > 0 && p < 65536 ? Optional.of(p) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
