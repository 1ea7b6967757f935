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

    @Test
    void aClosedStoreRefusesReadsAndWritesWithAClearErrorAndACursorOpenAtCloseToo() {
        for (int i = 0; i < 100; i++) store.put(b("k" + i), b("v"));
        KeyValueStore.Cursor open = store.scan(b("k"), null);
        assertTrue(open.next());
        KeyValueStore s = store;
        s.close();
        for (org.junit.jupiter.api.function.Executable call : java.util.List.<org.junit.jupiter.api.function.Executable>of(
                () -> s.get(b("k1")), () -> s.put(b("k1"), b("w")), () -> s.delete(b("k1")),
                () -> s.scan(b("k"), null), s::newBatch)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call);
            assertTrue(e.getMessage().contains("is closed"), e.getMessage());
        }
        // the cursor opened before the close: either the entries it already holds, or the same clear error
        try {
            while (open.next()) assertArrayEquals(b("v"), open.value());
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage().contains("is closed"), e.getMessage());
        }
        store = open();
        assertArrayEquals(b("v"), store.get(b("k1")).orElseThrow(), "nothing was lost by the refused calls");
    }
}
