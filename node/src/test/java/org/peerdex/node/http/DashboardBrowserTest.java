package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.peerdex.actors.crawl.TestSite;

/**
 * The console's dashboard in headless Chromium against a real peer: pages/min and queries/min over the last hour as
 * SVG plots (from {@code /api/status/rates}), and the running crawls, each a link to its monitor.
 */
class DashboardBrowserTest extends BrowserTest {
    static final int SEARCHES = 7;
    static final int PAGES = 4;

    static TestSite slowTarn() throws IOException {
        TestSite site = new TestSite();
        site.fallback(path -> {
            try (InputStream in = DashboardBrowserTest.class.getResourceAsStream("/corpus/tarn"
                    + (path.equals("/") ? "/index.html" : path))) {
                return in == null ? null : new TestSite.Reply(200, Map.of("Content-Type", "text/html; charset=utf-8"),
                        in.readAllBytes(), false);
            } catch (IOException e) {
                return null;
            }
        });
        return site.responseDelay(1500);
    }

    private static String attr(String id, String name) {
        return browser.findElement(By.id(id)).getAttribute(name);
    }

    private static long total(String plot) {
        String t = attr(plot, "data-total");
        return t == null ? -1 : Long.parseLong(t);
    }

    @Test
    void plotsCountTheLastHourAndRunningCrawlsLinkToTheirMonitor() throws Exception {
        JsonNode before = Json.MAPPER.readTree(peer.get("/api/status/rates").body());
        assertEquals(60, before.get("queries").size());
        assertEquals(60, before.get("pages").size());
        long sum = 0;
        for (JsonNode n : before.get("queries")) sum += n.asLong();
        final long queriesBefore = sum;
        for (int i = 0; i < SEARCHES; i++) peer.search("backup " + i, "resource=local");

        try (TestSite site = slowTarn()) {
            var started = peer.send("POST", "/api/crawl", "{\"url\": \"" + site.url("/index.html")
                    + "\", \"minDelayMs\": 0, \"maxPages\": " + PAGES + ", \"depth\": 2}");
            assertEquals(200, started.statusCode(), started.body());
            String id = Json.MAPPER.readTree(started.body()).get("id").asText();

            browser.get(peer.base() + "/admin/#dashboard");
            // the queries of this test are in the plot (searches of other minutes count as well)
            await().until(d -> total("plot-queries") >= queriesBefore + SEARCHES);
            assertEquals("60", attr("plot-queries", "data-points"));
            assertEquals(1, browser.findElements(By.cssSelector("#plot-queries path.rate")).size());
            assertTrue(browser.findElement(By.cssSelector("#plot-queries path.rate")).getAttribute("d")
                    .matches("M[\\d.]+ [\\d.]+( L[\\d.]+ [\\d.]+){59}"), "60 points joined");

            // the running crawl is listed with a link that opens its monitor
            WebElement link = await().until(ExpectedConditions.visibilityOfElementLocated(
                    By.cssSelector("#active-crawls li.active-crawl[data-id='" + id + "'] a")));
            assertEquals(site.url("/index.html"), link.getText());
            screenshot("admin-dashboard-crawl");
            link.click();
            await().until(d -> id.equals(attr("crawl-monitor", "data-id")));
            assertTrue(browser.findElement(By.id("crawl-monitor")).isDisplayed());
            assertTrue(browser.getCurrentUrl().endsWith("#crawl/" + id), browser.getCurrentUrl());

            // once it is over: no running crawl, and its pages in the pages plot
            await(Duration.ofSeconds(40)).until(d -> "finished".equals(attr("crawl-monitor", "data-state")));
            browser.get(peer.base() + "/admin/#dashboard");
            await().until(d -> !d.findElements(By.cssSelector("#active-crawls li.muted")).isEmpty());
            await().until(d -> total("plot-pages") >= PAGES);
        }
    }
}
