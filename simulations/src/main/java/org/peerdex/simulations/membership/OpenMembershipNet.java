package org.peerdex.simulations.membership;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import org.apache.pekko.actor.typed.ActorRef;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.membership.Membership;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerInfo;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.identity.SignedPeerRecord;
import org.peerdex.simulations.hostile.AdmissionRules;
import org.peerdex.simulations.hostile.Population;
import org.peerdex.simulations.net.VirtualNetwork;
import org.peerdex.simulations.peer.PeerHost;
import org.peerdex.simulations.sim.SimRuntime;

/**
 * The open network's membership for every virtual peer ({@code bootstrap = open-membership}): each peer runs the
 * node's {@link Membership} in a {@link VirtualMembership} actor under its host, with its own key pair
 * ({@link Keyring}), an address in its /24 (the {@link Population}'s prefix: a Sybil operator's ids share the
 * operator's few prefixes), the node's defaults for probes, records and bounds, and the scenario's admission bounds.
 * Every peer starts with the same few honest seeds. What a peer's membership admits reaches its directory as the
 * admitted peer's info ({@code PeerDirectory.Learn}), what it drops as a {@code Forget}; nothing else adds peers to
 * a view, so each directory holds what its own membership admitted, in its own order.
 */
public final class OpenMembershipNet {
    /** the node's peerdex.peer defaults (node's reference.conf) */
    public static final Duration PROBE_INTERVAL = Duration.ofSeconds(10);
    public static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);
    static final int PROBE_FAILURES = 3;
    static final Duration RECORD_VALIDITY = Duration.ofMinutes(30);
    static final Duration CLOCK_SKEW = Duration.ofSeconds(60);
    static final int MAX_PEERS = 4096;
    static final int MAX_CANDIDATES = 1024;
    static final int HELLO_PEERS = 32;
    static final int CHECKS_PER_TICK = 8;
    static final int SEEDS = 3;
    static final String NETWORK = "sim";
    static final int PORT = 7000;

    private final Keyring keyring;
    private final Population population;
    private final AdmissionRules rules;
    /** points per peer on the ring: the admission's arc bound counts each */
    private final int positionsPerPeer;
    /** the placement parameters every peer's hellos carry */
    private final String placementTag;
    private final VirtualNetwork net;
    private final SimRuntime rt;
    private final IntFunction<DhtPeer> peers;
    private final boolean acceptIndex;
    private final long seed;
    private final String[] addresses;
    private final Map<String, Integer> byAddress = new HashMap<>();
    private final List<String> seeds = new ArrayList<>();
    private final Membership[] memberships;
    private final List<ActorRef<VirtualMembership.Command>> actors = new ArrayList<>();
    private final Set<Integer> silent = new HashSet<>();

    /**
     * @param peers the running peer at an index (null while it is down)
     */
    public OpenMembershipNet(Keyring keyring, Population population, AdmissionRules rules, VirtualNetwork net,
                             SimRuntime rt, IntFunction<DhtPeer> peers, boolean acceptIndex, long seed,
                             int positionsPerPeer, String placementTag) {
        this.positionsPerPeer = positionsPerPeer;
        this.placementTag = placementTag;
        this.keyring = keyring;
        this.population = population;
        this.rules = rules;
        this.net = net;
        this.rt = rt;
        this.peers = peers;
        this.acceptIndex = acceptIndex;
        this.seed = seed;
        int n = population.size();
        this.addresses = new String[n];
        this.memberships = new Membership[n];
        Map<String, Integer> hostsAt = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String prefix = population.member(i).prefix(); // "a.b.c.0/24"
            String net24 = prefix.substring(0, prefix.lastIndexOf(".0/"));
            int host = hostsAt.merge(prefix, 1, Integer::sum);
            addresses[i] = net24 + "." + host + ":" + PORT;
            byAddress.put(addresses[i], i);
            actors.add(null);
        }
        List<Integer> honest = new ArrayList<>();
        for (int i = 0; i < n; i++) if (!population.hostile(i)) honest.add(i);
        SplittableRandom r = new SplittableRandom(seed ^ 0x0BE4_5EED_5L);
        for (int k = 0; k < SEEDS && !honest.isEmpty(); k++) seeds.add(addresses[honest.remove(r.nextInt(honest.size()))]);
    }

    public String address(int i) {
        return addresses[i];
    }

    /** The seed addresses every peer starts with. */
    public List<String> seeds() {
        return List.copyOf(seeds);
    }

    /** Peer {@code i} leaves every hello unanswered from now on (it cannot be reached back). */
    public void silence(int i) {
        silent.add(i);
    }

    /** The membership peer {@code i} runs now (null before it first started). */
    public Membership membership(int i) {
        return memberships[i];
    }

    /** The actors of peer {@code i} in its {@code start}-th run: its open membership. */
    public PeerHost.Children children(int i, int start) {
        return (ctx, peer) -> {
            Membership.Settings settings = new Membership.Settings(NETWORK, addresses[i], acceptIndex, seeds, 0,
                    CLOCK_SKEW, PROBE_FAILURES, RECORD_VALIDITY, MAX_PEERS, MAX_CANDIDATES, rules.maxPerPrefix(),
                    rules.maxPerArc(), rules.arcBits(), HELLO_PEERS, CHECKS_PER_TICK, positionsPerPeer, placementTag);
            SplittableRandom random = new SplittableRandom(seed ^ (0x9E37_79B9_7F4A_7C15L * (i + 1)) ^ start);
            Duration first = Duration.ofMillis(random.nextLong(PROBE_INTERVAL.toMillis()));
            ActorRef<VirtualMembership.Command> ref = ctx.spawn(VirtualMembership.create(settings,
                    keyring.keys(population.id(i)), this::at, listener(peer), ADDRESSES, rt::millis, random,
                    PROBE_INTERVAL, ANSWER_TIMEOUT, first, () -> silent.contains(i), peer.directory(),
                    m -> memberships[i] = m), "membership");
            actors.set(i, ref);
        };
    }

    /** The membership actor at an address, as every other peer reaches it: null when none runs there. */
    private ActorRef<VirtualMembership.Command> at(String address) {
        Integer j = byAddress.get(address);
        if (j == null || !net.isUp(j) || actors.get(j) == null) return null;
        return net.handle(j, actors.get(j));
    }

    /**
     * The info of the peer running at the record's address now (as its own view holds it, naming network handles),
     * with the role its record states, as the node's membership builds it: the peer's own view may call it passive
     * for a while (nobody had admitted it yet), which is no business of the others.
     */
    private Optional<PeerInfo> infoOf(SignedPeerRecord record) {
        Integer j = byAddress.get(record.address());
        if (j == null || !net.isUp(j)) return Optional.empty();
        DhtPeer p = peers.apply(j);
        PeerView v = p == null ? null : p.view().get();
        PeerInfo own = v == null ? null : v.peers().get(population.id(j));
        if (own == null || own.acceptsIndex() == record.acceptsIndex()) return Optional.ofNullable(own);
        return Optional.of(new PeerInfo(own.peerId(), own.address(), record.acceptsIndex(), own.httpAddress(),
                own.shardOwner(), own.directory()));
    }

    private Membership.Listener listener(DhtPeer self) {
        return new Membership.Listener() {
            @Override
            public void admitted(PeerId id, SignedPeerRecord record) {
                infoOf(record).ifPresent(info -> self.directory().tell(new PeerDirectory.Learn(List.of(info))));
            }

            @Override
            public void restarted(PeerId id, SignedPeerRecord record) {
                admitted(id, record);
            }

            @Override
            public void dropped(PeerId id, SignedPeerRecord record, String why) {
                self.directory().tell(new PeerDirectory.Forget(id));
            }
        };
    }

    /** Literal IPv4 addresses; prefixes are /24s written as the population writes them. */
    private static final Membership.Addresses ADDRESSES = new Membership.Addresses() {
        @Override
        public Optional<String> problem(String address) {
            String host = address.substring(0, address.lastIndexOf(':'));
            return host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}") ? Optional.empty() : Optional.of("address not an IP literal");
        }

        @Override
        public String prefix(String address) {
            String host = address.substring(0, address.lastIndexOf(':'));
            return host.substring(0, host.lastIndexOf('.')) + ".0/24";
        }
    };

    /** Admitted peers over all live peers (changes while the memberships still find and check each other). */
    public long admittedTotal(IntPredicate up) {
        long n = 0;
        for (int i = 0; i < memberships.length; i++) if (up.test(i) && memberships[i] != null) n += memberships[i].admitted().size();
        return n;
    }

    /**
     * What the honest live peers' memberships admitted: hostile and honest peers per directory (mean, min, max), the
     * most hostile peers one directory admitted at one prefix, the records refused, by reason, summed, and the honest
     * peers that take themselves for unreachable (passive: nobody had admitted them after 10 answers).
     */
    public Map<String, Object> figures(IntPredicate up) {
        Map<PeerId, Integer> index = new HashMap<>();
        for (int i = 0; i < population.size(); i++) index.put(population.id(i), i);
        int dirs = 0;
        long hostileSum = 0;
        long honestSum = 0;
        int hostileMax = 0;
        int hostileMin = Integer.MAX_VALUE;
        int honestMin = Integer.MAX_VALUE;
        int maxPerPrefix = 0;
        Map<String, Long> refused = new TreeMap<>();
        int passive = 0;
        for (int i = 0; i < population.size(); i++) {
            if (population.hostile(i) || !up.test(i) || memberships[i] == null) continue;
            Membership m = memberships[i];
            dirs++;
            if ("passive".equals(m.status().role())) passive++;
            int hostile = 0;
            int honest = 0;
            Map<String, Integer> atPrefix = new HashMap<>();
            for (PeerId id : m.admitted()) {
                Integer j = index.get(id);
                if (j != null && population.hostile(j)) {
                    hostile++;
                    atPrefix.merge(population.member(j).prefix(), 1, Integer::sum);
                } else {
                    honest++;
                }
            }
            hostileSum += hostile;
            honestSum += honest;
            hostileMax = Math.max(hostileMax, hostile);
            hostileMin = Math.min(hostileMin, hostile);
            honestMin = Math.min(honestMin, honest);
            for (int c : atPrefix.values()) maxPerPrefix = Math.max(maxPerPrefix, c);
            m.status().refusedByReason().forEach((k, v) -> refused.merge(k, v, Long::sum));
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("directories", dirs);
        f.put("hostileAdmittedMean", dirs == 0 ? 0.0 : hostileSum / (double) dirs);
        f.put("hostileAdmittedMin", dirs == 0 ? 0 : hostileMin);
        f.put("hostileAdmittedMax", hostileMax);
        f.put("honestAdmittedMean", dirs == 0 ? 0.0 : honestSum / (double) dirs);
        f.put("honestAdmittedMin", dirs == 0 ? 0 : honestMin);
        f.put("maxHostileAdmittedPerPrefix", maxPerPrefix);
        f.put("refusedRecords", refused);
        f.put("passivePeers", passive);
        f.put("seeds", seeds.size());
        return f;
    }
}
