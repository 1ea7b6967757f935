package org.peerdex.node.settings;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running peer's {@link PeerSettings}, one per peer (built by PeerNode): kept in {@code DATA_DIR/settings.json}
 * (written atomically), handed to whoever applies them live (crawl defaults, suggestions), and laid over the
 * config at the next start for the memory bounds ({@link #overlay(Config)}).
 */
public final class SettingsBackend {
    private static final Logger log = LoggerFactory.getLogger(SettingsBackend.class);
    static final String FILE = "settings.json";
    private static final ObjectMapper PLAIN = new ObjectMapper();

    private final Path file;
    private final PeerSettings.Memory running;
    private final AtomicReference<PeerSettings> current = new AtomicReference<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile long version;

    /** Reads {@code DATA_DIR/settings.json}, or starts from the config's defaults. */
    public SettingsBackend(Path dataDir, Config config) {
        this.file = dataDir.resolve(FILE);
        PeerSettings defaults = PeerSettings.defaults(config);
        this.running = defaults.memory();
        this.current.set(load(file, defaults));
    }

    /** The config with the memory bounds saved in the data directory's settings file laid over it. */
    public static Config overlay(Config config) {
        if (!config.hasPath("peerdex.data-dir")) return config;
        Path f = Path.of(config.getString("peerdex.data-dir")).resolve(FILE);
        if (!Files.isRegularFile(f)) return config;
        PeerSettings saved = load(f, PeerSettings.defaults(config));
        return ConfigFactory.parseMap(saved.configOverlay(), "saved console settings " + f).withFallback(config);
    }

    public PeerSettings current() {
        return current.get();
    }

    /** Grows on every save: whoever caches something built from the settings rebuilds when it changed. */
    public long version() {
        return version;
    }

    /** Called after every save (on the saving thread). */
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    /** Validates the JSON object against the current settings, writes the result to the data dir and applies it. */
    public synchronized PeerSettings update(Map<String, ?> body) {
        PeerSettings next = current.get().with(body);
        write(next);
        current.set(next);
        version++;
        for (Runnable r : listeners) r.run();
        return next;
    }

    /** GET /api/settings: the settings, the memory bounds in use, and which saved ones wait for a restart. */
    public Map<String, Object> describe() {
        PeerSettings s = current.get();
        Map<String, Object> out = new LinkedHashMap<>(s.toJson());
        out.put("running", Map.of("writeBufferBytes", running.writeBufferBytes(), "cacheBytes", running.cacheBytes(),
                "maxPageBytes", running.maxPageBytes()));
        List<String> restart = new ArrayList<>();
        if (s.memory().writeBufferBytes() != running.writeBufferBytes()) restart.add("memory.writeBufferBytes");
        if (s.memory().cacheBytes() != running.cacheBytes()) restart.add("memory.cacheBytes");
        if (s.memory().maxPageBytes() != running.maxPageBytes()) restart.add("memory.maxPageBytes");
        out.put("restartRequired", restart);
        out.put("applied", Map.of("contentTypes", "live", "memory", "restart", "crawl", "live", "suggestions", "live"));
        return out;
    }

    private void write(PeerSettings s) {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(FILE + ".tmp");
            Files.write(tmp, PLAIN.writerWithDefaultPrettyPrinter().writeValueAsBytes(s.toJson()));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static PeerSettings load(Path f, PeerSettings defaults) {
        if (!Files.isRegularFile(f)) return defaults;
        try {
            return defaults.with(PLAIN.readValue(Files.readString(f, StandardCharsets.UTF_8), Map.class));
        } catch (IOException | IllegalArgumentException e) {
            log.warn("ignoring the settings file {} (the config's values apply): {}", f, e.getMessage());
            return defaults;
        }
    }
}
