package org.peerdex.storage.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KeysTest {
    private static byte[] bytes(int... v) {
        return KeyValueStoreContract.bytes(v);
    }

    @Test
    void prefixEndIncrementsTheLastByteThatIsNotFf() {
        assertArrayEquals(bytes(0x01, 0x03), Keys.prefixEnd(bytes(0x01, 0x02)));
        assertArrayEquals(bytes(0x02), Keys.prefixEnd(bytes(0x01, 0xff)));
        assertArrayEquals(bytes(0x01, 0x80), Keys.prefixEnd(bytes(0x01, 0x7f)));
        assertArrayEquals(bytes(0x11), Keys.prefixEnd(bytes(0x10, 0xff, 0xff)));
        assertNull(Keys.prefixEnd(bytes(0xff, 0xff)));
        assertNull(Keys.prefixEnd(new byte[0]));
    }

    @Test
    void keysAreBuiltFromAKeyspaceAndParts() {
        assertArrayEquals(bytes('r', 1, 2, 3), Keys.of((byte) 'r', bytes(1, 2), bytes(3)));
        assertTrue(Keys.startsWith(bytes(1, 2, 3), bytes(1, 2)));
        assertFalse(Keys.startsWith(bytes(1), bytes(1, 2)));
        assertTrue(Keys.compare(bytes(0x80), bytes(0x7f)) > 0);
    }
}
