package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The federated sources panel (admin/federation.html, admin/federation.js) in headless Chromium: add a source, try
 * a query against it, disable it, remove it; each step checked over the API. The source is the peer's own
 * yacysearch.json (the federation header keeps it from federating again). Skipped without chromedriver.
 */
class FederationBrowserTest extends BrowserTest {
    JsonNode sources() throws Exception {
        return Json.MAPPER.readTree(peer.get("/api/federation").body()).get("sources");
    }

    @Test
    void aSourceAddedInThePanelAnswersATriedQueryAndCanBeDisabledAndRemoved() throws Exception {
        browser.get(peer.base() + "/admin/federation.html");
        await().until(d -> !d.findElements(By.cssSelector("form.fed-add")).isEmpty());
        WebElement form = browser.findElement(By.cssSelector("form.fed-add"));
        form.findElement(By.name("name")).sendKeys("self");
        form.findElement(By.name("url")).sendKeys(peer.base()
                + "/yacysearch.json?query={query}&maximumRecords={count}&resource=local");
        form.findElement(By.cssSelector("button[type=submit]")).click();
        await().until(d -> !d.findElements(By.cssSelector(".fed-source[data-name=self]")).isEmpty());
        assertEquals("self", sources().get(0).get("name").asText());
        assertTrue(sources().get(0).get("enabled").asBoolean());

        WebElement tryForm = browser.findElement(By.cssSelector("form.fed-try"));
        tryForm.findElement(By.name("q")).sendKeys("replication");
        tryForm.findElement(By.cssSelector("button[type=submit]")).click();
        await().until(d -> !d.findElements(By.cssSelector(".fed-status[data-status=answered]")).isEmpty());
        String row = browser.findElement(By.cssSelector(".fed-status[data-status=answered]")).getText();
        assertTrue(row.startsWith("self answered"), row);
        chromium.screenshot("federation");

        // the panel renders its list again after each change: a row found before may be gone by the click
        clickFresh(By.cssSelector(".fed-source[data-name=self] input[type=checkbox]"));
        await().until(d -> {
            try {
                return !sources().get(0).get("enabled").asBoolean();
            } catch (Exception e) {
                return false;
            }
        });
        clickFresh(By.cssSelector(".fed-source[data-name=self] button[data-remove]"));
        await().until(d -> d.findElements(By.cssSelector(".fed-source")).isEmpty());
        assertFalse(sources().elements().hasNext(), sources().toString());
    }

    /** Clicks the element as the page shows it now, finding it again if the panel re-rendered it meanwhile. */
    private void clickFresh(By by) {
        await().until(d -> {
            try {
                d.findElement(by).click();
                return true;
            } catch (org.openqa.selenium.StaleElementReferenceException e) {
                return false;
            }
        });
    }
}
