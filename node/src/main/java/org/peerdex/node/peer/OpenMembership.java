package org.peerdex.node.peer;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerInfo;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.identity.SignedPeerRecord;
import org.peerdex.protocol.ring.Admission;
import org.peerdex.protocol.wire.V1;

/**
 * Membership of the open network, without gossip from strangers (docs/protocol.md, "Membership"). Signed peer
 * records arrive in hellos and in the peer lists of hello replies; a record enters this peer's ring only after
 * this peer reached its address itself and the key there signed a reply to a fresh nonce. Liveness is this peer's
 * own probes; nobody removes another peer: a peer leaves the ring by its own signed leaving record or by failing
 * this peer's probes. The directory is bounded (in all, per address prefix, per arc of the ring) and so is the
 * list of records waiting to be checked. Admitted peers reach the local {@link PeerDirectory} as {@link PeerInfo}s
 * whose shard owner is a {@link PeerLink}, so the DHT actors run unchanged over the peer protocol.
 */
public final class OpenMembership extends AbstractBehavior<OpenMembership.Command> {
    public sealed interface Command {}

    /** From the endpoint: a signed hello (the envelope's key is the record's key); answered with a HelloReply. */
    record Greeted(SignedPeerRecord record, ActorRef<V1.HelloReply> replyTo) implements Command {}

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

    private record Answered(String address, SignedPeerRecord probed, boolean seed,
                            PeerClient.Signed<V1.HelloReply> reply, Throwable failure) implements Command {}

    private enum Tick implements Command { INSTANCE }

    /** answers without any admission before a peer takes itself for unreachable (behind NAT) */
    static final int PASSIVE_AFTER_ANSWERS = 10;

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

