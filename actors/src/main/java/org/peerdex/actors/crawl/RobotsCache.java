package org.peerdex.actors.crawl;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import crawlercommons.robots.BaseRobotRules;
import crawlercommons.robots.SimpleRobotRules;
import crawlercommons.robots.SimpleRobotRulesParser;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * robots.txt per host (scheme://host:port), parsed with crawler-commons and kept for {@code robots-cache-ttl} for
 * at most {@code robots-cache-max-hosts} hosts (Caffeine; a wide crawl meets hosts without end), shared by all
 * crawls of the node. Answers follow RFC 9309: 2xx is parsed; 4xx ("unavailable") allows
 * everything; 5xx or no answer ("unreachable") disallows everything and is asked again after
 * {@code robots-retry}. Blocking ({@link #rules} may fetch): call it on the blocking dispatcher.
 */
public final class RobotsCache {
    /** RFC 9309 2.5: at least 500 KiB must be parsed; more is ignored (crawler-commons parses any size). */
    static final int MAX_ROBOTS_BYTES = 500 * 1024;

    /**
     * What robots.txt says for one host; {@code source} tells where it came from (for progress and history).
     * {@code failureKind} is empty when robots.txt was read (or absent); otherwise it names why it could not be
     * (the host did not answer: {@code host-unreachable}; it answered 5xx: {@code robots-unavailable}), the rules
     * disallow everything (RFC 9309 2.3.1.4) and {@code failureDetail} says it in words.
     */
    public record HostRules(BaseRobotRules rules, long crawlDelayMs, List<String> sitemaps, String source,
                            long expiresAt, String failureKind, String failureDetail) {
        public HostRules(BaseRobotRules rules, long crawlDelayMs, List<String> sitemaps, String source, long expiresAt) {
            this(rules, crawlDelayMs, sitemaps, source, expiresAt, "", "");
        }

        public boolean allowed(String url) {
            return rules.isAllowed(url);
        }

        /** True when the host's robots.txt could not be read: nothing of the host is fetched until the retry. */
        public boolean failed() {
            return !failureKind.isEmpty();
        }
    }

    /** The error kind of URLs whose host did not answer at all (connection refused, timeout, reset). */
    public static final String HOST_UNREACHABLE = "host-unreachable";
    /** The error kind of URLs whose host answered robots.txt with a 5xx. */
    public static final String ROBOTS_UNAVAILABLE = "robots-unavailable";

    private final CrawlerSettings settings;
    private final Fetcher fetcher;
    // the parser's own limit turns a long Crawl-delay into "disallow all"; we cap the delay ourselves instead
    private final SimpleRobotRulesParser parser = new SimpleRobotRulesParser(Long.MAX_VALUE / 4, 50);
    private final Cache<String, HostRules> cache;

    public RobotsCache(CrawlerSettings settings, Fetcher fetcher) {
        this.settings = settings;
        this.fetcher = fetcher;
        this.cache = Caffeine.newBuilder()
                .maximumSize(Math.max(1, settings.robotsCacheMaxHosts()))
                .expireAfter(new UntilExpiresAt())
                // eviction runs on the calling thread (the blocking dispatcher), not on the common pool
                .executor(Runnable::run)
                .build();
    }

    /**
     * The rules for a site root like {@code http://example.org:8080}; fetched when absent or expired. Not computed
     * under the cache's lock: a fetch may take the whole request timeout, and other hosts must not wait for it.
     */
    public HostRules rules(String siteRoot) throws Fetcher.FetchException {
        long now = System.currentTimeMillis();
        HostRules cached = cache.getIfPresent(siteRoot);
        if (cached != null && cached.expiresAt() > now) return cached;
        HostRules fresh = fetch(siteRoot, now);
        cache.put(siteRoot, fresh);
        return fresh;
    }

    /** Whether the rules of a site root are held and not expired: {@link #rules} would not fetch them. */
    public boolean cached(String siteRoot) {
        HostRules c = cache.getIfPresent(siteRoot);
        return c != null && c.expiresAt() > System.currentTimeMillis();
    }

    /** Hosts whose rules are held now (after pending evictions ran). */
    public long size() {
        cache.cleanUp();
        return cache.estimatedSize();
    }

    /** Each entry lives until its own {@code expiresAt}: a 2xx for the TTL, an unreachable host until the retry. */
    private static final class UntilExpiresAt implements Expiry<String, HostRules> {
        @Override
        public long expireAfterCreate(String site, HostRules rules, long currentTime) {
            return TimeUnit.MILLISECONDS.toNanos(Math.max(0, rules.expiresAt() - System.currentTimeMillis()));
        }

        @Override
        public long expireAfterUpdate(String site, HostRules rules, long currentTime, long currentDuration) {
            return expireAfterCreate(site, rules, currentTime);
        }

        @Override
        public long expireAfterRead(String site, HostRules rules, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }

    private HostRules fetch(String siteRoot, long now) throws Fetcher.FetchException {
        String url = siteRoot + "/robots.txt";
        Fetcher.Response r;
        try {
            r = fetcher.fetch(url);
        } catch (Fetcher.FetchException e) {
            // a refused address stays refused: let the caller report it for every URL of the host
            if (e.kind().equals("refused-address") || e.kind().equals("unknown-host")) throw e;
            // no answer at all (refused, timed out, reset): the host is unreachable, which is not a robots refusal
            return new HostRules(new SimpleRobotRules(SimpleRobotRules.RobotRulesMode.ALLOW_NONE), 0, List.of(),
                    "unreachable (" + e.kind() + ")", now + settings.robotsRetryMs(), HOST_UNREACHABLE,
                    "host unreachable (" + e.getMessage() + ")");
        }
        int status = r.status();
        if (status >= 200 && status < 300) {
            byte[] body = r.body().length > MAX_ROBOTS_BYTES ? Arrays.copyOf(r.body(), MAX_ROBOTS_BYTES) : r.body();
            BaseRobotRules rules = parser.parseContent(url, body, r.contentType(), List.of(settings.robotsName()));
            long delay = rules.getCrawlDelay() == BaseRobotRules.UNSET_CRAWL_DELAY ? 0 : Math.max(0, rules.getCrawlDelay());
            return new HostRules(rules, Math.min(delay, settings.crawlDelayCapMs()), List.copyOf(rules.getSitemaps()),
                    "robots.txt", now + settings.robotsCacheTtlMs());
        }
        if (status >= 400 && status < 500) {
            return new HostRules(new SimpleRobotRules(SimpleRobotRules.RobotRulesMode.ALLOW_ALL), 0, List.of(),
                    "none (HTTP " + status + ")", now + settings.robotsCacheTtlMs());
        }
        return new HostRules(new SimpleRobotRules(SimpleRobotRules.RobotRulesMode.ALLOW_NONE), 0, List.of(),
                "unreachable (HTTP " + status + ")", now + settings.robotsRetryMs(), ROBOTS_UNAVAILABLE,
                "robots.txt answered HTTP " + status + ": the host counts as disallowed until it can be read (RFC 9309)");
    }
}
