package org.peerdex.protocol.url;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.UrlHash;

class UrlClaimTest {
    private static final UrlHash GOOD = UrlHash.of("https://example.org/docs/page.html");

    @Test
    void anHttpUrlThatHashesToItsHashIsAccepted() {
        assertEquals(Optional.empty(), UrlClaim.problem("https://example.org/docs/page.html", GOOD));
        // a URL given in another form than the normal one: its normal form hashes to the claim
        assertEquals(Optional.empty(), UrlClaim.problem("HTTPS://Example.org:443/docs/./page.html", GOOD));
        assertEquals(Optional.empty(), UrlClaim.problem("http://x.test", UrlHash.of("http://x.test/")));
    }

    @Test
    void scriptAndOtherSchemesAreRefusedWhateverHashTheyClaim() {
        for (String url : List.of("javascript:alert(1)", "JavaScript:alert(document.cookie)", "data:text/html,<script>x</script>",
                "vbscript:msgbox", "file:///etc/passwd", "ftp://example.org/", "//example.org/", "/relative/path",
                " javascript:alert(1)", "java\tscript:alert(1)", "http:alert(1)", "https:///nohost", "http://")) {
            assertTrue(UrlClaim.problem(url, GOOD).isPresent(), url);
        }
    }

    @Test
    void aUrlWithControlCharactersOrSpacesIsRefused() {
        assertTrue(UrlClaim.problem("https://example.org/docs/page.html\n", GOOD).isPresent());
        assertTrue(UrlClaim.problem("https://example.org/a b", UrlHash.of("https://example.org/a%20b")).isPresent());
        assertTrue(UrlClaim.problem("https://example.org/\u0000", GOOD).isPresent());
    }

    @Test
    void aUrlThatHashesToAnotherHashIsRefused() {
        Optional<String> p = UrlClaim.problem("https://evil.example/", GOOD);
        assertTrue(p.isPresent());
        assertTrue(p.get().contains("does not hash"), p.get());
        assertTrue(UrlClaim.problem("https://example.org/docs/page.html", null).isPresent());
    }

    @Test
    void overlongAndUnparsableUrlsAreRefused() {
        assertTrue(UrlClaim.problem("https://example.org/" + "a".repeat(5000), GOOD).isPresent());
        assertTrue(UrlClaim.problem("https://exa mple.org/", GOOD).isPresent());
        assertTrue(UrlClaim.problem("https://example.org/%%zz", GOOD).isPresent());
        assertTrue(UrlClaim.problem("", GOOD).isPresent());
        assertTrue(UrlClaim.problem(null, GOOD).isPresent());
    }
}
