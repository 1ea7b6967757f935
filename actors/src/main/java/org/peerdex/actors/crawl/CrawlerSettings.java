package org.peerdex.actors.crawl;

import com.typesafe.config.Config;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/** The typed view of {@code peerdex.crawler} and {@code peerdex.indexer} (see reference.conf). */
public record CrawlerSettings(String userAgent, long minDelayMs, List<String> unpoliteHosts, long crawlDelayCapMs,
                              List<String> allowHosts, boolean allowLoopback, boolean intranet, long connectTimeoutMs, long readTimeoutMs,
                              long totalTimeoutMs, int maxBodyBytes, int maxRedirects, int maxRetries,
                              long maxRetryAfterMs, long retryDefaultMs, long robotsRetryMs, long robotsCacheTtlMs,
                              int maxParallelPerHost, int dispatchWindow, int maxSitemapUrls, long progressIntervalMs,
                              long flushIntervalMs, int maxBatchDocuments, long pauseRetryMs,
                              int robotsCacheMaxHosts, long hostIdleStopMs) {

    public static CrawlerSettings from(Config root, boolean intranet) {
        Config c = root.getConfig("peerdex.crawler");
        Config i = root.getConfig("peerdex.indexer");
        return new CrawlerSettings(c.getString("user-agent"), ms(c, "min-delay"), c.getStringList("unpolite-hosts"),
                ms(c, "crawl-delay-cap"), c.getStringList("allow-hosts"), c.getBoolean("allow-loopback"), intranet, ms(c, "connect-timeout"),
                ms(c, "read-timeout"), ms(c, "total-timeout"), (int) Math.min(Integer.MAX_VALUE - 16,
                c.getBytes("max-body-bytes")), c.getInt("max-redirects"), c.getInt("max-retries"),
                ms(c, "max-retry-after"), ms(c, "retry-default"), ms(c, "robots-retry"), ms(c, "robots-cache-ttl"),
                c.getInt("max-parallel-per-host"), c.getInt("dispatch-window"), c.getInt("max-sitemap-urls"),
                ms(c, "progress-interval"), ms(i, "flush-interval"), i.getInt("max-batch-documents"),
                ms(i, "pause-retry-interval"), c.getInt("robots-cache-max-hosts"), ms(c, "host-idle-stop"));
    }

    private static long ms(Config c, String key) {
        return c.getDuration(key).toMillis();
    }

    /** The robots.txt product token: the user agent's first word ("PeerdexBot"). */
    public String robotsName() {
        String ua = userAgent.strip();
        int slash = ua.indexOf('/');
        int space = ua.indexOf(' ');
        int end = slash < 0 ? space : space < 0 ? slash : Math.min(slash, space);
        return (end < 0 ? ua : ua.substring(0, end)).toLowerCase(Locale.ROOT);
    }

    /** Whether a host name (or address) matches one of the patterns; {@code *} matches any run of characters. */
    public static boolean matches(List<String> patterns, String host) {
        String h = host.toLowerCase(Locale.ROOT);
        for (String p : patterns) {
            String regex = ("\\Q" + p.toLowerCase(Locale.ROOT) + "\\E").replace("*", "\\E.*\\Q");
            if (Pattern.matches(regex, h)) return true;
        }
        return false;
    }
}
