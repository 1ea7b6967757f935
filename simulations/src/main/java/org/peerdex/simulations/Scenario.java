package org.peerdex.simulations;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import java.util.LinkedHashMap;
import java.util.Map;
import org.peerdex.simulations.churn.WeibullSpec;
import org.peerdex.simulations.hostile.AdmissionRules;
import org.peerdex.simulations.hostile.HostileSettings;
import org.peerdex.simulations.sim.SimDurations;

/**
 * What a simulation run is: the network, the corpus, the workload, churn and faults, and the seed. Read from HOCON
 * ({@code scenario.conf} in this module's resources holds every key with its default and meaning); CLI flags
 * override single keys. Durations are simulated time.
 */
public record Scenario(int peers, int partitions, int redundancy, int positionsPerPeer, int docs, int queries, String queryMix,
                       int vocabulary, double zipf, double docLengthMedian, double docLengthSigma,
                       String churn, String down, double crashFraction, double stablePeers, long durationMicros,
                       long partitionAtMicros, long healAtMicros, int partitionGroups, double loss, double rttMillis,
                       double rttSigma, double jitter, double bandwidth, long detectMicros, int samples,
                       long indexWindowMicros, long settleMaxMicros, long repairTailMicros, long seed,
                       String bootstrap, String indexing, boolean measureHeapAfterGc, HostileSettings hostile,
                       AdmissionRules admission, Config dht) {
    public Scenario {
        if (peers < 1) throw new IllegalArgumentException("peers must be at least 1");
        if (partitions < 1 || Integer.bitCount(partitions) != 1 || partitions > 1024) {
            throw new IllegalArgumentException("partitions is a count and must be a power of two (1..1024), not " + partitions);
        }
        if (redundancy < 1) throw new IllegalArgumentException("redundancy must be at least 1");
        if (positionsPerPeer < 1 || positionsPerPeer > 256) {
            throw new IllegalArgumentException("positions-per-peer must be 1..256, not " + positionsPerPeer);
        }
        if (docs < 1 || queries < 0) throw new IllegalArgumentException("docs >= 1 and queries >= 0");
        if (!churn.equals("none")) WeibullSpec.parse(churn);
        if (!down.equals("auto")) WeibullSpec.parse(down);
        if (partitionAtMicros >= 0 && healAtMicros >= 0 && healAtMicros <= partitionAtMicros) {
            throw new IllegalArgumentException("heal-at must come after partition-at");
        }
        if (samples < 1) throw new IllegalArgumentException("samples must be at least 1");
        if (!bootstrap.equals("hellos") && !bootstrap.equals("membership") && !bootstrap.equals(OPEN_MEMBERSHIP)) {
            throw new IllegalArgumentException("bootstrap is hellos, membership or open-membership, not " + bootstrap);
        }
        if (!indexing.equals(REPLICATE) && !indexing.equals(SETTLED) && !indexing.equals(SETTLED_QUERY_WORDS)) {
            throw new IllegalArgumentException("indexing is replicate, settled or settled-query-words, not " + indexing);
        }
        if (!indexing.equals(REPLICATE) && hostile.share() > 0) {
            throw new IllegalArgumentException("indexing = " + indexing + " writes the holders as honest peers would:"
                    + " a scenario with hostile peers indexes with indexing = replicate");
        }
    }

    /** the bootstrap where every peer runs the open network's membership itself (seeds, hellos, challenges) */
    public static final String OPEN_MEMBERSHIP = "open-membership";

    /** documents are indexed at their crawlers during the index window and the peers' Replicators hand them on */
    public static final String REPLICATE = "replicate";
    /** every holder's store is written directly as a settled replication leaves it, without messages */
    public static final String SETTLED = "settled";
    /** as {@link #SETTLED}, but only the postings of words the queries ask: for corpora too large to hold whole */
    public static final String SETTLED_QUERY_WORDS = "settled-query-words";

    /** Whether the holders' stores are written directly (no index window, no replication messages). */
    public boolean settledIndexing() {
        return !indexing.equals(REPLICATE);
    }

    /** Whether every peer admits the others itself, through the node's own membership over the virtual network. */
    public boolean openMembership() {
        return bootstrap.equals(OPEN_MEMBERSHIP);
    }

    public static Scenario load(Config overrides) {
        Config c = overrides.withFallback(ConfigFactory.parseResources("scenario.conf")).resolve();
        return new Scenario(c.getInt("peers"), c.getInt("partitions"), c.getInt("redundancy"),
                c.getInt("positions-per-peer"), c.getInt("docs"),
                c.getInt("queries"), c.getString("query-mix"), c.getInt("vocabulary"), c.getDouble("zipf"),
                c.getDouble("doc-length-median"), c.getDouble("doc-length-sigma"), c.getString("churn"),
                c.getString("down"), c.getDouble("crash-fraction"), c.getDouble("stable-peers"),
                micros(c, "duration"), optionalMicros(c, "partition-at"), optionalMicros(c, "heal-at"),
                c.getInt("partition-groups"), c.getDouble("loss"), millis(c, "rtt"), c.getDouble("rtt-sigma"),
                c.getDouble("jitter"), c.getBytes("bandwidth"), micros(c, "detect"), c.getInt("samples"),
                micros(c, "index-window"), micros(c, "settle-max"), micros(c, "repair-tail"), c.getLong("seed"),
                c.getString("bootstrap"), c.getString("indexing"), c.getBoolean("measure-heap-after-gc"),
                HostileSettings.from(c.getConfig("hostile")), AdmissionRules.from(c.getConfig("admission")),
                c.getConfig("dht"));
    }

    private static long micros(Config c, String key) {
        return SimDurations.parseMicros(c.getString(key));
    }

    private static double millis(Config c, String key) {
        return SimDurations.parseMicros(c.getString(key)) / 1000.0;
    }

    private static long optionalMicros(Config c, String key) {
        String v = c.getString(key);
        return v.equals("off") || v.isEmpty() ? -1 : SimDurations.parseMicros(v);
    }

    public int partitionExponent() {
        return Integer.numberOfTrailingZeros(partitions);
    }

    public boolean hasChurn() {
        return !churn.equals("none");
    }

    public WeibullSpec sessionSpec() {
        return WeibullSpec.parse(churn);
    }

    /** Down times: as given, or (auto) the session shape with a quarter of its scale. */
    public WeibullSpec downSpec() {
        if (!down.equals("auto")) return WeibullSpec.parse(down);
        WeibullSpec s = sessionSpec();
        return new WeibullSpec(s.shape(), Math.max(1, s.scaleMicros() / 4));
    }

    /** The scenario as written to summary.json. */
    public Map<String, Object> echo() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("peers", peers);
        m.put("partitions", partitions);
        m.put("partitionExponent", partitionExponent());
        m.put("redundancy", redundancy);
        m.put("positionsPerPeer", positionsPerPeer);
        m.put("docs", docs);
        m.put("queries", queries);
        m.put("queryMix", queryMix);
        m.put("vocabulary", vocabulary);
        m.put("zipf", zipf);
        m.put("docLengthMedian", docLengthMedian);
        m.put("docLengthSigma", docLengthSigma);
        m.put("churn", churn);
        m.put("down", hasChurn() ? downSpec().toString() : down);
        m.put("crashFraction", crashFraction);
        m.put("stablePeers", stablePeers);
        m.put("duration", SimDurations.format(durationMicros));
        m.put("partitionAt", partitionAtMicros < 0 ? "off" : SimDurations.format(partitionAtMicros));
        m.put("healAt", healAtMicros < 0 ? "off" : SimDurations.format(healAtMicros));
        m.put("partitionGroups", partitionGroups);
        m.put("loss", loss);
        m.put("rttMillis", rttMillis);
        m.put("rttSigma", rttSigma);
        m.put("jitter", jitter);
        m.put("bandwidthBytesPerSec", bandwidth);
        m.put("detect", SimDurations.format(detectMicros));
        m.put("samples", samples);
        m.put("indexWindow", SimDurations.format(indexWindowMicros));
        m.put("settleMax", SimDurations.format(settleMaxMicros));
        m.put("repairTail", SimDurations.format(repairTailMicros));
        m.put("seed", seed);
        m.put("bootstrap", bootstrap);
        m.put("indexing", indexing);
        m.put("measureHeapAfterGc", measureHeapAfterGc);
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("share", hostile.share());
        h.put("kind", hostile.kind().toString());
        h.put("prefixes", hostile.prefixes());
        h.put("mintTries", hostile.mintTries());
        h.put("targetWords", hostile.targetWords());
        h.put("fakesPerKey", hostile.fakesPerKey());
        m.put("hostile", h);
        Map<String, Object> a = new LinkedHashMap<>(); // not Map.of: its order is drawn per JVM
        a.put("mode", admission.mode());
        a.put("maxPerPrefix", admission.maxPerPrefix());
        a.put("maxPerArc", admission.maxPerArc());
        a.put("arcBits", admission.arcBits());
        m.put("admission", a);
        m.put("dht", dht.root().render(ConfigRenderOptions.concise()));
        return m;
    }
}
