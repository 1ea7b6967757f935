package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The search page in a real headless Chromium against a real peer (the Tarn corpus plus 62 documents about
 * quokkas indexed through {@code /api/index/document}): paging over the API's offset, navigator counts that say
 * what they cover, completions from {@code /suggest.json}, stop-word queries marked as one run, and values from
 * indexed pages rendered as text. Skipped when /usr/bin/chromedriver is absent.
 */
class SearchPageBrowserTest extends BrowserTest {
    static final int NOTES = 57;
    static final String MARKUP_TITLE = "<img src=x onerror=\"document.body.dataset.pwned=1\">Quokka markup";

    @BeforeAll
    static void indexQuokkas() throws Exception {
        for (int i = 0; i < NOTES; i++) {
            index("http://h" + (i % 3) + ".example/notes/quokka-" + i + ".html", "Quokka note " + i + " — zoo keepers",
                    "Observation " + i + " of the quokka colony: weight, mood and the weather that day.");
        }
        for (String place : List.of("Island", "Mainland", "Harbour")) {
            index("http://zoo.example/feeding-" + place.toLowerCase() + ".html",
                    "Quokka feeding schedule — " + place + " zoo handbook",
                    "When the quokka gets leaves and pellets at the " + place + " zoo.");
        }
        index("http://zoo.example/markup.html", MARKUP_TITLE,
                "A page whose text shows <script>document.body.dataset.pwned=2</script> markup about the quokka.");
        index("http://zoo.example/hamlet.html", "Hamlet at the zoo",
                "The keeper asked the quokka: to be or not to be, that is the question of the day.");
    }

    private static void index(String url, String title, String text) throws Exception {
        var r = peer.send("POST", "/api/index/document", Json.write(Map.of("url", url, "title", title, "text", text)));
        assertEquals(200, r.statusCode(), r.body());
    }

