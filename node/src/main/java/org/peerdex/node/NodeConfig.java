package org.peerdex.node;

import com.typesafe.config.Config;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.protocol.ring.Placement;

/** The typed view of the {@code peerdex} config section (see reference.conf for every key). */
public record NodeConfig(Path dataDir, String network, Mode mode, String httpHost, int httpPort, String clusterHost,
                         int clusterPort, List<String> seeds, int partitionExponent, int redundancy, long cacheBytes,
                         long writeBufferBytes, boolean syncWrites, String adminPasswordHash, Config raw) {

    /** How the peer takes part in a network. */
    public enum Mode {
        P2P, INTRANET, PORTAL;

        public static Mode parse(String s) {
            try {
                return Mode.valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("mode must be p2p, intranet or portal, not '" + s + "'");
            }
        }

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static NodeConfig from(Config root) {
        Config c = root.getConfig("peerdex");
        String network = c.getString("network");
        if (!network.matches("[A-Za-z0-9][A-Za-z0-9_-]{0,63}")) {
            throw new IllegalArgumentException("network name must be letters, digits, - or _ (at most 64): " + network);
        }
        return new NodeConfig(Path.of(c.getString("data-dir")), network, Mode.parse(c.getString("mode")),
                c.getString("http.host"), port(c, "http.port"), c.getString("cluster.host"), port(c, "cluster.port"),
                List.copyOf(c.getStringList("cluster.seeds")), c.getInt("index.partition-exponent"),
                c.getInt("index.redundancy"), c.getBytes("index.cache-bytes"),
                c.getBytes("index.write-buffer-bytes"), c.getBoolean("index.sync-writes"),
                c.getString("admin.password-hash"), root);
    }

    /** Where this network places data: partitions, R and positions per peer (one network agrees on all three). */
    public Placement placement() {
        int v = raw.getInt("peerdex.index.positions-per-peer");
        if (v < 1 || v > 256) {
            throw new IllegalArgumentException("peerdex.index.positions-per-peer must be 1..256, not " + v);
        }
        return new Placement(new Partitions(partitionExponent), redundancy, v);
    }

    private static int port(Config c, String key) {
        int p = c.getInt(key);
        if (p < 0 || p > 65535) throw new IllegalArgumentException(key + " must be a port 0..65535, not " + p);
        return p;
    }

    /** The ActorSystem name: peers of different networks cannot join each other's cluster. */
    public String systemName() {
        return "peerdex-" + network;
    }
}
