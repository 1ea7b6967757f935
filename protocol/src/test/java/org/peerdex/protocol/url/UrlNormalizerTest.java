package org.peerdex.protocol.url;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class UrlNormalizerTest {

    private static void normalizes(String in, String expected) {
        assertEquals(Optional.of(expected), UrlNormalizer.normalize(in), in);
    }

    private static void rejects(String in) {
        assertEquals(Optional.empty(), UrlNormalizer.normalize(in), in);
    }

    @Test
    void lowerCasesSchemeAndHostAndDropsTheDefaultPortAndFragment() {
        normalizes("HTTP://Example.COM:80/Path/Page.html#section", "http://example.com/Path/Page.html");
        normalizes("https://example.com:443/", "https://example.com/");
    }

    @Test
    void keepsAPortThatIsNotTheDefault() {
        normalizes("http://example.com:8080/x", "http://example.com:8080/x");
    }

    @Test
    void resolvesDotSegments() {
        normalizes("http://example.com/a/./b/../c.html", "http://example.com/a/c.html");
    }

    @Test
    void givesAnEmptyPathTheRootSlash() {
        normalizes("https://example.com", "https://example.com/");
    }

    @Test
    void turnsInternationalHostNamesIntoPunycode() {
        normalizes("http://bücher.de/", "http://xn--bcher-kva.de/");
    }

    @Test
    void keepsTheQueryWithItsParametersSorted() {
        // BasicURLNormalizer sorts parameters, so one page reached with parameters in another order is one URL
        normalizes("http://example.com/search?q=a&lang=en", "http://example.com/search?lang=en&q=a");
        normalizes("http://example.com/search?lang=en&q=a", "http://example.com/search?lang=en&q=a");
    }

    @Test
    void rejectsWhatIsNotAnAbsoluteHttpUrl() {
        rejects(null);
        rejects("");
        rejects("   ");
        rejects("ftp://example.com/file");
        rejects("mailto:someone@example.com");
        rejects("/relative/path");
        rejects("http://");
        rejects("http://" + "a".repeat(5000) + ".com/");
    }

    @Test
    void resolvesRelativeLinksAgainstTheirPage() {
        assertEquals(Optional.of("http://example.com/docs/z.html"),
                UrlNormalizer.resolve("http://example.com/docs/x/y.html", "../z.html"));
        assertEquals(Optional.of("https://other.org/"), UrlNormalizer.resolve("http://example.com/", "https://other.org"));
        assertEquals(Optional.of("http://example.com/a%20b.html"),
                UrlNormalizer.resolve("http://example.com/", "a b.html"));
        assertEquals(Optional.empty(), UrlNormalizer.resolve("http://example.com/", "javascript:void(0)"));
        assertEquals(Optional.empty(), UrlNormalizer.resolve("http://example.com/", "mailto:x@example.com"));
        assertEquals(Optional.empty(), UrlNormalizer.resolve("http://example.com/", null));
    }
}
