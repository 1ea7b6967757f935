package org.peerdex.actors.crawl;

import crawlercommons.robots.BaseRobotRules;
import crawlercommons.robots.SimpleRobotRules;
import crawlercommons.robots.SimpleRobotRulesParser;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * robots.txt per host (scheme://host:port), parsed with crawler-commons and kept for {@code robots-cache-ttl},
 * shared by all crawls of the node. Answers follow RFC 9309: 2xx is parsed; 4xx ("unavailable") allows
 * everything; 5xx or no answer ("unreachable") disallows everything and is asked again after
 * {@code robots-retry}. Blocking ({@link #rules} may fetch): call it on the blocking dispatcher.
 */
public final class RobotsCache {
    /** RFC 9309 2.5: at least 500 KiB must be parsed; more is ignored (crawler-commons parses any size). */
    static final int MAX_ROBOTS_BYTES = 500 * 1024;

    /** What robots.txt says for one host; {@code source} tells where it came from (for progress and history). */
    public record HostRules(BaseRobotRules rules, long crawlDelayMs, List<String> sitemaps, String source,
                            long expiresAt) {
        public boolean allowed(String url) {
            return rules.isAllowed(url);
        }
    }

    private final CrawlerSettings settings;
    private final Fetcher fetcher;
    // the parser's own limit turns a long Crawl-delay into "disallow all"; we cap the delay ourselves instead
    private final SimpleRobotRulesParser parser = new SimpleRobotRulesParser(Long.MAX_VALUE / 4, 50);
    private final ConcurrentHashMap<String, HostRules> cache = new ConcurrentHashMap<>();

    public RobotsCache(CrawlerSettings settings, Fetcher fetcher) {
        this.settings = settings;
        this.fetcher = fetcher;
    }

    /** The rules for a site root like {@code http://example.org:8080}; fetched when absent or expired. */
    public HostRules rules(String siteRoot) throws Fetcher.FetchException {
        long now = System.currentTimeMillis();
        HostRules cached = cache.get(siteRoot);
        if (cached != null && cached.expiresAt() > now) return cached;
        HostRules fresh = fetch(siteRoot, now);
        cache.put(siteRoot, fresh);
        return fresh;
    }

    private HostRules fetch(String siteRoot, long now) throws Fetcher.FetchException {
        String url = siteRoot + "/robots.txt";
        Fetcher.Response r;
        try {
            r = fetcher.fetch(url);
        } catch (Fetcher.FetchException e) {
            // a refused address stays refused: let the caller report it for every URL of the host
            if (e.kind().equals("refused-address") || e.kind().equals("unknown-host")) throw e;
            return new HostRules(new SimpleRobotRules(SimpleRobotRules.RobotRulesMode.ALLOW_NONE), 0, List.of(),
                    "unreachable (" + e.kind() + ")", now + settings.robotsRetryMs());
        }
        int status = r.status();
        if (status >= 200 && status < 300) {
            byte[] body = r.body().length > MAX_ROBOTS_BYTES ? java.util.Arrays.copyOf(r.body(), MAX_ROBOTS_BYTES) : r.body();
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
                "unreachable (HTTP " + status + ")", now + settings.robotsRetryMs());
    }
}
