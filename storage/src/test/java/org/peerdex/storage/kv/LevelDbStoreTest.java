package org.peerdex.storage.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LevelDB against the store contract, plus what only a disk engine has: reopening and the directory lock. */
class LevelDbStoreTest extends KeyValueStoreContract {
    @TempDir
    Path dir;

    @Override
    protected KeyValueStore open() {
        return LevelDbStore.open(dir.resolve("db"), 1 << 20);
    }

    @Test
    void dataSurvivesCloseAndReopen() {
        store.put(b("k"), b("v"));
        store.close();
        store = open();
        assertArrayEquals(b("v"), store.get(b("k")).orElseThrow());
    }

    @Test
    void aSecondStoreOnTheSameDirectoryIsRefusedUntilTheFirstCloses() {
        LevelDbStore.StoreInUseException e = assertThrows(LevelDbStore.StoreInUseException.class, this::open);
        assertTrue(e.getMessage().contains("in use"), e.getMessage());
        store.close();
        store = open();
        assertFalse(store.get(b("x")).isPresent());
        assertTrue(Files.exists(dir.resolve("db").resolve("peerdex.lock")));
    }

    @Test
    void closeTwiceIsHarmless() {
        store.close();
        store.close();
        store = open();
    }
}