    private static void awaitDone() {
        await().until(d -> "done".equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
    }

    private static List<String> resultUrls() {
        return browser.findElements(By.cssSelector("#results .result .title")).stream()
                .map(e -> e.getAttribute("href")).toList();
    }

    private static String range() {
        return browser.findElement(By.cssSelector("#pager .range")).getAttribute("textContent");
    }

    private static void clickPager(String rel) {
        WebElement first = browser.findElement(By.cssSelector("#results .result"));
        browser.findElement(By.cssSelector("#pager a." + rel)).click();
        await().until(ExpectedConditions.stalenessOf(first));
        awaitDone();
    }

    @Test
    void nextAndPreviousWalkThroughEveryMatchTwentyAtATime() throws Exception {
        browser.get(peer.base() + "/?q=quokka");
        awaitDone();
        int total = 62;
        assertEquals(20, resultUrls().size());
        assertEquals("Results 1–20 of " + total, range());
        assertTrue(browser.findElements(By.cssSelector("#pager a.prev")).isEmpty(), "no previous page on the first");
        Set<String> seen = new HashSet<>(resultUrls());
        List<String> ranges = new ArrayList<>();
        for (int page = 2; page <= 4; page++) {
            clickPager("next");
            ranges.add(range());
            assertTrue(browser.getCurrentUrl().contains("offset=" + (page - 1) * 20), browser.getCurrentUrl());
            for (String u : resultUrls()) assertTrue(seen.add(u), u + " was on an earlier page");
        }
        assertEquals(List.of("Results 21–40 of 62", "Results 41–60 of 62", "Results 61–62 of 62"), ranges);
        assertEquals(total, seen.size(), "every match was on one page");
        assertTrue(browser.findElements(By.cssSelector("#pager a.next")).isEmpty(), "no next page after the last");
        screenshot("search-paging");
        clickPager("prev");
        assertEquals("Results 41–60 of 62", range());
        // an address with an offset opens that page
        browser.get(peer.base() + "/?q=quokka&offset=20");
        awaitDone();
        assertEquals("Results 21–40 of 62", range());
    }

    @Test
    void navigatorCountsSayTheyCoverOnlyTheBestResults() throws Exception {
        browser.get(peer.base() + "/?q=quokka");
        awaitDone();
        assertEquals("counts over the top 50 of 62 results", browser.findElement(By.id("nav-note")).getText());
        int hosts = 0;
        for (WebElement c : browser.findElements(By.cssSelector("#navigators .nav-host .count"))) {
            hosts += Integer.parseInt(c.getText());
        }
        assertEquals(50, hosts, "the host counts add up to the results they cover");
        browser.get(peer.base() + "/?q=" + SearchTestPeer.enc("feeding schedule"));
        awaitDone();
        assertTrue(browser.findElements(By.id("nav-note")).isEmpty(), "3 results: the counts cover them all");
    }

    @Test
    void theSearchBoxCompletesWordsAndPhrasesFromSuggestJson() throws Exception {
        browser.get(peer.base() + "/");
        WebElement q = browser.findElement(By.id("q"));
        q.sendKeys("quokka feeding s");
        await().until(d -> texts("#suggest li.suggestion").contains("quokka feeding schedule"));
        for (String s : texts("#suggest li.suggestion")) {
            assertFalse(s.contains("handbook") && s.contains("schedule"), "a whole title offered: " + s);
            assertFalse(s.contains("—"), s);
        }
        screenshot("search-suggest");
        q.sendKeys(Keys.ARROW_DOWN);
        WebElement active = browser.findElement(By.cssSelector("#suggest li.active"));
        String chosen = active.getText();
        q.sendKeys(Keys.ENTER);
        awaitDone();
        assertEquals(chosen, browser.findElement(By.id("q")).getAttribute("value"));
        assertTrue(browser.findElement(By.id("suggest")).getAttribute("hidden") != null, "the list closes");
        assertFalse(resultUrls().isEmpty());
    }

    @Test
    void titlesAndSnippetsOfIndexedPagesAreShownAsTextNeverAsMarkup() throws Exception {
        browser.get(peer.base() + "/?q=" + SearchTestPeer.enc("quokka markup"));
        awaitDone();
        WebElement title = browser.findElement(By.cssSelector("#results .result .title"));
        // textContent: the result may still be fading in, and a transparent element has no visible text yet
        assertEquals(MARKUP_TITLE, title.getAttribute("textContent"));
        assertTrue(browser.findElements(By.cssSelector("#results img, #results script")).isEmpty());
        assertTrue(browser.findElement(By.cssSelector("#results .snippet")).getAttribute("textContent").contains("<script>"));
        assertNull(browser.findElement(By.tagName("body")).getAttribute("data-pwned"));
        // and so are completions made from such a title
        WebElement q = browser.findElement(By.id("q"));
        q.clear();
        q.sendKeys("mark");
        await().until(d -> !texts("#suggest li.suggestion").isEmpty());
        assertTrue(browser.findElements(By.cssSelector("#suggest img")).isEmpty());
    }

    @Test
    void aQueryOfFunctionWordsIsOnePhraseMarkedAsOneRun() throws Exception {
        browser.get(peer.base() + "/?q=" + SearchTestPeer.enc("to be or not to be"));
        awaitDone();
        assertEquals(List.of("http://zoo.example/hamlet.html"), resultUrls());
        assertEquals(List.of("to be or not to be"), texts("#results .snippet b"));
        browser.get(peer.base() + "/?q=" + SearchTestPeer.enc("the of and a to"));
        awaitDone();
        assertTrue(resultUrls().isEmpty(), "no page holds these words in this order");
        browser.get(peer.base() + "/?q=" + SearchTestPeer.enc("the quokka colony"));
        awaitDone();
        List<String> marked = texts("#results .snippet b");
        assertFalse(marked.isEmpty());
        for (String b : marked) assertFalse(b.equalsIgnoreCase("the") || b.equalsIgnoreCase("of"), "marked: " + marked);
    }

    static List<String> texts(String css) {
        return browser.findElements(By.cssSelector(css)).stream().map(e -> e.getAttribute("textContent")).toList();
    }
}
