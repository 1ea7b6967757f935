package org.peerdex.storage.frontier;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;

/** Content hash → the URL first indexed with it ({@code 'd' ‖ hash (ASCII)} → URL hash), for duplicate detection. */
public final class ContentHashes {
    private final KeyValueStore store;

    public ContentHashes(KeyValueStore store) {
        this.store = store;
    }

    private static byte[] key(String hash) {
        return Keys.of(Keyspace.CONTENT, hash.getBytes(StandardCharsets.US_ASCII));
    }

    public Optional<UrlHash> owner(String contentHash) {
        return store.get(key(contentHash)).map(v -> new UrlHash(new String(v, StandardCharsets.US_ASCII)));
    }

    public void putTo(KeyValueStore.Batch batch, String contentHash, UrlHash url) {
        batch.put(key(contentHash), url.value().getBytes(StandardCharsets.US_ASCII));
    }
}
