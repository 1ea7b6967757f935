package org.peerdex.actors.dht.replication;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.shard.PostingPack;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * Replication planning: which peers must receive which postings and metadata, cut into bounded batches.
 * Postings go to the holders of their (word, partition) position, metadata to the holders of the URL hash's
 * position; this peer is never its own target. Pure: no actors, no I/O.
 */
public final class Batching {
    private Batching() {}

    /** Groups postings and metadata by target peer (sorted by word then URL, so batches hit few keys each). */
    public static Map<PeerId, Targeted> byTarget(PeerId self, List<Posting> postings, List<UrlMetadata> metadata,
                                                 Placement placement, Ring ring) {
        Map<PeerId, Targeted> out = new LinkedHashMap<>();
        if (ring.isEmpty()) return out;
        List<Posting> sorted = new ArrayList<>(postings);
        sorted.sort((a, b) -> {
            int c = a.word().compareTo(b.word());
            return c != 0 ? c : a.url().compareTo(b.url());
        });
        for (Posting p : sorted) {
            if (p.has(Posting.CACHED)) continue;
            Posting sent = p.holder() == null ? p.withHolder(self) : p;
            for (PeerId h : placement.holders(placement.partitions().position(p.word(), p.url()), ring)) {
                if (!h.equals(self)) out.computeIfAbsent(h, k -> new Targeted()).postings.add(sent);
            }
        }
        for (UrlMetadata m : metadata) {
            UrlMetadata sent = m.holder() == null ? ShardOwner.withHolder(m, self.value()) : m;
            for (PeerId h : placement.metadataHolders(m.urlHash(), ring)) {
                if (!h.equals(self)) out.computeIfAbsent(h, k -> new Targeted()).metadata.add(sent);
            }
        }
        return out;
    }

    /** What one target is owed. */
    public static final class Targeted {
        public final List<Posting> postings = new ArrayList<>();
        public final List<UrlMetadata> metadata = new ArrayList<>();
    }

    /** Cuts one target's share into outbox entries within the message bounds. */
    public static List<Outbox.Entry> batches(PeerId target, Targeted t, DhtSettings s, String purpose, LongSupplier ids) {
        List<Outbox.Entry> out = new ArrayList<>();
        int i = 0;
        int m = 0;
        while (i < t.postings.size() || m < t.metadata.size()) {
            List<Posting> chunk = new ArrayList<>();
            PostingPack pack = PostingPack.EMPTY;
            int n = Math.min(s.maxPostingsPerMessage(), t.postings.size() - i);
            while (n > 0) {
                chunk = t.postings.subList(i, i + n);
                pack = PostingPack.of(chunk);
                if (pack.byteSize() <= s.maxPackBytes()) break;
                n /= 2;
            }
            i += chunk.size();
            int k = Math.min(s.maxMetadataPerMessage(), t.metadata.size() - m);
            List<UrlMetadata> meta = List.copyOf(t.metadata.subList(m, m + k));
            m += k;
            out.add(new Outbox.Entry(ids.getAsLong(), target.value(), pack.count(), pack.bytes(), meta, purpose));
        }
        return out;
    }
}
