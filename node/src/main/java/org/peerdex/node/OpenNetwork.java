package org.peerdex.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.node.peer.OpenMembership;
import org.peerdex.node.peer.PeerClient;
import org.peerdex.node.peer.PeerProtocolSettings;
import org.peerdex.node.peer.PeerProtocolStats;
import org.peerdex.node.peer.PeerServer;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.identity.SignedPeerRecord;
import org.peerdex.protocol.wire.WireCodec;

/**
 * A peer's part in the open network: the same DHT actors as inside a trust domain, reached over the peer
 * protocol (signed HTTP on its own port) instead of Pekko Cluster; membership by {@link OpenMembership}.
 */
public final class OpenNetwork {
    private final DhtPeer dht;
    private final OpenMembership.Handle membership;
    private final PeerProtocolStats stats;
    private final ServerBinding binding;
    private final String address;
    private final PeerKeys keys;

    private OpenNetwork(DhtPeer dht, OpenMembership.Handle membership, PeerProtocolStats stats, ServerBinding binding,
                        String address, PeerKeys keys) {
        this.dht = dht;
        this.membership = membership;
        this.stats = stats;
        this.binding = binding;
        this.address = address;
        this.keys = keys;
    }

    /** Does this config put the peer in the open network ({@code peerdex.transport = peer})? */
    public static boolean selected(Config config) {
        String t = config.getString("peerdex.transport");
        if (t.equals("peer")) return true;
        if (t.equals("cluster")) return false;
        if (!t.equals("auto")) throw new IllegalArgumentException("peerdex.transport must be peer, cluster or auto, not " + t);
        return !clusterConfigured(config);
    }

    /**
     * A cluster is configured when a peerdex.cluster key differs from its default, or in intranet mode (a private
     * network is a trust domain: one operator's machines, a cluster).
     */
    private static boolean clusterConfigured(Config config) {
        Config reference = ConfigFactory.defaultReference().getConfig("peerdex.cluster");
        Config actual = config.getConfig("peerdex.cluster");
        for (String key : List.of("host", "port", "seeds", "tls-dir")) {
            if (!actual.getValue(key).unwrapped().equals(reference.getValue(key).unwrapped())) return true;
        }
        return config.hasPath("peerdex.mode") && config.getString("peerdex.mode").trim().equalsIgnoreCase("intranet");
    }

    /** A local ActorSystem: no Pekko Cluster and no Artery port at all. */
    static Config pekkoConfig() {
        return ConfigFactory.parseString(String.join("\n",
                "pekko.actor.provider = local",
                "peerdex.dht.use-receptionist = off",
                "peerdex.dht.open-network = on",
                "pekko.loggers = [\"org.apache.pekko.event.slf4j.Slf4jLogger\"]",
                "pekko.logging-filter = \"org.apache.pekko.event.slf4j.Slf4jLoggingFilter\"",
                "pekko.loglevel = INFO",
                "pekko.http.server.remote-address-attribute = on",
                "pekko.coordinated-shutdown.exit-jvm = off"));
    }

    static OpenNetwork start(NodeContext context, NodeServices services, Config config, PeerProtocolSettings ps,
                             PeerKeys keys, int httpPort) {
        NodeConfig nc = context.config();
        var system = context.system();
        PeerProtocolStats stats = new PeerProtocolStats();
        WireCodec wire = new WireCodec();
        OpenMembership.Handle handle = new OpenMembership.Handle(system, ps.answerTimeout());
        PeerClient client = new PeerClient(system, keys, nc.network(), wire, ps.requestTimeout(), ps.maxBodyBytes(), stats);
        // bind first (port 0 picks one), then spawn: the server reaches the actors through a holder
        ForwardingOwner forward = new ForwardingOwner();
        PeerServer server = new PeerServer(system, keys, nc.network(), wire, stats, forward.ref(system), handle, ps);
        ServerBinding binding;
        try {
            binding = Http.get(system).newServerAt(ps.host(), ps.port()).bind(server.route())
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(PeerNode.rootMessage(e), e);
        }
        String address = ps.advertise().isEmpty() ? ps.host() + ":" + binding.localAddress().getPort() : ps.advertise();
        if (!SignedPeerRecord.validAddress(address)) {
            throw new IllegalStateException("the advertised peer address must be HOST:PORT, not " + address);
        }
        DhtPeer peer = DhtPeer.spawn(DhtPeer.via(system), context.peerId(), context.storage(), context.placement(),
                DhtSettings.from(system.settings().config()), "peer://" + address, nc.httpHost() + ":" + httpPort);
        forward.target = peer.shardOwner();
        ActorRef<OpenMembership.Command> m = DhtPeer.via(system).spawn(OpenMembership.create(ps, client, nc.network(),
                address, peer.directory(), handle, stats), "open-membership");
        PeerNode.plugIn(context, services, peer);
        OpenNetwork open = new OpenNetwork(peer, handle, stats, binding, address, keys);
        services.network().registerOpen(open);
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseServiceUnbind(), "peer-protocol-leave",
                () -> AskPattern.<OpenMembership.Command, Integer>ask(m, OpenMembership.LeaveNetwork::new,
                                Duration.ofSeconds(3), system.scheduler())
                        .handle((n, e) -> Done.getInstance())
                        .thenCompose(d -> binding.unbind()).thenApply(d -> Done.getInstance()));
        return open;
    }

    /** host:port other peers reach this one at. */
    public String address() {
        return address;
    }

    public PeerKeys keys() {
        return keys;
    }

    public PeerProtocolStats stats() {
        return stats;
    }

    public OpenMembership.Handle membership() {
        return membership;
    }

    public DhtPeer dht() {
        return dht;
    }

    public int port() {
        return binding.localAddress().getPort();
    }

    /**
     * The endpoint is bound before the DHT actors exist (their advertised address needs the bound port); until
     * then requests for them wait here, and are forwarded once they run.
     */
    private static final class ForwardingOwner {
        volatile ActorRef<ShardOwner.Command> target;

        ActorRef<ShardOwner.Command> ref(ActorSystem<SpawnProtocol.Command> system) {
            return DhtPeer.via(system).spawn(Behaviors.receiveMessage(c -> {
                var t = target;
                if (t != null) t.tell(c);
                return Behaviors.same();
            }), "peer-protocol-forward");
        }
    }
}
