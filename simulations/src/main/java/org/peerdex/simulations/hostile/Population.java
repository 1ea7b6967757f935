package org.peerdex.simulations.hostile;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Admission;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.protocol.ring.RingPosition;

/**
 * Who the virtual peers are: ids, address prefixes, which are hostile and what they do, and which the membership
 * service admitted. Honest peers draw random ids and each sits in a /24 of its own. Hostile peers draw random ids
 * too (an id is a hash of a key: nobody picks a position); a Sybil operator mints {@code mintTries} ids per peer it
 * places and keeps the one just clockwise of its target (so that it would be the target's primary holder), all from
 * its few prefixes. Records reach the membership service honest peers first (in random order, the network as it
 * was), then the hostile ones; each passes the {@link Admission} bounds or is refused. Index = ring order.
 */
public final class Population {
    /** Where ids come from: random draws, or the ids of key pairs drawn from the stream (the open membership). */
    @FunctionalInterface
    public interface IdSource {
        PeerId next(SplittableRandom random);

        IdSource RANDOM = PeerId::random;
    }

    /** One peer as the membership service sees it. */
    public record Member(PeerId id, String prefix, boolean hostile, HostileSettings.Behaviour behaviour,
                         boolean admitted, String refused) {}

    private final Member[] members;
    private final long[] targets;
    private final long mintTries;
    private final boolean admissionApplied;
    private final Map<String, Long> refused = new TreeMap<>();

    private Population(Member[] members, long[] targets, long mintTries, boolean admissionApplied) {
        this.members = members;
        this.targets = targets;
        this.mintTries = mintTries;
        this.admissionApplied = admissionApplied;
        for (Member m : members) {
            if (m.refused() != null) refused.merge((m.hostile() ? "hostile " : "honest ") + m.refused(), 1L, Long::sum);
        }
    }

    /**
     * @param honestIds the ids honest peers draw from (the first {@code peers - hostile} draws are theirs, so a
     *                  scenario without hostile peers has the ids it always had)
     * @param random    everything else: prefixes, admission order, hostile ids
     * @param targetWords the words a Sybil operator aims at, most frequent first
     */
    public static Population build(int peers, HostileSettings hostile, AdmissionRules rules, Placement placement,
                                   SplittableRandom honestIds, SplittableRandom random, List<WordHash> targetWords) {
        return build(peers, hostile, rules, placement, honestIds, random, targetWords, IdSource.RANDOM);
    }

    /** As above, with ids from {@code idSource} (a Sybil operator mints {@code mintTries} of them per id it places). */
    public static Population build(int peers, HostileSettings hostile, AdmissionRules rules, Placement placement,
                                   SplittableRandom honestIds, SplittableRandom random, List<WordHash> targetWords,
                                   IdSource idSource) {
        int k = hostile.count(peers);
        int h = peers - k;
        Set<Integer> usedPrefixes = new HashSet<>();
        List<Member> honest = new ArrayList<>();
        for (int i = 0; i < h; i++) {
            honest.add(new Member(idSource.next(honestIds), freshPrefix(random, usedPrefixes), false,
                    HostileSettings.Behaviour.HONEST, true, null));
        }
        long[] targets = new long[0];
        long tries = 0;
        List<Member> hostileMembers = new ArrayList<>();
        if (k > 0) {
            boolean sybil = hostile.kind().sybilPlacement();
            String[] operator = new String[hostile.prefixes()];
            for (int p = 0; p < operator.length; p++) operator[p] = freshPrefix(random, usedPrefixes);
            if (sybil) {
                List<Long> ts = new ArrayList<>();
                for (WordHash w : targetWords.subList(0, Math.min(hostile.targetWords(), targetWords.size()))) {
                    for (int p = 0; p < placement.partitions().count(); p++) ts.add(placement.partitions().position(w, p));
                }
                targets = ts.stream().mapToLong(Long::longValue).toArray();
            }
            for (int j = 0; j < k; j++) {
                PeerId id;
                if (sybil && targets.length > 0) {
                    long target = targets[j % targets.length];
                    id = null;
                    long best = Long.MAX_VALUE;
                    for (int t = 0; t < hostile.mintTries(); t++) {
                        PeerId candidate = idSource.next(random);
                        // any one of its positions may land on the target
                        for (int v = 0; v < placement.positionsPerPeer(); v++) {
                            long d = RingPosition.distance(target, candidate.position(v));
                            if (d < best) {
                                best = d;
                                id = candidate;
                            }
                        }
                    }
                    tries += hostile.mintTries();
                } else {
                    id = idSource.next(random);
                    tries++;
                }
                String prefix = sybil ? operator[j % operator.length] : freshPrefix(random, usedPrefixes);
                hostileMembers.add(new Member(id, prefix, true, hostile.behaviour(j), true, null));
            }
        }
        boolean apply = rules.applies(k);
        List<Member> all = new ArrayList<>();
        if (apply) {
            Admission admission = rules.table(placement.positionsPerPeer());
            List<Member> order = new ArrayList<>(honest);
            for (int i = order.size() - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                Member t = order.get(i);
                order.set(i, order.get(j));
                order.set(j, t);
            }
            order.addAll(hostileMembers);
            for (Member m : order) {
                Optional<String> why = admission.admit(m.id(), m.prefix());
                all.add(why.isEmpty() ? m : new Member(m.id(), m.prefix(), m.hostile(), m.behaviour(), false, why.get()));
            }
        } else {
            all.addAll(honest);
            all.addAll(hostileMembers);
        }
        Member[] sorted = all.toArray(Member[]::new);
        // peer index = ring order, so partitions into contiguous index groups are arcs of the ring
        Arrays.sort(sorted, (a, b) -> Long.compareUnsigned(a.id().position(), b.id().position()));
        return new Population(sorted, targets, tries, apply);
    }

