package org.peerdex.node.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The settings core: partial updates, validation messages, crawl defaults in a profile, the config overlay. */
class PeerSettingsTest {
    static Config config(Path dir) {
        return ConfigFactory.parseMap(Map.of("peerdex.data-dir", dir.toString())).withFallback(ConfigFactory.load()).resolve();
    }

    @Test
    void aPartialUpdateKeepsWhatItLeavesOutAndBadValuesAreNamed(@TempDir Path dir) {
        PeerSettings d = PeerSettings.defaults(config(dir));
        PeerSettings s = d.with(Map.of("crawl", Map.of("depth", 1)));
        assertEquals(1, s.crawl().depth());
        assertEquals(d.crawl().maxPages(), s.crawl().maxPages());
        assertEquals(d.memory(), s.memory());
        var e = assertThrows(IllegalArgumentException.class, () -> d.with(Map.of("crawl", Map.of("depth", 1.5))));
        assertTrue(e.getMessage().contains("crawl.depth must be a whole number"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> d.with(Map.of("suggestions", Map.of("fromIndex", "yes"))));
        assertTrue(e.getMessage().contains("suggestions.fromIndex"), e.getMessage());
    }

    @Test
    void crawlDefaultsFillOnlyWhatAProfileLeavesOut(@TempDir Path dir) {
        PeerSettings s = PeerSettings.defaults(config(dir)).with(Map.of("crawl", Map.of("depth", 0, "maxPages", 7),
                "contentTypes", List.of("text/*")));
        Map<String, Object> p = s.withCrawlDefaults(Map.of("url", "http://example.org/", "depth", 2));
        assertEquals(2, p.get("depth"));
        assertEquals(7L, p.get("maxPages"));
        assertEquals(List.of("text/*"), p.get("contentTypes"));
    }

    @Test
    void savedMemoryBoundsAreLaidOverTheConfigAtTheNextStart(@TempDir Path dir) throws Exception {
        SettingsBackend b = new SettingsBackend(dir, config(dir));
        b.update(Map.of("memory", Map.of("cacheBytes", 1 << 20)));
        assertEquals(List.of("memory.cacheBytes"), b.describe().get("restartRequired"));
        assertTrue(Files.readString(dir.resolve("settings.json")).contains("1048576"));
        Config next = SettingsBackend.overlay(config(dir));
        assertEquals(1 << 20, next.getBytes("peerdex.index.cache-bytes"));
        assertEquals(List.of(), new SettingsBackend(dir, next).describe().get("restartRequired"));
    }
}
