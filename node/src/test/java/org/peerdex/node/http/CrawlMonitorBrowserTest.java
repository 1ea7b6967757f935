package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.peerdex.actors.crawl.TestSite;
import org.peerdex.node.PeerNode;

/**
 * The console's crawl monitor in a real headless Chromium, against a crawling peer and real HTTP on loopback: a
 * crawl of a port with nothing listening shows failed with its reason, a running crawl shows its requests on the
 * wire, host queues and a pages/min plot, the form clears after a submit and offers the phpBB preset and a sitemap
 * as start. Skipped without /usr/bin/chromedriver.
 */
class CrawlMonitorBrowserTest extends BrowserTest {
    private Path data;
    private PeerNode crawler;

    @BeforeEach
    void startCrawler() throws Exception {
        data = Files.createTempDirectory("peerdex-crawl-monitor");
        crawler = ConsoleBrowserTest.peerAt(data, "peerdex.crawler.allow-loopback = on\n"
                + "peerdex.indexer.flush-interval = 20ms\n");
    }

    @AfterEach
    void stopCrawler() throws Exception {
        crawler.close();
        try (var s = Files.walk(data)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    private WebElement form() {
        browser.get(crawler.baseUrl() + "/admin/#crawl");
        return await().until(ExpectedConditions.visibilityOfElementLocated(By.id("crawl-start")));
    }

    private void submit(WebElement form, String url, String delay) {
        form.findElement(By.name("url")).sendKeys(url);
        WebElement d = form.findElement(By.name("minDelayMs"));
        d.clear();
        d.sendKeys(delay);
        form.findElement(By.cssSelector("button[type=submit]")).click();
        await().until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "started"));
    }

    private static String cell(String css) {
        return browser.findElement(By.cssSelector(css)).getText();
    }

    @Test
    void aCrawlOfAPortWithNothingListeningShowsFailedWithTheReasonAndTheFormClears() throws Exception {
        WebElement form = form();
        String start = "http://127.0.0.1:" + closedPort() + "/";
        submit(form, start, "0");
        assertEquals("", form.findElement(By.name("url")).getAttribute("value"), "the form is cleared after the submit");
        assertEquals("", form.findElement(By.name("minDelayMs")).getAttribute("value"));
        await(Duration.ofSeconds(30)).until(d -> cell("#crawl-table tr.crawl td.state").startsWith("failed"));
        String state = cell("#crawl-table tr.crawl td.state");
        assertTrue(state.contains("host unreachable (connection refused)"), state);
        assertFalse(state.contains("robots"), state);
        assertEquals(start, cell("#crawl-table tr.crawl td.start"));
        assertFalse(cell("#crawl-table tr.crawl td.duration").isEmpty());
        // the crawl started from the form is the one monitored: its error breakdown names the reason
        await().until(d -> !d.findElements(By.cssSelector("#monitor-errors tr[data-reason='host-unreachable']")).isEmpty());
        assertEquals("1", cell("#monitor-errors tr[data-reason='host-unreachable'] td.count"));
        assertEquals("failed", browser.findElement(By.id("crawl-monitor")).getAttribute("data-state"));
        assertTrue(browser.findElements(By.cssSelector("#monitor-skipped tr[data-reason]")).isEmpty(), "nothing skipped");
    }