        CompletionStage<V1.HelloReply> greeted(SignedPeerRecord r) {
            return AskPattern.ask(ref.get(), reply -> new Greeted(r, reply), timeout, system.scheduler());
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

    private static final class Member {
        SignedPeerRecord record;
        final ActorRef<ShardOwner.Command> link;
        final String prefix;
        int failures;
        boolean probing;

        Member(SignedPeerRecord record, ActorRef<ShardOwner.Command> link, String prefix) {
            this.record = record;
            this.link = link;
            this.prefix = prefix;
        }
    }

    private final ActorContext<Command> ctx;
    private final PeerProtocolSettings settings;
    private final PeerClient client;
    private final PeerKeys keys;
    private final String network;
    private final String address;
    private final ActorRef<PeerDirectory.Command> directory;
    private final ActorRef<PeerDirectory.Command> remoteDirectory;
    private final Handle handle;
    private final PeerProtocolStats stats;
    private final Map<PeerId, Member> members = new HashMap<>();
    /** the diversity bounds over {@link #members} (in all, per address prefix, per arc of the ring) */
    private final Admission admission;
    private final LinkedHashMap<PeerId, SignedPeerRecord> candidates = new LinkedHashMap<>();
    private final Set<PeerId> checking = new HashSet<>();
    private final Set<String> seedsInFlight = new HashSet<>();
    private final Map<String, Long> refusedRecords = new ConcurrentHashMap<>();
    private SignedPeerRecord self;
    private final long startedAt = System.currentTimeMillis();
    private int answersSeen;
    private boolean reachedBySomeone;
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
        this.keys = client.keys();
        this.network = network;
        this.address = address;
        this.directory = directory;
        this.handle = handle;
        this.stats = stats;
        this.admission = new Admission(settings.maxPeers(), settings.maxPerPrefix(), settings.maxPerArc(),
                settings.arcBits());
        // remote peers have no directory actor here; the local one never writes to it in the open network
        this.remoteDirectory = ctx.spawn(Behaviors.ignore(), "remote-directories");
        handle.ref.set(ctx.getSelf());
        resign();
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Greeted.class, this::onGreeted)
                .onMessage(Left.class, this::onLeft)
                .onMessage(Answered.class, this::onAnswered)
                .onMessageEquals(Tick.INSTANCE, this::onTick)
                .onMessage(GetStatus.class, m -> {
                    m.replyTo().tell(status());
                    return this;
                })
                .onMessage(LeaveNetwork.class, this::onLeaveNetwork)
                .build();
    }

    private void resign() {
        self = SignedPeerRecord.sign(keys, network, address, settings.acceptIndex(), System.currentTimeMillis(),
                settings.recordValidity(), startedAt, false);
        handle.self.set(self);
    }

    private Behavior<Command> onGreeted(Greeted m) {
        SignedPeerRecord r = m.record();
        Optional<PeerId> id = r.peerId();
        boolean known = id.isPresent() && members.containsKey(id.get());
        Optional<String> problem = believable(r);
        if (problem.isEmpty() && id.isPresent() && !id.get().equals(keys.id())) {
            Member mem = members.get(id.get());
            if (mem != null) {
                // the hello is signed by this key (the endpoint checked): its record may replace the one held
                if (mem.record.address().equals(r.address()) && r.issuedAt() > mem.record.issuedAt()) renew(id.get(), mem, r);
                else if (!mem.record.address().equals(r.address())) offer(r);
            } else {
                offer(r);
            }
        }
        m.replyTo().tell(new V1.HelloReply(self, sample(settings.helloPeers()), known));
        return this;
    }

    private Behavior<Command> onLeft(Left m) {
        SignedPeerRecord r = m.record();
        Optional<PeerId> id = r.peerId();
        if (id.isEmpty() || !r.leaving()) return this;
        // a leaving record is believed like any record: signed by the key, of this network, not expired
        if (r.problem(network, System.currentTimeMillis(), 0, settings.clockSkew()).isPresent()) return this;
        Member mem = members.get(id.get());
        if (mem != null && r.issuedAt() >= mem.record.issuedAt()) {
            ctx.getLog().info("peer {} at {} left the network", id.get(), mem.record.address());
            drop(id.get());
        }
        candidates.remove(id.get());
        return this;
    }

    private Behavior<Command> onTick() {
        if (self.expiresAt() - System.currentTimeMillis() < settings.recordValidity().toMillis() / 2) resign();
        // behind NAT: others never admit this peer, so it holds no ranges in their rings; nor in its own
        boolean hold = settings.acceptIndex() && !"passive".equals(status().role());
        if (hold != holding) {
            holding = hold;
            directory.tell(new PeerDirectory.SetAcceptsIndex(hold));
        }
        if (members.isEmpty()) {
            for (String seed : settings.seeds()) {
                if (seed.equals(address) || !seedsInFlight.add(seed)) continue;
                hello(seed, null, true);
            }
        }
        for (Map.Entry<PeerId, Member> e : members.entrySet()) {
            Member mem = e.getValue();
            if (mem.probing) continue;
            mem.probing = true;
            hello(mem.record.address(), mem.record, false);
        }
        int started = 0;
        for (SignedPeerRecord r : new ArrayList<>(candidates.values())) {
            if (started >= 8) break;
            PeerId id = r.peerId().orElseThrow();
            if (checking.contains(id)) continue;
            if (believable(r).isPresent()) {
                candidates.remove(id);
                continue;
            }
            checking.add(id);
            started++;
            hello(r.address(), r, false);
        }
        return this;
    }

    /** Says hello to {@code to}; when {@code probed} is given, only a reply signed by its key counts. */
    private void hello(String to, SignedPeerRecord probed, boolean seed) {
        Optional<String> expected = probed == null ? Optional.empty() : Optional.of(probed.key());
        ctx.pipeToSelf(client.post(to, V1.HELLO, new V1.Hello(self), expected),
                (reply, failure) -> new Answered(to, probed, seed, reply, failure));
    }

    private Behavior<Command> onAnswered(Answered m) {
        if (m.seed()) seedsInFlight.remove(m.address());
        PeerId probedId = m.probed() == null ? null : m.probed().peerId().orElse(null);
        if (probedId != null) checking.remove(probedId);
        Member mem = probedId == null ? null : members.get(probedId);
        if (mem != null && mem.record.address().equals(m.address())) mem.probing = false;
        if (m.failure() != null || m.reply() == null || m.reply().body().record() == null) {
            if (mem != null && mem.record.address().equals(m.address()) && ++mem.failures >= settings.probeFailures()) {
                ctx.getLog().info("peer {} at {} failed {} probes; out of the ring", probedId, m.address(), mem.failures);
                drop(probedId);
            }
            if (probedId != null && mem == null) candidates.remove(probedId);
            return this;
        }
        V1.HelloReply reply = m.reply().body();
        SignedPeerRecord theirs = reply.record();
        answersSeen++;
        if (reply.admitted()) reachedBySomeone = true;
        // the reply was signed over our fresh nonce by the key of the record it carries: the record is proven at
        // the address we reached, if it names that address
        boolean proven = m.reply().key().equals(theirs.key()) && theirs.address().equals(m.address())
                && believable(theirs).isEmpty();
        if (mem != null) {
            mem.failures = 0;
            if (proven && theirs.issuedAt() > mem.record.issuedAt()) renew(probedId, mem, theirs);
        } else if (proven) {
            admit(theirs);
        } else if (m.seed() && believable(theirs).isEmpty()) {
            offer(theirs); // a seed named by another address: checked again at the address it signs for
        }
        if (probedId != null && !proven && mem == null) candidates.remove(probedId);
        for (SignedPeerRecord r : reply.peers()) {
            if (r == null) continue;
            Optional<PeerId> id = r.peerId();
            if (id.isEmpty() || id.get().equals(keys.id()) || members.containsKey(id.get())) continue;
            if (believable(r).isEmpty()) offer(r);
        }
        return this;
    }

    /** A record is offered for checking: kept in a bounded list, the oldest offers dropped first. */
    private void offer(SignedPeerRecord r) {
        PeerId id = r.peerId().orElseThrow();
        candidates.remove(id);
        candidates.put(id, r);
        while (candidates.size() > settings.maxCandidates()) {
            PeerId oldest = candidates.keySet().iterator().next();
            candidates.remove(oldest);
        }
    }

    /** Why a record cannot enter the ring (signature, network, expiry, work, address), or empty. */
    private Optional<String> believable(SignedPeerRecord r) {
        Optional<String> p = r.problem(network, System.currentTimeMillis(), settings.minWorkBits(), settings.clockSkew());
        if (p.isEmpty() && r.leaving()) p = Optional.of("leaving");
        if (p.isEmpty()) p = addressProblem(r.address());
        p.ifPresent(this::countRefused);
        return p;
    }

    private Optional<String> addressProblem(String a) {
        String host = a.substring(0, a.lastIndexOf(':'));
        Optional<InetAddress> ip = AddressPrefix.literal(host);
        if (ip.isEmpty()) return Optional.of("address not an IP literal");
        if (!settings.allowPrivateAddresses() && internal(ip.get())) return Optional.of("internal address");
        return Optional.empty();
    }

    static boolean internal(InetAddress a) {
        if (a.isLoopbackAddress() || a.isAnyLocalAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress()
                || a.isMulticastAddress()) return true;
        byte[] b = a.getAddress();
        if (a instanceof Inet6Address) return (b[0] & 0xfe) == 0xfc; // unique local fc00::/7
        return (b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64 || (b[0] & 0xff) == 0; // CGNAT 100.64/10, 0/8
    }

    private void countRefused(String reason) {
        String key = reason.startsWith("record of another network") ? "other-network"
                : reason.startsWith("bad address") ? "bad-address" : reason;
        refusedRecords.merge(key, 1L, Long::sum);
    }

    private void admit(SignedPeerRecord r) {
        PeerId id = r.peerId().orElseThrow();
        if (id.equals(keys.id()) || members.containsKey(id)) return;
        candidates.remove(id);
        String host = r.address().substring(0, r.address().lastIndexOf(':'));
        String prefix = settings.prefixes().ofLiteral(host).orElse("?");
        Optional<String> refused = admission.admit(id, prefix);
        if (refused.isPresent()) {
            countRefused(refused.get());
            return;
        }
        ActorRef<ShardOwner.Command> link = ctx.spawn(PeerLink.create(client, id, r.key(), r.address(), stats),
                "link-" + id.value() + "-" + (linkSeq++));
        members.put(id, new Member(r, link, prefix));
        publishAdmitted();
        ctx.getLog().info("peer {} at {} admitted to the ring ({} peers)", id, r.address(), members.size());
        directory.tell(new PeerDirectory.Learn(List.of(info(r, link))));
    }

    /**
     * A newer record of an admitted peer. When it comes from a new run of the peer (another {@code startedAt}),
     * the peer gets a new link: the DHT actors take a new shard owner under the same id for a peer that was away
     * and offer it what it may have missed (the Replicator's new-incarnation repair), as a restarted cluster member.
     */
    private void renew(PeerId id, Member mem, SignedPeerRecord r) {
        boolean restarted = r.startedAt() != mem.record.startedAt();
        if (!restarted) {
            mem.record = r;
            return;
        }
        ctx.stop(mem.link);
        ActorRef<ShardOwner.Command> link = ctx.spawn(PeerLink.create(client, id, r.key(), r.address(), stats),
                "link-" + id.value() + "-" + (linkSeq++));
        Member renewed = new Member(r, link, mem.prefix);
        members.put(id, renewed);
        ctx.getLog().info("peer {} at {} restarted; offering it what it may have missed", id, r.address());
        directory.tell(new PeerDirectory.Learn(List.of(info(r, link))));
    }

    private PeerInfo info(SignedPeerRecord r, ActorRef<ShardOwner.Command> link) {
        return new PeerInfo(r.peerId().orElseThrow(), "peer://" + r.address(), r.acceptsIndex(), "", link,
                remoteDirectory);
    }

    private void drop(PeerId id) {
        Member mem = members.remove(id);
        if (mem == null) return;
        admission.remove(id, mem.prefix);
        ctx.stop(mem.link);
        publishAdmitted();
        directory.tell(new PeerDirectory.Forget(id));
    }

    private void publishAdmitted() {
        handle.admitted = Set.copyOf(members.keySet());
    }

    private List<SignedPeerRecord> sample(int n) {
        List<SignedPeerRecord> all = new ArrayList<>();
        for (Member m : members.values()) all.add(m.record);
        Collections.shuffle(all);
        return all.size() <= n ? all : List.copyOf(all.subList(0, n));
    }

    private Status status() {
        // passive only after many answers and not one admission: a peer that was reached once stays active (a
        // flapping role would make it hand off and take back its ranges over and over)
        Boolean reachable = reachedBySomeone ? Boolean.TRUE : answersSeen >= PASSIVE_AFTER_ANSWERS ? Boolean.FALSE : null;
        String role = !settings.acceptIndex() ? "passive" : Boolean.FALSE.equals(reachable) ? "passive" : "active";
        String reason = !settings.acceptIndex() ? "configured not to hold ranges"
                : Boolean.FALSE.equals(reachable)
                ? "no peer could reach this peer at " + address + " (behind NAT or a firewall?): others hold no ranges here"
                : reachable == null ? "waiting for peers to reach " + address : "";
        return new Status(address, members.size(), candidates.size(), reachable, role, reason,
                refusedRecords.values().stream().mapToLong(Long::longValue).sum(), Map.copyOf(refusedRecords));
    }

    private Behavior<Command> onLeaveNetwork(LeaveNetwork m) {
        SignedPeerRecord leaving = SignedPeerRecord.sign(keys, network, address, settings.acceptIndex(),
                System.currentTimeMillis(), settings.recordValidity(), true);
        int n = 0;
        for (Member mem : members.values()) {
            client.post(mem.record.address(), V1.LEAVE, new V1.Leave(leaving), Optional.of(mem.record.key()));
            n++;
        }
        m.replyTo().tell(n);
        return this;
    }
}
