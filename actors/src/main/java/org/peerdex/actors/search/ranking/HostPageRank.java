package org.peerdex.actors.search.ranking;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * PageRank over the host graph (an edge when a page on host A links to a page on host B, A ≠ B), by power
 * iteration with damping 0.85; ranks are scaled so the best host has 1.0. Immutable once computed.
 */
public final class HostPageRank implements LinkRank {
    private final Map<String, Double> ranks;

    private HostPageRank(Map<String, Double> ranks) {
        this.ranks = ranks;
    }

    /** One link between hosts (host hashes). */
    public record Edge(String fromHost, String toHost) {}

    public static HostPageRank compute(List<Edge> edges) {
        Map<String, Set<String>> out = new HashMap<>();
        Set<String> nodes = new LinkedHashSet<>();
        for (Edge e : edges) {
            nodes.add(e.fromHost());
            nodes.add(e.toHost());
            if (!e.fromHost().equals(e.toHost())) out.computeIfAbsent(e.fromHost(), k -> new LinkedHashSet<>()).add(e.toHost());
        }
        int n = nodes.size();
        Map<String, Double> rank = new HashMap<>();
        if (n == 0) return new HostPageRank(rank);
        for (String v : nodes) rank.put(v, 1.0 / n);
        double d = 0.85;
        for (int iter = 0; iter < 50; iter++) {
            Map<String, Double> next = new HashMap<>();
            double dangling = 0;
            for (String v : nodes) {
                Set<String> targets = out.get(v);
                if (targets == null || targets.isEmpty()) dangling += rank.get(v);
            }
            for (String v : nodes) next.put(v, (1 - d) / n + d * dangling / n);
            for (Map.Entry<String, Set<String>> e : out.entrySet()) {
                double share = d * rank.get(e.getKey()) / e.getValue().size();
                for (String t : e.getValue()) next.merge(t, share, Double::sum);
            }
            double delta = 0;
            for (String v : nodes) delta += Math.abs(next.get(v) - rank.get(v));
            rank = next;
            if (delta < 1e-9) break;
        }
        double max = rank.values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
        Map<String, Double> scaled = new HashMap<>();
        rank.forEach((k, v) -> scaled.put(k, max > 0 ? v / max : 0));
        return new HostPageRank(scaled);
    }

    @Override
    public double rank(String hostHash) {
        return ranks.getOrDefault(hostHash, 0.0);
    }

    public int hosts() {
        return ranks.size();
    }
}