    @Test
    void aRunningCrawlShowsItsRequestsHostQueuesAndAPagesPerMinutePlot() throws Exception {
        try (TestSite site = tarnSite()) {
            // a request is on the wire nine tenths of the time, whenever the monitor polls (every 2 s)
            site.responseDelay(1000);
            WebElement form = form();
            String start = site.url("/index.html");
            form.findElement(By.name("maxPages")).sendKeys("6");
            submit(form, start, "100");
            await().until(d -> cell("#crawl-table tr.crawl td.start").equals(start));
            // while it runs: a URL on the wire, the host's queue with its delay, an ETA
            // (each read is retried: the monitor is redrawn every 2 s, and what is on the wire changes)
            await(Duration.ofSeconds(20)).until(d -> cell("#monitor-fetching li.fetching .url").startsWith(site.base()));
            await(Duration.ofSeconds(20)).until(d -> cell("#monitor-hosts tr.host td.delay").equals("100 ms")
                    && cell("#monitor-hosts tr.host td.site").equals(site.base()));
            await(Duration.ofSeconds(20)).until(d -> cell("#crawl-table tr.crawl td.eta").matches("\\d+ (s|min).*")
                    || !cell("#crawl-table tr.crawl td.state").equals("running"));
            browser.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 1500)); // the whole monitor
            try {
                screenshot("admin-crawl-monitor");
            } finally {
                browser.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 900));
            }
            await(Duration.ofSeconds(40)).until(d -> cell("#crawl-table tr.crawl td.state").equals("finished"));
            await().until(d -> Integer.parseInt(d.findElement(By.id("crawl-plot")).getAttribute("data-points")) >= 2);
            assertEquals(1, browser.findElements(By.cssSelector("#crawl-plot path.rate")).size());
            assertTrue(Integer.parseInt(browser.findElement(By.id("crawl-plot")).getAttribute("data-max")) > 0);
            assertEquals("", cell("#crawl-table tr.crawl td.eta"), "no ETA once finished");
            assertTrue(cell("#crawl-table tr.crawl td.duration").matches("\\d+ s"), cell("#crawl-table tr.crawl td.duration"));
            assertEquals("6", cell("#crawl-table tr.crawl td.indexed"));
            assertTrue(browser.findElements(By.cssSelector("#monitor-errors tr[data-reason]")).isEmpty());
        }
    }

    @Test
    void theFormOffersThePhpbbPresetAndASitemapAsStart() throws Exception {
        try (TestSite site = tarnSite()) {
            site.page("/sitemap.xml", n -> TestSite.Reply.of(200, Map.of("Content-Type", "application/xml"),
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
                            + "<url><loc>" + site.url("/faq.html") + "</loc></url>"
                            + "<url><loc>" + site.url("/backup.html") + "</loc></url></urlset>"));
            WebElement form = form();
            JsonNode preset = Json.MAPPER.readTree(peer.get("/api/import/profile/phpbb").body());
            new Select(form.findElement(By.name("preset"))).selectByValue("phpbb");
            await().until(d -> form.findElement(By.name("mustNotMatch")).getAttribute("value")
                    .equals(preset.get("mustNotMatch").asText()));
            assertEquals(preset.get("mustMatch").asText(), form.findElement(By.name("mustMatch")).getAttribute("value"));
            assertEquals("site", new Select(form.findElement(By.name("range"))).getFirstSelectedOption().getText());
            new Select(form.findElement(By.name("preset"))).selectByValue("");
            assertEquals("", form.findElement(By.name("mustNotMatch")).getAttribute("value"));

            new Select(form.findElement(By.name("startFrom"))).selectByValue("sitemap");
            assertTrue(form.findElement(By.name("url")).getAttribute("placeholder").endsWith("sitemap.xml"));
            WebElement depth = form.findElement(By.name("depth"));
            depth.sendKeys("0");
            submit(form, site.url("/sitemap.xml"), "0");
            assertEquals("pages", new Select(form.findElement(By.name("startFrom"))).getFirstSelectedOption()
                    .getAttribute("value"), "the form is reset");
            await(Duration.ofSeconds(30)).until(d -> cell("#crawl-table tr.crawl td.state").equals("finished"));
            assertEquals("2", cell("#crawl-table tr.crawl td.indexed"));
            assertEquals(List.of(1, 1, 0), List.of(site.count("/faq.html"), site.count("/backup.html"),
                    site.count("/index.html")));
        }
    }

    /** The Tarn corpus served by a site of this test's own (so that its responses can be slowed down). */
    private static TestSite tarnSite() throws Exception {
        TestSite site = new TestSite();
        site.fallback(path -> {
            try (java.io.InputStream in = CrawlMonitorBrowserTest.class.getResourceAsStream("/corpus/tarn"
                    + (path.equals("/") ? "/index.html" : path))) {
                return in == null ? null : new TestSite.Reply(200, Map.of("Content-Type", "text/html; charset=utf-8"),
                        in.readAllBytes(), false);
            } catch (java.io.IOException e) {
                return null;
            }
        });
        return site;
    }

    /** A loopback port that nothing listens on (bound once by the OS, then closed). */
    private static int closedPort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
