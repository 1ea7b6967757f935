package org.peerdex.storage.kv;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The {@link KeyValueStore.IndexObserver}s of one store; the store calls them while it holds its write lock. */
final class IndexObservers {
    private final List<KeyValueStore.IndexObserver> observers = new CopyOnWriteArrayList<>();

    void add(KeyValueStore.IndexObserver o) {
        observers.add(o);
    }

    void remove(KeyValueStore.IndexObserver o) {
        observers.remove(o);
    }

    boolean isEmpty() {
        return observers.isEmpty();
    }

    /** A write of {@code key} (value null: a delete) was applied. */
    void written(byte[] key, byte[] value) {
        if (observers.isEmpty() || !KeyValueStore.isObservedKey(key)) return;
        for (KeyValueStore.IndexObserver o : observers) {
            if (value == null || key[0] == Keyspace.RWI && Keyspace.isTombstone(value)) o.deleted(key);
            else o.put(key, value);
        }
    }
}
