package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The page a result's "metadata & history" link opens ({@code /url.html?hash=}), in headless Chromium against a real
 * peer: metadata, history and postings as text (a page's markup never runs), and the admin's edit and delete.
 */
class UrlPageBrowserTest extends BrowserTest {
    static final String MARKUP_TITLE = "<img src=x onerror=\"document.body.dataset.pwned=1\">Zebrafinch markup";

    private static String text(String css) {
        return browser.findElement(By.cssSelector(css)).getAttribute("textContent");
    }

    private static void awaitState(String state) {
        await().until(d -> state.equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
    }

    private static List<String> postingWords() {
        return browser.findElements(By.cssSelector("#postings tbody tr td:first-child"))
                .stream().map(e -> e.getAttribute("textContent")).toList();
    }

    @Test
    void theResultLinkOpensAPageWithMetadataHistoryAndPostings() throws Exception {
        browser.get(peer.base() + "/?q=backup");
        await().until(d -> "done".equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
        WebElement first = browser.findElement(By.cssSelector("#results .result"));
        String url = first.findElement(By.cssSelector(".title")).getAttribute("href");
        first.findElement(By.linkText("metadata & history")).click();
        awaitState("done");
        assertTrue(browser.getCurrentUrl().startsWith(peer.base() + "/url.html?hash="), browser.getCurrentUrl());
        assertEquals(url, browser.findElement(By.cssSelector("#link a")).getAttribute("href"));
        assertTrue(text("#meta").contains("text/html"), text("#meta"));
        assertTrue(text("#history").contains("indexed"), text("#history"));
        List<String> words = postingWords();
        assertTrue(words.contains("backup"), words.toString());
        // a word links to a search for it
        WebElement backup = browser.findElement(By.linkText("backup"));
        assertEquals(peer.base() + "/?q=backup", backup.getAttribute("href"));
        // the page is served under the peer's policy, which its scripts obeyed to get here
        HttpResponse<String> raw = peer.get("/url.html?hash=x");
        assertTrue(raw.headers().firstValue("Content-Security-Policy").orElse("").contains("script-src 'self'"));
        screenshot("url-page");
    }

    @Test
    void markupFromAPageIsShownAsTextAndTheAdminCanEditAndDelete() throws Exception {
        var r = peer.send("POST", "/api/index/document", Json.write(Map.of("url", "http://zoo.example/finch.html",
                "title", MARKUP_TITLE, "text", "The zebrafinch sings <script>document.body.dataset.pwned=2</script>"
                        + " at dawn; the zebrafinch is small.")));
        assertEquals(200, r.statusCode(), r.body());
        String hash = Json.MAPPER.readTree(r.body()).get("urlHash").asText();
        browser.get(peer.base() + "/url.html?hash=" + hash);
        awaitState("done");
        assertEquals(MARKUP_TITLE, text("#title"));
        assertTrue(browser.findElements(By.cssSelector("#url-page img, #url-page script")).isEmpty(),
                "no element from the page's markup");
        assertNull(browser.findElement(By.tagName("body")).getAttribute("data-pwned"));
        List<String> words = postingWords();
        assertTrue(words.contains("zebrafinch"), words.toString());
        assertTrue(text("#history").contains("POST /api/index/document"), text("#history"));

        // loopback is admin in this test peer: edit, then delete with two clicks
        WebElement admin = browser.findElement(By.id("admin"));
        assertTrue(admin.isDisplayed());
        WebElement title = browser.findElement(By.cssSelector("#edit input[name=title]"));
        title.clear();
        title.sendKeys("Zebrafinch, renamed");
        browser.findElement(By.cssSelector("#edit button[type=submit]")).click();
        await().until(d -> "Zebrafinch, renamed".equals(text("#title")));
        assertEquals("Zebrafinch, renamed",
                Json.MAPPER.readTree(peer.get("/api/index/url/" + hash).body()).get("metadata").get("title").asText());

        WebElement delete = browser.findElement(By.id("delete"));
        delete.click();
        assertTrue(delete.getText().startsWith("Click again"), delete.getText());
        assertEquals(200, peer.get("/api/index/url/" + hash).statusCode(), "one click deletes nothing");
        delete.click();
        awaitState("deleted");
        JsonNode after = Json.MAPPER.readTree(peer.get("/api/index/url/" + hash).body());
        assertTrue(after.get("metadata").isNull(), after.toString());
        assertEquals(0, after.get("words").asInt());
        assertEquals(0, peer.search("zebrafinch", "resource=local").get("total").asLong());
    }

    @Test
    void aBadHashSaysSoAndAnUnknownOneToo() throws Exception {
        browser.get(peer.base() + "/url.html?hash=%3Cb%3Ebold");
        awaitState("error");
        assertTrue(text("#error").contains("<b>bold"), text("#error"));
        assertTrue(browser.findElements(By.cssSelector("#error b")).isEmpty());
        browser.get(peer.base() + "/url.html?hash=AAAAAAAAAAAA");
        awaitState("error");
        assertTrue(text("#error").contains("no such URL"), text("#error"));
        assertFalse(browser.findElement(By.id("admin")).isDisplayed());
    }
}
