package org.peerdex.actors.dht;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.Locale;

/** The typed view of {@code peerdex.dht} (every key is documented in the actors module's reference.conf). */
public record DhtSettings(boolean acceptRemoteIndex, int maxPostingsPerMessage, int maxMetadataPerMessage,
                          int maxPackBytes, int maxKeysPerRequest, int maxDigestsPerMessage, double senderRate,
                          int senderBurst, Duration busyRetryAfter, int maxInFlightPerTarget, Duration ackTimeout,
                          Duration retryMinBackoff, Duration retryMaxBackoff, int maxAttempts,
                          Duration rebalanceDelay, Duration repairInterval, Duration lookupTimeout,
                          Duration searchTimeout, int topK, int bloomBitsPerElement, Duration cacheTtl,
                          boolean cacheRemoteResults, boolean independentMetadata, boolean confirmPostings,
                          boolean joinLookups, boolean topLookups, boolean presenceTables, boolean urlPrefixes,
                          boolean scoredFilters, boolean wordParts, boolean prefixScores, boolean countTops) {

    public static DhtSettings from(Config root) {
        Config c = root.getConfig("peerdex.dht");
        return new DhtSettings(c.getBoolean("accept-remote-index"), c.getInt("max-postings-per-message"),
                c.getInt("max-metadata-per-message"), (int) Math.min(Integer.MAX_VALUE, c.getBytes("max-pack-bytes")),
                c.getInt("max-keys-per-request"), c.getInt("max-digests-per-message"), c.getDouble("sender-rate"),
                c.getInt("sender-burst"), c.getDuration("busy-retry-after"), c.getInt("max-in-flight-per-target"),
                c.getDuration("ack-timeout"), c.getDuration("retry-min-backoff"), c.getDuration("retry-max-backoff"),
                c.getInt("max-attempts"), c.getDuration("rebalance-delay"), c.getDuration("repair-interval"),
                c.getDuration("lookup-timeout"), c.getDuration("search-timeout"), c.getInt("top-k"),
                c.getInt("bloom-bits-per-element"), c.getDuration("cache-ttl"), c.getBoolean("cache-remote-results"),
                onOffAuto(c, "independent-metadata", c.getBoolean("open-network")),
                onOffAuto(c, "confirm-postings", c.getBoolean("open-network")),
                !c.hasPath("join-lookups") || c.getBoolean("join-lookups"),
                !c.hasPath("top-lookups") || c.getBoolean("top-lookups"),
                !c.hasPath("presence-tables") || c.getBoolean("presence-tables"),
                !c.hasPath("url-prefixes") || c.getBoolean("url-prefixes"),
                !c.hasPath("scored-filters") || c.getBoolean("scored-filters"),
                c.hasPath("word-parts") && c.getBoolean("word-parts"),
                !c.hasPath("prefix-scores") || c.getBoolean("prefix-scores"),
                !c.hasPath("count-tops") || c.getBoolean("count-tops"));
    }

    /** A key that is on, off, or auto (then {@code auto}). */
    private static boolean onOffAuto(Config c, String key, boolean auto) {
        String v = c.getString(key).trim().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "on", "true", "yes" -> true;
            case "off", "false", "no" -> false;
            case "auto" -> auto;
            default -> throw new IllegalArgumentException("peerdex.dht." + key + " must be on, off or auto, not " + v);
        };
    }

    /** The search exchanges a peer may take or leave; tests compare a search with and without one. */
    public enum Exchange { CONFIRM_POSTINGS, JOIN_LOOKUPS, TOP_LOOKUPS, URL_PREFIXES, SCORED_FILTERS, WORD_PARTS, PREFIX_SCORES,
        COUNT_TOPS }

    /** These settings with one exchange on or off. */
    public DhtSettings with(Exchange e, boolean on) {
        return new DhtSettings(acceptRemoteIndex, maxPostingsPerMessage, maxMetadataPerMessage, maxPackBytes,
                maxKeysPerRequest, maxDigestsPerMessage, senderRate, senderBurst, busyRetryAfter, maxInFlightPerTarget,
                ackTimeout, retryMinBackoff, retryMaxBackoff, maxAttempts, rebalanceDelay, repairInterval,
                lookupTimeout, searchTimeout, topK, bloomBitsPerElement, cacheTtl, cacheRemoteResults,
                independentMetadata, e == Exchange.CONFIRM_POSTINGS ? on : confirmPostings,
                e == Exchange.JOIN_LOOKUPS ? on : joinLookups, e == Exchange.TOP_LOOKUPS ? on : topLookups,
                presenceTables, e == Exchange.URL_PREFIXES ? on : urlPrefixes,
                e == Exchange.SCORED_FILTERS ? on : scoredFilters, e == Exchange.WORD_PARTS ? on : wordParts,
                e == Exchange.PREFIX_SCORES ? on : prefixScores, e == Exchange.COUNT_TOPS ? on : countTops);
    }
}
