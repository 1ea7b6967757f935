package org.peerdex.simulations.hostile;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.peerdex.protocol.hash.PeerId;

/**
 * The membership service's admission check, the same bounds as the node's OpenMembership: a record is refused
 * when its address prefix already has {@code maxPerPrefix} peers, or its arc of the ring (top {@code arcBits} bits
 * of the position) already has max({@code maxPerArc}, 2 * ceil((members + 1) / arcs)) peers. Ids are not checked
 * here: the population only ever holds ids drawn at random, as keys hashed to ids are.
 */
public final class Admission {
    private final AdmissionRules rules;
    private final Map<String, Integer> perPrefix = new HashMap<>();
    private final int[] perArc;
    private int members;

    public Admission(AdmissionRules rules) {
        this.rules = rules;
        this.perArc = new int[1 << rules.arcBits()];
    }

    /** Admits the peer and returns empty, or returns why it is refused ("prefix full", "arc full"). */
    public Optional<String> admit(PeerId id, String prefix) {
        if (perPrefix.getOrDefault(prefix, 0) >= rules.maxPerPrefix()) return Optional.of("prefix full");
        int arc = arcOf(id);
        int limit = Math.max(rules.maxPerArc(), 2 * (int) Math.ceil((members + 1) / (double) perArc.length));
        if (perArc[arc] >= limit) return Optional.of("arc full");
        perPrefix.merge(prefix, 1, Integer::sum);
        perArc[arc]++;
        members++;
        return Optional.empty();
    }

    int arcOf(PeerId id) {
        return (int) (id.position() >>> (63 - rules.arcBits()));
    }

    public int members() {
        return members;
    }

    /** Admitted peers at this prefix. */
    public int atPrefix(String prefix) {
        return perPrefix.getOrDefault(prefix, 0);
    }
}
