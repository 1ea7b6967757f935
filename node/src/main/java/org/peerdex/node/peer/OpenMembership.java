package org.peerdex.node.peer;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.peerdex.actors.dht.membership.Membership;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerInfo;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.identity.SignedPeerRecord;
import org.peerdex.protocol.wire.V1;

/**
 * Membership of the open network, without gossip from strangers (docs/protocol.md, "Membership"). Signed peer
 * records arrive in hellos and in the peer lists of hello replies; a record enters this peer's ring only after
 * this peer reached its address itself and the key there signed a reply to a fresh nonce. Liveness is this peer's
 * own probes; nobody removes another peer: a peer leaves the ring by its own signed leaving record or by failing
 * this peer's probes. The directory is bounded (in all, per address prefix, per arc of the ring) and so is the
 * list of records waiting to be checked. Admitted peers reach the local {@link PeerDirectory} as {@link PeerInfo}s
 * whose shard owner is a {@link PeerLink}, so the DHT actors run unchanged over the peer protocol. The rules live
 * in {@link Membership} (the simulator runs them too); this actor is their transport over HTTP ({@link PeerClient}
 * signs every request and checks every reply against its fresh nonce) and turns admissions into links.
 */
public final class OpenMembership extends AbstractBehavior<OpenMembership.Command> {
    public sealed interface Command {}

    /** From the endpoint: a signed hello (the envelope's key is the record's key); answered with a HelloReply. */
    record Greeted(SignedPeerRecord record, String placement, ActorRef<V1.HelloReply> replyTo) implements Command {}

    /** From the endpoint: the sender's own leaving record. */
    record Left(SignedPeerRecord record) implements Command {}

    /** Tell every admitted peer that this one leaves; answered when sent (or after a short bound). */
    public record LeaveNetwork(ActorRef<Integer> replyTo) implements Command {}

    /** The membership as /api/status and /api/peers show it. */
    public record GetStatus(ActorRef<Status> replyTo) implements Command {}

    /**
     * @param reachable   null while unknown; false when peers answered but none reached this peer's address
     */
    public record Status(String address, int admitted, int candidates, Boolean reachable, String role,
                         String reason, long refusedRecords, Map<String, Long> refusedByReason) {}

    private record Answered(Membership.Call call, Membership.Reply reply, Throwable failure) implements Command {}

    private enum Tick implements Command { INSTANCE }

    /** The endpoint's view of this actor: thread-safe. */
    public static final class Handle {
        private final AtomicReference<ActorRef<Command>> ref = new AtomicReference<>();
        private final AtomicReference<SignedPeerRecord> self = new AtomicReference<>();
        private volatile Set<PeerId> admitted = Set.of();
        private final ActorSystem<?> system;
        private final Duration timeout;

        public Handle(ActorSystem<?> system, Duration timeout) {
            this.system = system;
            this.timeout = timeout;
        }

        CompletionStage<V1.HelloReply> greeted(SignedPeerRecord r, String placement) {
            return AskPattern.ask(ref.get(), reply -> new Greeted(r, placement, reply), timeout, system.scheduler());
        }

        void left(SignedPeerRecord r) {
            ref.get().tell(new Left(r));
        }

        public boolean isAdmitted(PeerId id) {
            return admitted.contains(id);
        }

        public SignedPeerRecord self() {
            return self.get();
        }

        public CompletionStage<Status> status() {
            return AskPattern.ask(ref.get(), GetStatus::new, timeout, system.scheduler());
        }

        public ActorRef<Command> ref() {
            return ref.get();
        }
    }

    private final ActorContext<Command> ctx;
    private final PeerProtocolSettings settings;
    private final PeerClient client;
    private final ActorRef<PeerDirectory.Command> directory;
    private final ActorRef<PeerDirectory.Command> remoteDirectory;
    private final Handle handle;
    private final PeerProtocolStats stats;
    /** the transport-independent membership: records, challenges, admission, probes, leaving records */
    private final Membership membership;
    /** the link (a shard owner speaking the peer protocol) of every admitted peer */
    private final Map<PeerId, ActorRef<ShardOwner.Command>> links = new HashMap<>();
    /** whether this peer's own view places ranges on it (false once nobody could reach it) */
    private boolean holding = true;
    private int linkSeq;

