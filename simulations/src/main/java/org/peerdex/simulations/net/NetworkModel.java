package org.peerdex.simulations.net;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.peerdex.simulations.sim.Distributions;

/**
 * The modelled network between virtual peers 0..n-1: each link has its own RTT, drawn once from a log-normal
 * around the configured median (a link's RTT is a property of the path, so it is stable); each message adds
 * log-normal jitter and a serialization delay of bytes / bandwidth, and may be lost. Partitions split the peers
 * into groups; a message between groups is dropped until the partition heals. Counts every message and byte.
 */
public final class NetworkModel {
    private final int peers;
    private final LinkSettings settings;
    private final SplittableRandom random;
    private final long linkSeed;
    private int[] group;
    private boolean partitioned;
    private final Traffic traffic = new Traffic();

    /** The fate of one message: dropped, or delivered after {@code delayMicros}. */
    public record Delivery(boolean delivered, long delayMicros, String reason) {
        static Delivery lost(String reason) {
            return new Delivery(false, 0, reason);
        }
    }

    public NetworkModel(int peers, LinkSettings settings, SplittableRandom random) {
        this.peers = peers;
        this.settings = settings;
        this.random = random;
        this.linkSeed = random.nextLong();
        this.group = new int[peers];
    }

    public LinkSettings settings() {
        return settings;
    }

    public int peers() {
        return peers;
    }

    public Traffic traffic() {
        return traffic;
    }

    /** The round-trip time of the link between a and b in ms, the same in both directions and on every call. */
    public double linkRttMillis(int a, int b) {
        if (a == b) return 0;
        int lo = Math.min(a, b);
        int hi = Math.max(a, b);
        SplittableRandom link = new SplittableRandom(linkSeed ^ (((long) lo << 32) | hi) * 0x9E3779B97F4A7C15L);
        return settings.rttSigma() == 0 ? settings.rttMillis()
                : Distributions.logNormal(link, settings.rttMillis(), settings.rttSigma());
    }

    /**
     * Decides the fate of a message of {@code bytes} from peer {@code from} to peer {@code to} and counts it under
     * {@code category}. A message to oneself is delivered at once and not counted as network traffic.
     */
    public Delivery send(int from, int to, int bytes, String category) {
        if (from == to) return new Delivery(true, 0, "local");
        traffic.count(category, bytes);
        if (partitioned && group[from] != group[to]) {
            traffic.drop(category);
            return Delivery.lost("partition");
        }
        if (settings.loss() > 0 && random.nextDouble() < settings.loss()) {
            traffic.drop(category);
            return Delivery.lost("loss");
        }
        double oneWay = linkRttMillis(from, to) / 2;
        if (settings.jitterSigma() > 0) oneWay = Distributions.logNormal(random, oneWay, settings.jitterSigma());
        double serialization = settings.bandwidthBytesPerSec() > 0 ? bytes * 1000.0 / settings.bandwidthBytesPerSec() : 0;
        return new Delivery(true, Math.max(1, Math.round((oneWay + serialization) * 1000)), "ok");
    }

    /** Splits the peers into {@code groups} contiguous groups of peer indices (by ring order when indices are). */
    public void partition(int groups) {
        if (groups < 1) throw new IllegalArgumentException("at least one group");
        int[] g = new int[peers];
        for (int i = 0; i < peers; i++) g[i] = (int) ((long) i * groups / peers);
        partition(g);
    }

    /** Puts peer i into group {@code groupOf[i]}; peers in different groups cannot reach each other. */
    public void partition(int[] groupOf) {
        if (groupOf.length != peers) throw new IllegalArgumentException("one group per peer");
        this.group = groupOf.clone();
        this.partitioned = Arrays.stream(groupOf).distinct().count() > 1;
    }

    public void heal() {
        Arrays.fill(group, 0);
        partitioned = false;
    }

    public boolean isPartitioned() {
        return partitioned;
    }

    public boolean canReach(int a, int b) {
        return !partitioned || group[a] == group[b];
    }
}
