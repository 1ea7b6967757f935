package org.peerdex.actors.dht.replication;

import java.util.List;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * What an indexer calls after a durable flush, so the new postings and metadata reach their DHT holders.
 * A node passes {@code dhtPeer::replicate}; a peer without a network passes {@link #NONE}.
 */
@FunctionalInterface
public interface ReplicationHook {
    ReplicationHook NONE = (postings, metadata) -> {};

    void indexed(List<Posting> postings, List<UrlMetadata> metadata);

    /**
     * Why the indexer should not write new documents now, or null: while the replication outbox holds more than its
     * bound of unacknowledged postings, indexing waits (as on a full disk) so the backlog cannot grow without end.
     */
    default String holdBack() {
        return null;
    }
}