    public static Behavior<Command> create(PeerProtocolSettings settings, PeerClient client, String network,
                                           String address, ActorRef<PeerDirectory.Command> directory,
                                           Handle handle, PeerProtocolStats stats) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            timers.startTimerWithFixedDelay(Tick.INSTANCE, Duration.ZERO, settings.probeInterval());
            return new OpenMembership(ctx, settings, client, network, address, directory, handle, stats);
        }));
    }

    private OpenMembership(ActorContext<Command> ctx, PeerProtocolSettings settings, PeerClient client,
                           String network, String address, ActorRef<PeerDirectory.Command> directory, Handle handle,
                           PeerProtocolStats stats) {
        super(ctx);
        this.ctx = ctx;
        this.settings = settings;
        this.client = client;
        this.directory = directory;
        this.handle = handle;
        this.stats = stats;
        // remote peers have no directory actor here; the local one never writes to it in the open network
        this.remoteDirectory = ctx.spawn(Behaviors.ignore(), "remote-directories");
        Membership.Settings ms = new Membership.Settings(network, address, settings.acceptIndex(), settings.seeds(),
                settings.minWorkBits(), settings.clockSkew(), settings.probeFailures(), settings.recordValidity(),
                settings.maxPeers(), settings.maxCandidates(), settings.maxPerPrefix(), settings.maxPerArc(),
                settings.arcBits(), settings.helloPeers(), CHECKS_PER_TICK, settings.positionsPerPeer(),
                settings.placement());
        this.membership = new Membership(ms, client.keys(), new HttpTransport(), new Links(), new Addresses(),
                System::currentTimeMillis, new SplittableRandom());
        handle.ref.set(ctx.getSelf());
        handle.self.set(membership.self());
    }

    /** records waiting to be checked that one tick starts checking */
    static final int CHECKS_PER_TICK = 8;

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Greeted.class, m -> {
                    m.replyTo().tell(membership.greeted(m.record(), m.placement()));
                    return this;
                })
                .onMessage(Left.class, m -> {
                    membership.left(m.record());
                    return this;
                })
                .onMessage(Answered.class, m -> {
                    membership.answered(m.call(), m.reply(), m.failure());
                    return this;
                })
                .onMessageEquals(Tick.INSTANCE, this::onTick)
                .onMessage(GetStatus.class, m -> {
                    m.replyTo().tell(status());
                    return this;
                })
                .onMessage(LeaveNetwork.class, this::onLeaveNetwork)
                .build();
    }

    private Behavior<Command> onTick() {
        // behind NAT: others never admit this peer, so it holds no ranges in their rings; nor in its own
        boolean hold = membership.holdsRanges();
        if (hold != holding) {
            holding = hold;
            directory.tell(new PeerDirectory.SetAcceptsIndex(hold));
        }
        membership.tick();
        handle.self.set(membership.self());
        return this;
    }

    /** Hellos over the peer protocol: PeerClient signs each request and checks each reply against its nonce. */
    private final class HttpTransport implements Membership.Transport {
        @Override
        public void hello(Membership.Call call, V1.Hello hello) {
            ctx.pipeToSelf(client.post(call.address(), V1.HELLO, hello, call.expectedKey()),
                    (reply, failure) -> new Answered(call,
                            reply == null ? null : new Membership.Reply(reply.key(), reply.body()), failure));
        }

        @Override
        public void leave(String address, String key, V1.Leave leave) {
            client.post(address, V1.LEAVE, leave, Optional.of(key));
        }
    }

    /** Admitted peers reach the local directory with a {@link PeerLink} as their shard owner. */
    private final class Links implements Membership.Listener {
        @Override
        public void admitted(PeerId id, SignedPeerRecord r) {
            ActorRef<ShardOwner.Command> link = link(id, r);
            links.put(id, link);
            publishAdmitted();
            directory.tell(new PeerDirectory.Learn(List.of(info(r, link))));
        }

        /**
         * The peer gets a new link: the DHT actors take a new shard owner under the same id for a peer that was
         * away and offer it what it may have missed (the Replicator's new-incarnation repair).
         */
        @Override
        public void restarted(PeerId id, SignedPeerRecord r) {
            ActorRef<ShardOwner.Command> old = links.remove(id);
            if (old != null) ctx.stop(old);
            ActorRef<ShardOwner.Command> link = link(id, r);
            links.put(id, link);
            directory.tell(new PeerDirectory.Learn(List.of(info(r, link))));
        }

        @Override
        public void dropped(PeerId id, SignedPeerRecord r, String why) {
            ActorRef<ShardOwner.Command> old = links.remove(id);
            if (old != null) ctx.stop(old);
            publishAdmitted();
            directory.tell(new PeerDirectory.Forget(id));
        }

        private ActorRef<ShardOwner.Command> link(PeerId id, SignedPeerRecord r) {
            return ctx.spawn(PeerLink.create(client, id, r.key(), r.address(), stats),
                    "link-" + id.value() + "-" + (linkSeq++));
        }
    }

    /** Literal IPs only; internal ones only where the settings allow them; prefixes by the settings' bits. */
    private final class Addresses implements Membership.Addresses {
        @Override
        public Optional<String> problem(String a) {
            String host = a.substring(0, a.lastIndexOf(':'));
            Optional<InetAddress> ip = AddressPrefix.literal(host);
            if (ip.isEmpty()) return Optional.of("address not an IP literal");
            if (!settings.allowPrivateAddresses() && internal(ip.get())) return Optional.of("internal address");
            return Optional.empty();
        }

        @Override
        public String prefix(String a) {
            return settings.prefixes().ofLiteral(a.substring(0, a.lastIndexOf(':'))).orElse("?");
        }
    }

    static boolean internal(InetAddress a) {
        if (a.isLoopbackAddress() || a.isAnyLocalAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress()
                || a.isMulticastAddress()) return true;
        byte[] b = a.getAddress();
        if (a instanceof Inet6Address) return (b[0] & 0xfe) == 0xfc; // unique local fc00::/7
        return (b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64 || (b[0] & 0xff) == 0; // CGNAT 100.64/10, 0/8
    }

    private PeerInfo info(SignedPeerRecord r, ActorRef<ShardOwner.Command> link) {
        return new PeerInfo(r.peerId().orElseThrow(), "peer://" + r.address(), r.acceptsIndex(), "", link,
                remoteDirectory);
    }

    private void publishAdmitted() {
        handle.admitted = Set.copyOf(links.keySet());
    }

    private Status status() {
        Membership.Status s = membership.status();
        return new Status(s.address(), s.admitted(), s.candidates(), s.reachable(), s.role(), s.reason(),
                s.refusedRecords(), s.refusedByReason());
    }

    private Behavior<Command> onLeaveNetwork(LeaveNetwork m) {
        m.replyTo().tell(membership.leave());
        return this;
    }
}
