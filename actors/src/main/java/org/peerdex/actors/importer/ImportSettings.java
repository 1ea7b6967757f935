package org.peerdex.actors.importer;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.List;

/** The {@code peerdex.importer} config section (every key is documented in reference.conf). */
public record ImportSettings(boolean allowLoopback, Duration fetchTimeout, long maxFetchBytes, int flushEvery,
                             int maxPages, Duration minFeedInterval, long documentMaxBytes, Duration documentTimeout,
                             int documentMaxPages, boolean proxyEnabled, int proxyPort, boolean proxyAllowQuery,
                             List<Integer> scannerPorts, Duration scannerTimeout, int scannerMaxAddresses) {
    public static ImportSettings from(Config root) {
        Config c = root.getConfig("peerdex.importer");
        return new ImportSettings(c.getBoolean("allow-loopback"), c.getDuration("fetch-timeout"),
                c.getBytes("max-fetch-bytes"), c.getInt("flush-every"), c.getInt("max-pages"),
                c.getDuration("min-feed-interval"), c.getBytes("documents.max-bytes"),
                c.getDuration("documents.timeout"), c.getInt("documents.max-pages"), c.getBoolean("proxy.enabled"),
                c.getInt("proxy.port"), c.getBoolean("proxy.allow-query"), List.copyOf(c.getIntList("scanner.ports")),
                c.getDuration("scanner.timeout"), c.getInt("scanner.max-addresses"));
    }

    /** The fetch policy: loopback if allowed, private ranges only in intranet mode. */
    public FetchPolicy policy(boolean intranet) {
        return new FetchPolicy(allowLoopback, intranet);
    }
}