    /** A /24 no other peer has: "a.b.c.0/24". */
    private static String freshPrefix(SplittableRandom random, Set<Integer> used) {
        int p;
        do {
            p = random.nextInt(1 << 24);
        } while (!used.add(p));
        return (p >>> 16) + "." + ((p >>> 8) & 0xff) + "." + (p & 0xff) + ".0/24";
    }

    public int size() {
        return members.length;
    }

    public Member member(int i) {
        return members[i];
    }

    public PeerId id(int i) {
        return members[i].id();
    }

    public boolean hostile(int i) {
        return members[i].hostile();
    }

    public boolean admitted(int i) {
        return members[i].admitted();
    }

    public HostileSettings.Behaviour behaviour(int i) {
        return members[i].behaviour();
    }

    /** The target positions of the Sybil operator (empty when it aims at none). */
    public long[] targets() {
        return targets.clone();
    }

    /**
     * The figures of who got in: hostile peers and their admitted share, refusals by reason, the most peers
     * admitted at one prefix, the share of the ring (ids and key space) hostile peers hold, and how many target
     * positions have a hostile primary holder, or only hostile holders.
     */
    public Map<String, Object> figures(Placement placement) {
        Map<String, Object> m = new LinkedHashMap<>();
        int hostile = 0;
        int hostileAdmitted = 0;
        int honestAdmitted = 0;
        Map<String, Integer> hostileAtPrefix = new TreeMap<>();
        List<PeerId> ring = new ArrayList<>();
        Set<PeerId> bad = new HashSet<>();
        for (Member x : members) {
            if (x.hostile()) hostile++;
            if (!x.admitted()) continue;
            ring.add(x.id());
            if (x.hostile()) {
                hostileAdmitted++;
                bad.add(x.id());
                hostileAtPrefix.merge(x.prefix(), 1, Integer::sum);
            } else {
                honestAdmitted++;
            }
        }
        m.put("hostilePeers", hostile);
        m.put("hostileAdmitted", hostileAdmitted);
        m.put("honestAdmitted", honestAdmitted);
        m.put("admissionApplied", admissionApplied);
        m.put("refused", new LinkedHashMap<>(refused));
        m.put("hostilePrefixes", hostileAtPrefix.size());
        m.put("maxHostileAdmittedPerPrefix", hostileAtPrefix.values().stream().mapToInt(Integer::intValue).max().orElse(0));
        m.put("mintTries", mintTries);
        Ring r = placement.ring(ring);
        m.put("ringShare", ring.isEmpty() ? 0.0 : hostileAdmitted / (double) ring.size());
        double space = 0;
        for (int i = 0; i < r.points(); i++) {
            if (!bad.contains(r.get(i))) continue;
            // a point is the primary of the arc from the point before it (exclusive) to itself
            long from = r.positionAt(i - 1);
            long to = r.positionAt(i);
            space += r.points() == 1 ? RingPosition.MAX : RingPosition.distance(from, to);
        }
        m.put("keyspaceShare", space / (double) RingPosition.MAX);
        int primary = 0;
        int allHolders = 0;
        for (long t : targets) {
            List<PeerId> holders = placement.holders(t, r);
            if (holders.isEmpty()) continue;
            if (bad.contains(holders.get(0))) primary++;
            if (bad.containsAll(holders)) allHolders++;
        }
        m.put("targets", targets.length);
        m.put("targetsWithHostilePrimary", primary);
        m.put("targetsWithOnlyHostileHolders", allHolders);
        return m;
    }
}
