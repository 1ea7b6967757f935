package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The search page and the operator's console in a real headless Chromium (Debian's chromium + chromium-driver)
 * against a real peer with the Tarn corpus; skipped when /usr/bin/chromedriver is absent. Screenshots go to
 * docs/screenshots/.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest extends BrowserTest {
    static List<String> texts(String css, String attribute) {
        return browser.findElements(By.cssSelector(css)).stream().map(e -> e.getAttribute(attribute)).toList();
    }

    @Test
    @Order(1)
    void theSearchPageShowsStreamedResults() throws Exception {
        browser.get(peer.base() + "/?q=backup"); // four pages say it in their own text
        await().until(d -> "done".equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
        List<WebElement> results = browser.findElements(By.cssSelector("#results .result"));
        assertTrue(results.size() >= 4, "results shown: " + results.size());
        assertTrue(results.get(0).findElement(By.cssSelector(".snippet")).getAttribute("textContent").toLowerCase().contains("backup"));
        assertFalse(browser.findElements(By.cssSelector("#navigators .nav-host a")).isEmpty(), "host navigator");
        screenshot("search");
        // clicking a navigator narrows the query by its modifier and searches again
        WebElement host = browser.findElement(By.cssSelector("#navigators .nav-host a.navigator:not(.inert)"));
        String modifier = host.getAttribute("data-modifier");
        WebElement firstBefore = results.get(0);
        host.click();
        await().until(ExpectedConditions.stalenessOf(firstBefore));
        await().until(d -> "done".equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
        assertTrue(browser.findElement(By.id("q")).getAttribute("value").contains(modifier), modifier);
        String site = modifier.replace("site:", "");
        List<String> hrefs = texts("#results .result .title", "href");
        assertFalse(hrefs.isEmpty(), "results after the navigator click");
        for (String h : hrefs) assertTrue(h.contains(site), h + " is not on " + site);
        browser.get(peer.base() + "/search.html?q=backup");
        await().until(ExpectedConditions.numberOfElementsToBeMoreThan(By.cssSelector(".w-result"), 0));
        screenshot("widget");
    }

    @Test
    @Order(2)
    void theDashboardShowsTheIndexCounts() throws Exception {
        browser.get(peer.base() + "/admin/#dashboard");
        WebElement docs = await().until(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector(".card[data-key=documents] .v")));
        assertEquals(String.valueOf(peer.corpus.urls().size()), docs.getText());
        for (String card : List.of("disk", "queries/min", "heap", "replication backlog", "pages/min")) {
            assertFalse(browser.findElements(By.cssSelector(".card[data-key='" + card + "'] .v")).isEmpty(), card);
        }
        assertTrue(browser.findElement(By.cssSelector(".card[data-key=disk] .v")).getText().matches("[0-9.]+ (KiB|MiB|GiB)"),
                "disk used by the data dir");
        screenshot("admin-dashboard");
    }

    @Test
    @Order(3)
    void movingARankingSliderChangesThePreviewOrderWithoutSavingUntilAsked() throws Exception {
        String saved = peer.get("/api/ranking").body();
        try {
            browser.get(peer.base() + "/admin/#ranking");
            await().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#sliders input[data-factor=title]")));
            browser.findElement(By.id("preview-q")).sendKeys("backup"); // four pages say it in their own text
            browser.findElement(By.cssSelector("#preview-form button")).click();
            await().until(d -> d.findElements(By.cssSelector("#preview .preview-item")).size() >= 4);
            List<String> before = texts("#preview .preview-item", "data-url");
            // drag the "title" slider to its minimum (as a user's drag does: value, then input events): the page
            // with the word in its title falls (scores no longer stretch each factor over the candidates, so the
            // few characters between these URLs' lengths would not move a "short URLs" drag's order)
            WebElement slider = browser.findElement(By.cssSelector("#sliders input[data-factor=title]"));
            ((JavascriptExecutor) browser).executeScript("arguments[0].value = arguments[0].min;"
                    + "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));", slider);
            await().until(d -> !texts("#preview .preview-item", "data-url").equals(before)
                    && "done".equals(d.findElement(By.tagName("body")).getAttribute("data-preview")));
            List<String> after = texts("#preview .preview-item", "data-url");
            assertNotEquals(before, after);
            assertNotEquals(before.get(0), after.get(0), "the title match is no longer first: " + before + " -> " + after);
            assertEquals(saved, peer.get("/api/ranking").body(), "a slider alone saves nothing");
            assertEquals("true", browser.findElement(By.tagName("body")).getAttribute("data-ranking-unsaved"));
            assertFalse(browser.findElements(By.cssSelector("#preview .preview-item .factor[data-factor=title]")).isEmpty(),
                    "a result says what the title factor did to it");
            screenshot("admin-ranking");
            browser.findElement(By.id("ranking-save")).click();
            await().until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "active profile"));
            assertTrue(peer.get("/api/ranking").body().contains("\"title\":-20.0"), "saved when asked");
            assertEquals("false", browser.findElement(By.tagName("body")).getAttribute("data-ranking-unsaved"));
        } finally {
            peer.send("PUT", "/api/ranking", saved);
        }
    }

    @Test
    @Order(4)
    void aBlacklistRuleAddedInTheConsoleHidesAResult() throws Exception {
        try {
            browser.get(peer.base() + "/?q=replication");
            await().until(d -> "done".equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
            String victim = browser.findElements(By.cssSelector("#results .result .title")).get(0).getAttribute("href");

            browser.get(peer.base() + "/admin/#blacklist");
            await().until(ExpectedConditions.visibilityOfElementLocated(By.id("rule-host")));
            String path = victim.substring(victim.indexOf("/tarn/") + 1).replace(".", "\\.");
            browser.findElement(By.id("rule-host")).sendKeys("127\\.0\\.0\\.1");
            browser.findElement(By.id("rule-path")).sendKeys(path);
            browser.findElement(By.id("rule-add")).click();
            await().until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#rules tr.rule"), 1));
            browser.findElement(By.id("test-url")).sendKeys(victim);
            browser.findElement(By.cssSelector("#test-form button")).click();
            await().until(d -> "true".equals(d.findElement(By.id("test-result")).getAttribute("data-blocked")));
            assertTrue(browser.findElement(By.id("test-result")).getText().contains("search"));
            screenshot("admin-blacklist");

            browser.get(peer.base() + "/?q=replication");
            await().until(d -> "done".equals(d.findElement(By.tagName("body")).getAttribute("data-state")));
            List<String> shown = texts("#results .result .title", "href");
            assertFalse(shown.isEmpty());
            assertFalse(shown.contains(victim), victim + " still shown: " + shown);
        } finally {
            peer.send("PUT", "/api/blacklist", "{\"rules\":[]}");
        }
    }

    @Test
    @Order(5)
    void theIndexBrowserFindsAndDeletesADocument() throws Exception {
        browser.get(peer.base() + "/admin/#index");
        await().until(ExpectedConditions.visibilityOfElementLocated(By.id("word")));
        browser.findElement(By.id("word")).sendKeys("tarn_dump");
        browser.findElement(By.cssSelector("#word-form button")).click();
        WebElement link = await().until(ExpectedConditions.presenceOfElementLocated(
                By.xpath("//table[@id='postings']//tr[contains(., 'backup.html')]//a[@data-open]")));
        String hash = link.getAttribute("data-open");
        link.click();
        await().until(ExpectedConditions.visibilityOfElementLocated(By.id("url-detail")));
        assertTrue(browser.findElement(By.id("url-meta")).getText().contains("backup.html"));
        WebElement title = browser.findElement(By.cssSelector("#url-edit input[name=title]"));
        title.clear();
        title.sendKeys("Backups, edited in the console");
        browser.findElement(By.id("url-save")).click();
        await().until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "Saved the metadata of " + hash));
        await().until(ExpectedConditions.textToBePresentInElementLocated(By.id("url-title"), "edited in the console"));
        boolean shown = false;
        for (var r : peer.search("tarn_dump", null).get("results")) {
            if (r.get("urlHash").asText().equals(hash)) shown = r.get("title").asText().equals("Backups, edited in the console");
        }
        assertTrue(shown, "the search result shows the edited title");
        screenshot("admin-index");
        browser.findElement(By.id("url-delete")).click();
        await().until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "Deleted " + hash));
        var after = Json.MAPPER.readTree(peer.get("/api/index/url/" + hash).body());
        assertTrue(after.get("metadata").isNull(), "only the history is left: " + after);
        assertEquals("deleted", after.get("history").get(after.get("history").size() - 1).get("event").asText());
        assertFalse(SearchApiTest.urls(peer.search("tarn_dump", null)).stream().anyMatch(u -> u.endsWith("/backup.html")));
    }

    @Test
    @Order(8)
    void settingsSavedInTheConsoleApplyToSuggestionsAndCrawlDefaultsAndSayWhatNeedsARestart() throws Exception {
        try {
            browser.get(peer.base() + "/admin/#settings");
            await().until(d -> "loaded".equals(d.findElement(By.tagName("body")).getAttribute("data-settings")));
            WebElement form = browser.findElement(By.id("settings-form"));
            WebElement depth = form.findElement(By.name("depth"));
            depth.clear();
            depth.sendKeys("1");
            WebElement buffer = form.findElement(By.name("writeBufferBytes"));
            buffer.clear();
            buffer.sendKeys("16");
            form.findElement(By.name("words")).sendKeys("zyzzyva\nzymurgy");
            browser.findElement(By.id("settings-save")).click();
            await().until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "Settings saved"));
            await().until(ExpectedConditions.textToBePresentInElementLocated(By.id("settings-restart"), "memory.writeBufferBytes"));
            browser.findElement(By.id("suggest-q")).sendKeys("zy");
            await().until(d -> texts("#suggest-list li.suggestion", "textContent").containsAll(List.of("zyzzyva", "zymurgy")));
            browser.manage().window().setSize(new Dimension(1280, 1500)); // the whole page in one picture
            try {
                screenshot("admin-settings");
            } finally {
                browser.manage().window().setSize(new Dimension(1280, 900));
            }
            // a bad value is refused with the reason
            depth.clear();
            depth.sendKeys("5000");
            ((JavascriptExecutor) browser).executeScript("document.getElementById('settings-form').noValidate = true;");
            browser.findElement(By.id("settings-save")).click();
            await().until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "crawl.depth"));
            assertTrue(browser.findElement(By.id("flash")).getAttribute("class").contains("error"));

            browser.get(peer.base() + "/admin/#crawl");
            await().until(d -> "1".equals(d.findElement(By.cssSelector("#crawl-start input[name=depth]")).getAttribute("placeholder")));
        } finally {
            peer.send("PUT", "/api/settings", "{\"crawl\":{\"depth\":3},\"suggestions\":{\"words\":[]},"
                    + "\"memory\":{\"writeBufferBytes\":8388608}}");
        }
    }

    static org.peerdex.node.PeerNode peerAt(Path data, String more) {
        return org.peerdex.node.PeerNode.start(com.typesafe.config.ConfigFactory.parseString(
                "peerdex.data-dir = \"" + data.toString().replace("\\", "/") + "\"\n"
                        + "peerdex.http.port = 0\npeerdex.cluster.port = 0\n" + more)
                .withFallback(com.typesafe.config.ConfigFactory.load()).resolve());
    }

    @Test
    @Order(6)
    void aCrawlStartedInTheConsoleShowsItsProgressToTheEnd() throws Exception {
        Path data = Files.createTempDirectory("peerdex-console-crawl");
        try (org.peerdex.node.PeerNode crawler = peerAt(data, "peerdex.crawler.allow-loopback = on\n"
                + "peerdex.indexer.flush-interval = 20ms\n")) {
            browser.get(crawler.baseUrl() + "/admin/#crawl");
            WebElement form = await().until(ExpectedConditions.visibilityOfElementLocated(By.id("crawl-start")));
            form.findElement(By.name("url")).sendKeys(peer.siteBase + "index.html");
            WebElement delay = form.findElement(By.name("minDelayMs"));
            delay.clear();
            delay.sendKeys("0");
            form.findElement(By.cssSelector("button[type=submit]")).click();
            await().until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "started"));
            int pages = peer.corpus.urls().size();
            await(Duration.ofSeconds(40)).until(d -> {
                List<WebElement> rows = d.findElements(By.cssSelector("#crawl-table tbody tr.crawl"));
                return rows.size() == 1 && rows.get(0).findElement(By.cssSelector("td.state")).getText().equals("finished")
                        && rows.get(0).findElement(By.cssSelector("td.indexed")).getText().equals(String.valueOf(pages));
            });
            screenshot("admin-crawl");
            assertEquals(pages, crawler.context().storage().stats().documents());
        } finally {
            try (var s = Files.walk(data)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    @Test
    @Order(7)
    void theNetworkPageDrawsThreePeersOnTheRing() throws Exception {
        List<Path> dirs = new java.util.ArrayList<>();
        List<org.peerdex.node.PeerNode> nodes = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Path d = Files.createTempDirectory("peerdex-console-ring");
                dirs.add(d);
                String seeds = nodes.isEmpty() ? "" : "peerdex.cluster.seeds = [\"127.0.0.1:"
                        + nodes.get(0).clusterAddress().port().get() + "\"]\n";
                // the second peer is passive: a member that holds no ranges of others
                nodes.add(peerAt(d, seeds + (i == 1 ? "peerdex.dht.accept-remote-index = false\n" : "")));
            }
            browser.get(nodes.get(2).baseUrl() + "/admin/#network");
            await(Duration.ofSeconds(40)).until(d ->
                    d.findElements(By.cssSelector("#ring circle.peer")).size() == 3
                            && d.findElements(By.cssSelector("#peers tr.peer-row")).size() == 3);
            assertEquals(1, browser.findElements(By.cssSelector("#ring circle.peer.self")).size());
            await().until(d -> d.findElements(By.cssSelector("#ring circle.peer.passive")).size() == 1
                    && d.findElements(By.cssSelector("#peers tr.peer-row.passive")).size() == 1);
            // pages indexed on the viewed peer are replicated to the other active peer: live traffic on the ring
            String other = nodes.get(0).peerId().value();
            var indexed = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(nodes.get(2).baseUrl() + "/api/index/manual")).POST(
                    java.net.http.HttpRequest.BodyPublishers.noBody()).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, indexed.statusCode(), indexed.body());
            await(Duration.ofSeconds(40))
                    .until(d -> !d.findElements(By.cssSelector("#ring line.traffic.live[data-peer='" + other + "']")).isEmpty());
            screenshot("admin-network");
            // the table is re-rendered on every poll: the read is retried while it is stale
            await().until(d -> Long.parseLong(d.findElement(By.xpath("//table[@id='peers']//tr[contains(., '" + other
                    + "')]/td[contains(@class,'sent')]")).getAttribute("data-messages")) > 0);
            browser.findElement(By.id("ring-word")).sendKeys("replication");
            browser.findElement(By.cssSelector("#ring-word-form button")).click();
            await().until(d -> d.findElements(By.cssSelector("#ring line.partition")).size() == 16
                    && d.findElements(By.cssSelector("#word-partitions tr.word-partition")).size() == 16);
            String mirrors = browser.findElement(By.cssSelector("#word-partitions tr.word-partition td:nth-child(4)")).getText();
            assertEquals(1, mirrors.split(", ").length, "primary + 1 mirror among 2 active peers: " + mirrors);
            assertFalse(mirrors.contains(nodes.get(1).peerId().value()), "the passive peer holds nothing");
        } finally {
            for (org.peerdex.node.PeerNode n : nodes) n.close();
            for (Path d : dirs) {
                try (var s = Files.walk(d)) {
                    s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        }
    }
}
