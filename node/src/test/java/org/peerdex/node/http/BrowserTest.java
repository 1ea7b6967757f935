package org.peerdex.node.http;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/** Base of the browser tests: a {@link TarnPeerTest} with a {@link HeadlessBrowser} per class. */
abstract class BrowserTest extends TarnPeerTest {
    static HeadlessBrowser chromium;
    static WebDriver browser;

    @BeforeAll
    static void startBrowser() {
        chromium = HeadlessBrowser.startOrSkip();
        browser = chromium.driver();
    }

    @AfterAll
    static void stopBrowser() {
        if (chromium != null) chromium.close();
        chromium = null;
    }

    static WebDriverWait await() {
        return await(Duration.ofSeconds(15));
    }

    static WebDriverWait await(Duration timeout) {
        return chromium.await(timeout);
    }

    static void screenshot(String name) throws Exception {
        chromium.screenshot(name);
    }
}
