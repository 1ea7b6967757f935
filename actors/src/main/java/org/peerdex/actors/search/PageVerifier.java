package org.peerdex.actors.search;

import java.util.Map;
import java.util.Set;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.peerdex.actors.crawl.GuardedHttp;
import org.peerdex.actors.parse.CharsetDetector;
import org.peerdex.actors.parse.HtmlMainContent;

/**
 * Re-reads a result's page for {@code verify=true} through the peer's {@link GuardedHttp} stack, so the same address
 * guard as the crawler's applies to every hop: result URLs come from other peers, and a searcher must not be able
 * to make this peer read an internal service and hand its text back as a snippet. Bounded: a 1 MiB body, 5 s in
 * all. A URL the guard refuses is never fetched; its result is shown unverified.
 */
public final class PageVerifier {
    /** The verifier of a peer without a stack (simulations): nothing is fetched, results stay unverified. */
    public static final PageVerifier NONE = new PageVerifier(null);
    /** The verifier's bounds: short, since a searcher waits for it. */
    public static final GuardedHttp.Limits LIMITS = new GuardedHttp.Limits(3_000, 3_000, 5_000, 1 << 20, 5);
    private static final Set<String> REFUSALS = Set.of("refused-address", "refused-scheme", "bad-url");
    private static final Map<String, String> HEADERS = Map.of("User-Agent", "Peerdex snippet verifier",
            "Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5", "Accept-Encoding", "gzip, deflate");

    private final GuardedHttp http;

    public PageVerifier(GuardedHttp http) {
        this.http = http;
    }

    /** What became of one verification. */
    public sealed interface Outcome {}

    /** The page was read: its visible text. */
    public record Fetched(String text) implements Outcome {}

    /** Not fetched at all (the guard refused the address or the scheme): the result is unverified. */
    public record Refused(String reason) implements Outcome {}

    /** Fetched and failed (unreachable, an error status, a timeout): the page is gone as far as we can tell. */
    public record Failed(String reason) implements Outcome {}

    /** Blocking: fetches the page and extracts its text. */
    public Outcome fetch(String url) {
        if (http == null) return new Refused("this peer fetches nothing for verification");
        GuardedHttp.Response r;
        try {
            r = http.get(url, LIMITS, HEADERS);
        } catch (GuardedHttp.FetchException e) {
            return REFUSALS.contains(e.kind()) ? new Refused(e.getMessage()) : new Failed(e.kind() + ": " + e.getMessage());
        }
        if (r.status() / 100 != 2) return new Failed("HTTP " + r.status());
        String html = CharsetDetector.decode(r.body(), CharsetDetector.detect(r.body(), r.header("Content-Type")));
        // the text the index holds for a page: its title and main content (HtmlMainContent), not its navigation
        Document page = Jsoup.parse(html, r.url());
        String title = page.title();
        return new Fetched(title + " " + HtmlMainContent.extract(page).text());
    }
}
