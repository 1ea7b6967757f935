package org.peerdex.node.peer;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.protocol.ring.Placement;

/** The {@code peerdex.peer} config section (see node's reference.conf for every key and its default). */
public record PeerProtocolSettings(String host, int port, String advertise, List<String> seeds, int workBits,
                                   int minWorkBits, long maxBodyBytes, Duration readTimeout, Duration answerTimeout,
                                   Duration requestTimeout, Duration clockSkew, int replayCapacity, double requestRate,
                                   int requestBurst, double prefixRate, int prefixBurst, int blockAfterStrikes,
                                   Duration blockFor, Duration probeInterval, int probeFailures, Duration recordValidity,
                                   int maxPeers, int maxCandidates, int maxPerPrefix, int maxPerArc, int arcBits,
                                   AddressPrefix prefixes, boolean allowPrivateAddresses, int helloPeers,
                                   boolean acceptIndex, double passiveStoreRate, int positionsPerPeer,
                                   String placement) {

    /** on, off, or auto: private peer addresses only for a peer that is itself on a private or loopback address. */
    private static boolean allowPrivate(Config c) {
        String v = c.getString("allow-private-addresses").trim().toLowerCase(Locale.ROOT);
        if (v.equals("auto")) {
            String own = c.getString("advertise").isEmpty() ? c.getString("host")
                    : c.getString("advertise").substring(0, c.getString("advertise").lastIndexOf(':'));
            return AddressPrefix.literal(own).map(OpenMembership::internal).orElse(own.equals("localhost"));
        }
        return c.getBoolean("allow-private-addresses");
    }

    public static PeerProtocolSettings from(Config root) {
        Config c = root.getConfig("peerdex.peer");
        return new PeerProtocolSettings(c.getString("host"), c.getInt("port"), c.getString("advertise"),
                List.copyOf(c.getStringList("seeds")), c.getInt("identity-work-bits"), c.getInt("min-work-bits"),
                c.getBytes("max-body-bytes"), c.getDuration("read-timeout"), c.getDuration("answer-timeout"),
                c.getDuration("request-timeout"), c.getDuration("clock-skew"), c.getInt("replay-capacity"),
                c.getDouble("request-rate"), c.getInt("request-burst"), c.getDouble("prefix-rate"),
                c.getInt("prefix-burst"), c.getInt("block-after-strikes"), c.getDuration("block-for"),
                c.getDuration("probe-interval"), c.getInt("probe-failures"), c.getDuration("record-validity"),
                c.getInt("max-peers"), c.getInt("max-candidates"), c.getInt("max-per-prefix"),
                c.getInt("max-per-arc"), c.getInt("arc-bits"),
                new AddressPrefix(c.getInt("prefix-bits-v4"), c.getInt("prefix-bits-v6")),
                allowPrivate(c), c.getInt("hello-peers"),
                root.getBoolean("peerdex.dht.accept-remote-index"), c.getDouble("passive-store-rate"),
                root.getInt("peerdex.index.positions-per-peer"),
                new Placement(new Partitions(root.getInt("peerdex.index.partition-exponent")),
                        root.getInt("peerdex.index.redundancy"), root.getInt("peerdex.index.positions-per-peer")).tag());
    }
}
