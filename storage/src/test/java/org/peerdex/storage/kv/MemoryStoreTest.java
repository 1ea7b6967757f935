package org.peerdex.storage.kv;

/** The in-memory engine against the store contract. */
class MemoryStoreTest extends KeyValueStoreContract {
    @Override
    protected KeyValueStore open() {
        return new MemoryStore();
    }
}
