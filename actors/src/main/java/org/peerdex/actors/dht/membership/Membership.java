package org.peerdex.actors.dht.membership;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.identity.SignedPeerRecord;
import org.peerdex.protocol.ring.Admission;
import org.peerdex.protocol.wire.V1;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Membership of the open network without gossip from strangers (docs/protocol.md, "Membership"), apart from how
 * messages travel. Signed peer records arrive in hellos and in the peer lists of hello replies; a record enters the
 * ring only after this peer reached its address itself and the key there signed a reply to a fresh nonce (the
 * {@link Transport}'s part: the node's peer protocol signs every reply over the request's nonce, the simulator's
 * virtual network uses {@link Challenge}). Liveness is this peer's own probes; nobody removes another peer: a peer
 * leaves by its own signed leaving record or by failing this peer's probes. The directory is bounded (in all, per
 * address prefix, per arc of the ring: {@link Admission}) and so is the list of records waiting to be checked, and
 * the checks started per tick.
 * <p>
 * Not thread-safe: one owner (an actor) calls every method, and hands every answer of the transport back through
 * {@link #answered} on its own thread. The node's {@code OpenMembership} and the simulator's virtual peers both
 * run this class.
 */
public final class Membership {
    private static final Logger log = LoggerFactory.getLogger(Membership.class);

    /** answers without any admission before a peer takes itself for unreachable (behind NAT) */
    public static final int PASSIVE_AFTER_ANSWERS = 10;

    /** How hellos and leaving records travel. */
    public interface Transport {
        /**
         * Sends {@code hello} to {@code call.address()}. The owner later hands the answer to {@link #answered}: a
         * {@link Reply} whose {@code signer} is the key that signed it over a fresh nonce of this very request
         * (checked by the transport), or a failure (no answer, a bad signature, or not {@code call.expectedKey()}).
         */
        void hello(Call call, V1.Hello hello);

        /** Sends this peer's leaving record to a peer (no answer needed). */
        void leave(String address, String key, V1.Leave leave);
    }

    /** What happens to the ring: the owner turns admissions into links and tells its directory. */
    public interface Listener {
        void admitted(PeerId id, SignedPeerRecord record);

        /** A newer record of a member from a new run of the peer (another {@code startedAt}). */
        void restarted(PeerId id, SignedPeerRecord record);

        void dropped(PeerId id, SignedPeerRecord record, String why);
    }

    /** Where addresses are and which may enter: literal IPs only, internal ones only where allowed. */
    public interface Addresses {
        /** Why no peer at this host:port may enter, or empty. */
        Optional<String> problem(String address);

        /** The address prefix (an IPv4 /24 or IPv6 /48 by default) the diversity bounds count. */
        String prefix(String address);
    }

    /**
     * @param checksPerTick records waiting to be checked that one tick starts checking (the hello rate's bound)
     */
    public record Settings(String network, String address, boolean acceptIndex, List<String> seeds, int minWorkBits,
                           Duration clockSkew, int probeFailures, Duration recordValidity, int maxPeers,
                           int maxCandidates, int maxPerPrefix, int maxPerArc, int arcBits, int helloPeers,
                           int checksPerTick, int positionsPerPeer, String placement) {
        public Settings {
            placement = placement == null ? "" : placement;
            seeds = List.copyOf(seeds);
        }
    }

    /** One hello in flight: to {@code address}; {@code probed} the record checked or probed; {@code seed} a seed. */
    public record Call(String address, SignedPeerRecord probed, boolean seed) {
        /** When a record is checked or probed, only a reply signed by its key counts. */
        public Optional<String> expectedKey() {
            return probed == null ? Optional.empty() : Optional.of(probed.key());
        }
    }

    /** An answer to a hello: signed over the hello's fresh nonce by {@code signer}. */
    public record Reply(String signer, V1.HelloReply body) {}

    /** The membership as the status pages show it; {@code reachable} null while unknown. */
    public record Status(String address, int admitted, int candidates, Boolean reachable, String role,
                         String reason, long refusedRecords, Map<String, Long> refusedByReason) {}

    /**
     * A member's restarts (records of a new {@code startedAt}) reach the listener at most once in this time: a
     * restart replaces the peer's link and re-plans its neighbours' rebalance (which waits for the ring to be
     * quiet), so a peer signing a new run into every hello could otherwise cut its own lookups and put its
     * neighbours' rebalance off for good. A restart sooner than this waits for the gap's end.
     */
    public static final long RESTART_GAP_MS = 60_000;

    private static final class Member {
        SignedPeerRecord record;
        final String prefix;
        int failures;
        boolean probing;
        /** when the listener last heard of a restart of it (never: far enough back) */
        long restartTold = Long.MIN_VALUE / 2;
        /** a restart came sooner than {@link #RESTART_GAP_MS} after the last one: told at the gap's end */
        boolean restartHeld;

        Member(SignedPeerRecord record, String prefix) {
            this.record = record;
            this.prefix = prefix;
        }
    }

    private final Settings settings;
    private final PeerKeys keys;
    private final Transport transport;
    private final Listener listener;
    private final Addresses addresses;
    private final LongSupplier clock;
    private final RandomGenerator random;
    private final long startedAt;
    private final Map<PeerId, Member> members = new LinkedHashMap<>();
    private final Admission admission;
    private final LinkedHashMap<PeerId, SignedPeerRecord> candidates = new LinkedHashMap<>();
    private final Set<PeerId> checking = new HashSet<>();
    private final Set<String> seedsInFlight = new HashSet<>();
    private final Map<String, Long> refusedRecords = new TreeMap<>();
    /** records whose signature held, the least recently used dropped first */
    private final Map<SignedPeerRecord, Boolean> verified;
    private SignedPeerRecord self;
    private int answersSeen;
    private boolean reachedBySomeone;

    /**
     * @param clock  ms since the epoch (records are issued and expire by it)
     * @param random shuffles the peer lists handed out in replies
     */
    public Membership(Settings settings, PeerKeys keys, Transport transport, Listener listener, Addresses addresses,
                      LongSupplier clock, RandomGenerator random) {
        this.settings = settings;
        this.keys = keys;
        this.transport = transport;
        this.listener = listener;
        this.addresses = addresses;
        this.clock = clock;
        this.random = random;
        this.startedAt = clock.getAsLong();
        this.admission = new Admission(settings.maxPeers(), settings.maxPerPrefix(), settings.maxPerArc(),
                settings.arcBits(), settings.positionsPerPeer());
        int verifiedMax = 2 * (settings.maxPeers() + settings.maxCandidates());
        this.verified = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<SignedPeerRecord, Boolean> eldest) {
                return size() > verifiedMax;
            }
        };
        resign();
    }

    public SignedPeerRecord self() {
        return self;
    }

    public PeerId id() {
        return keys.id();
    }

    public Settings settings() {
        return settings;
    }

    private void resign() {
        self = SignedPeerRecord.sign(keys, settings.network(), settings.address(), settings.acceptIndex(),
                clock.getAsLong(), settings.recordValidity(), startedAt, false);
    }

    /** A signed hello arrived (the transport checked that its sender holds the record's key): the reply to send. */
    public V1.HelloReply greeted(SignedPeerRecord r) {
        return greeted(r, "");
    }

    /**
     * A signed hello whose sender runs the network's placement as {@code placement} ("" unsaid): a peer of other
     * parameters is answered (so it learns ours) but not taken as a candidate.
     */
    public V1.HelloReply greeted(SignedPeerRecord r, String placement) {
        if (otherPlacement(placement)) {
            countRefused("other placement");
            return new V1.HelloReply(self, List.of(), false, settings.placement());
        }
        Optional<PeerId> id = r.peerId();
        boolean known = id.isPresent() && members.containsKey(id.get());
        Optional<String> problem = believable(r);
        if (problem.isEmpty() && id.isPresent() && !id.get().equals(keys.id())) {
            Member mem = members.get(id.get());
            if (mem != null) {
                // the hello is signed by this key: its record may replace the one held
                if (mem.record.address().equals(r.address()) && r.issuedAt() > mem.record.issuedAt()) renew(id.get(), mem, r);
                else if (!mem.record.address().equals(r.address())) offer(r);
            } else {
                offer(r);
            }
        }
        return new V1.HelloReply(self, sample(settings.helloPeers()), known, settings.placement());
    }

    /** A peer's own leaving record arrived. */
    public void left(SignedPeerRecord r) {
        Optional<PeerId> id = r.peerId();
        if (id.isEmpty() || !r.leaving()) return;
        // a leaving record is believed like any record: signed by the key, of this network, not expired
        if (r.problem(settings.network(), clock.getAsLong(), 0, settings.clockSkew()).isPresent()) return;
        Member mem = members.get(id.get());
        if (mem != null && r.issuedAt() >= mem.record.issuedAt()) drop(id.get(), "left the network");
        candidates.remove(id.get());
    }

    /**
     * One round: renews this peer's record when half its validity is gone; says hello to the seeds while the ring
     * is empty, probes every member not probed yet, and starts checking a bounded number of waiting records.
     */
    public void tick() {
        if (self.expiresAt() - clock.getAsLong() < settings.recordValidity().toMillis() / 2) resign();
        if (members.isEmpty()) {
            for (String seed : settings.seeds()) {
                if (seed.equals(settings.address()) || !seedsInFlight.add(seed)) continue;
                hello(new Call(seed, null, true));
            }
        }
        long now = clock.getAsLong();
        for (Map.Entry<PeerId, Member> e : members.entrySet()) {
            Member mem = e.getValue();
            // (the listener does not change the members)
            if (mem.restartHeld && now - mem.restartTold >= RESTART_GAP_MS) tellRestart(e.getKey(), mem);
            if (mem.probing) continue;
            mem.probing = true;
            hello(new Call(mem.record.address(), mem.record, false));
        }
        int started = 0;
        for (SignedPeerRecord r : new ArrayList<>(candidates.values())) {
            if (started >= settings.checksPerTick()) break;
            PeerId id = r.peerId().orElseThrow();
            if (checking.contains(id)) continue;
            if (believable(r).isPresent()) {
                candidates.remove(id);
                continue;
            }
            checking.add(id);
            started++;
            hello(new Call(r.address(), r, false));
        }
    }

    private void hello(Call call) {
        transport.hello(call, new V1.Hello(self, settings.placement()));
    }

    /** The answer to a hello of this peer: a reply, or a failure (then {@code reply} is null). */
    public void answered(Call call, Reply reply, Throwable failure) {
        if (call.seed()) seedsInFlight.remove(call.address());
        PeerId probedId = call.probed() == null ? null : call.probed().peerId().orElse(null);
        if (probedId != null) checking.remove(probedId);
        Member mem = probedId == null ? null : members.get(probedId);
        if (mem != null && mem.record.address().equals(call.address())) mem.probing = false;
        if (failure != null || reply == null || reply.body() == null || reply.body().record() == null) {
            if (mem != null && mem.record.address().equals(call.address()) && ++mem.failures >= settings.probeFailures()) {
                drop(probedId, "failed " + mem.failures + " probes");
            }
            if (probedId != null && mem == null) candidates.remove(probedId);
            return;
        }
        V1.HelloReply body = reply.body();
        SignedPeerRecord theirs = body.record();
        if (otherPlacement(body.placement())) {
            // it answers, but places data by other parameters: never in this ring, and its lists are not taken
            countRefused("other placement");
            if (mem != null) drop(probedId, "runs placement " + body.placement());
            else if (probedId != null) candidates.remove(probedId);
            return;
        }
        answersSeen++;
        if (body.admitted()) reachedBySomeone = true;
        // the reply was signed over our fresh nonce by the key of the record it carries: the record is proven at
        // the address we reached, if it names that address
        boolean proven = reply.signer().equals(theirs.key()) && theirs.address().equals(call.address())
                && believable(theirs).isEmpty();
        if (mem != null) {
            mem.failures = 0;
            if (proven && theirs.issuedAt() > mem.record.issuedAt()) renew(probedId, mem, theirs);
        } else if (proven) {
            admit(theirs);
        } else if (call.seed() && believable(theirs).isEmpty()) {
            offer(theirs); // a seed named by another address: checked again at the address it signs for
        }
        if (probedId != null && !proven && mem == null) candidates.remove(probedId);
        for (SignedPeerRecord r : body.peers()) {
            if (r == null) continue;
            Optional<PeerId> id = r.peerId();
            if (id.isEmpty() || id.get().equals(keys.id()) || members.containsKey(id.get())) continue;
            if (believable(r).isEmpty()) offer(r);
        }
    }

    /** Whether a peer said it runs other placement parameters than this one (unsaid counts as the same). */
    private boolean otherPlacement(String theirs) {
        return theirs != null && !theirs.isEmpty() && !settings.placement().isEmpty() && !theirs.equals(settings.placement());
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
        // the same record (every field equal) comes back in every probe's reply and in other peers' lists: its
        // signature is verified once
        boolean verifiedBefore = verified.containsKey(r);
        Optional<String> p = r.problem(settings.network(), clock.getAsLong(), settings.minWorkBits(),
                settings.clockSkew(), !verifiedBefore);
        if (p.isEmpty() && !verifiedBefore) verified.put(r, Boolean.TRUE);
        if (p.isEmpty() && r.leaving()) p = Optional.of("leaving");
        if (p.isEmpty()) p = addresses.problem(r.address());
        p.ifPresent(this::countRefused);
        return p;
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
        String prefix = addresses.prefix(r.address());
        Optional<String> refused = admission.admit(id, prefix);
        if (refused.isPresent()) {
            countRefused(refused.get());
            return;
        }
        members.put(id, new Member(r, prefix));
        log.info("peer {} at {} admitted to the ring ({} peers)", id, r.address(), members.size());
        listener.admitted(id, r);
    }

    /**
     * A newer record of an admitted peer. When it comes from a new run of the peer (another {@code startedAt}),
     * the listener hears of it: the DHT actors take a new shard owner under the same id for a peer that was away
     * and offer it what it may have missed, as for a restarted cluster member.
     */
    private void renew(PeerId id, Member mem, SignedPeerRecord r) {
        boolean restarted = r.startedAt() != mem.record.startedAt();
        mem.record = r;
        if (!restarted) return;
        mem.failures = 0;
        if (clock.getAsLong() - mem.restartTold < RESTART_GAP_MS) {
            if (!mem.restartHeld) countRefused("restart held");
            mem.restartHeld = true;
            return;
        }
        tellRestart(id, mem);
    }

    private void tellRestart(PeerId id, Member mem) {
        mem.restartTold = clock.getAsLong();
        mem.restartHeld = false;
        log.info("peer {} at {} restarted; offering it what it may have missed", id, mem.record.address());
        listener.restarted(id, mem.record);
    }

    private void drop(PeerId id, String why) {
        Member mem = members.remove(id);
        if (mem == null) return;
        admission.remove(id, mem.prefix);
        log.info("peer {} at {} {}; out of the ring", id, mem.record.address(), why);
        listener.dropped(id, mem.record, why);
    }

    private List<SignedPeerRecord> sample(int n) {
        List<SignedPeerRecord> all = new ArrayList<>();
        for (Member m : members.values()) all.add(m.record);
        for (int i = all.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            SignedPeerRecord t = all.get(i);
            all.set(i, all.get(j));
            all.set(j, t);
        }
        return all.size() <= n ? all : List.copyOf(all.subList(0, n));
    }

    /** The admitted peers. */
    public Set<PeerId> admitted() {
        return Set.copyOf(members.keySet());
    }

    public boolean isAdmitted(PeerId id) {
        return members.containsKey(id);
    }

    /** The record held for an admitted peer. */
    public Optional<SignedPeerRecord> record(PeerId id) {
        Member m = members.get(id);
        return m == null ? Optional.empty() : Optional.of(m.record);
    }

    /** Admitted peers per address prefix. */
    public Map<String, Integer> admittedPerPrefix() {
        Map<String, Integer> m = new TreeMap<>();
        for (Member x : members.values()) m.merge(x.prefix, 1, Integer::sum);
        return m;
    }

    public int candidates() {
        return candidates.size();
    }

    /** Records being checked now (hellos to their addresses in flight). */
    public int checking() {
        return checking.size();
    }

    /** Whether this peer holds ranges in its own view: not once nobody could reach it (behind NAT). */
    public boolean holdsRanges() {
        return settings.acceptIndex() && !"passive".equals(status().role());
    }

    public Status status() {
        // passive only after many answers and not one admission: a peer that was reached once stays active (a
        // flapping role would make it hand off and take back its ranges over and over)
        Boolean reachable = reachedBySomeone ? Boolean.TRUE : answersSeen >= PASSIVE_AFTER_ANSWERS ? Boolean.FALSE : null;
        String address = settings.address();
        String role = !settings.acceptIndex() ? "passive" : Boolean.FALSE.equals(reachable) ? "passive" : "active";
        String reason = !settings.acceptIndex() ? "configured not to hold ranges"
                : Boolean.FALSE.equals(reachable)
                ? "no peer could reach this peer at " + address + " (behind NAT or a firewall?): others hold no ranges here"
                : reachable == null ? "waiting for peers to reach " + address : "";
        return new Status(address, members.size(), candidates.size(), reachable, role, reason,
                refusedRecords.values().stream().mapToLong(Long::longValue).sum(), Map.copyOf(refusedRecords));
    }

    /** Tells every admitted peer that this one leaves, by its signed leaving record; the number told. */
    public int leave() {
        SignedPeerRecord leaving = SignedPeerRecord.sign(keys, settings.network(), settings.address(),
                settings.acceptIndex(), clock.getAsLong(), settings.recordValidity(), true);
        int n = 0;
        for (Member mem : members.values()) {
            transport.leave(mem.record.address(), mem.record.key(), new V1.Leave(leaving));
            n++;
        }
        return n;
    }
}
