package org.peerdex.node.http;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through chromedriver, for the browser tests; the test is skipped when
 * {@code /usr/bin/chromedriver} is absent. Waits retry stale reads, since the console re-renders its tables while
 * it polls.
 */
final class HeadlessBrowser implements AutoCloseable {
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    private final WebDriver driver;

    private HeadlessBrowser(WebDriver driver) {
        this.driver = driver;
    }

    /** Starts a 1280×900 headless Chromium, or skips the calling test when there is no chromedriver. */
    static HeadlessBrowser startOrSkip() {
        Assumptions.assumeTrue(Files.isExecutable(DRIVER), "no /usr/bin/chromedriver: install chromium and "
                + "chromium-driver (scripts/install-test-deps.sh) to run the browser tests");
        ChromeOptions options = new ChromeOptions();
        if (Files.isExecutable(Path.of("/usr/bin/chromium"))) options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,900", "--no-first-run", "--disable-extensions");
        WebDriver driver = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort().build(), options);
        driver.manage().window().setSize(new Dimension(1280, 900));
        return new HeadlessBrowser(driver);
    }

    WebDriver driver() {
        return driver;
    }

    WebDriverWait await(Duration timeout) {
        return (WebDriverWait) new WebDriverWait(driver, timeout).ignoring(StaleElementReferenceException.class);
    }

    /** Saves a screenshot as docs/screenshots/NAME.png of the repository (when the tests run inside it). */
    void screenshot(String name) throws java.io.IOException {
        Path docs = Path.of("..", "docs");
        if (!Files.isDirectory(docs)) return;
        Path dir = Files.createDirectories(docs.resolve("screenshots"));
        Files.copy(((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE).toPath(), dir.resolve(name + ".png"),
                StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
