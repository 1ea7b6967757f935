package org.peerdex.node.peer;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.meta.UrlMetadata;

/**
 * A remote peer's shard owner as the local DHT actors see it: each command becomes a signed peer-protocol
 * request, and the reply comes back to the command's reply-to only after its signature held for this peer's key
 * and its content was checked against what was asked (only the keys asked, only the URLs asked, the responder's
 * own id). A failed request answers lookups with an error (the asker tries another holder) and leaves store and
 * digest requests unanswered (the replicator's timeout retries them), as a lost message would.
 */
final class PeerLink {
    private PeerLink() {}

    static Behavior<ShardOwner.Command> create(PeerClient client, PeerId peer, String key, String address,
                                               PeerProtocolStats stats) {
        Optional<String> expected = Optional.of(key);
        return Behaviors.receiveMessage(c -> {
            if (c instanceof ShardOwner.StorePostings s && s.replyTo() != null) {
                client.post(address, "store", new ShardOwner.StorePostings(s.batchId(), null, s.postings(),
                                s.metadata(), null), ShardOwner.StoreReply.class, expected)
                        .thenAccept(r -> {
                            ShardOwner.StoreReply x = r.body();
                            if (x.batchId() != s.batchId()) return; // not an answer to this batch
                            s.replyTo().tell(new ShardOwner.StoreReply(x.batchId(), peer, x.outcome(), x.stored(),
                                    x.reason(), Math.max(0, Math.min(x.retryAfterMillis(), 600_000))));
                        });
            } else if (c instanceof ShardOwner.DigestRequest d && d.replyTo() != null) {
                client.post(address, "digest", new ShardOwner.DigestRequest(d.exchangeId(), null, d.digests(), null),
                                ShardOwner.DigestReply.class, expected)
                        .thenAccept(r -> {
                            ShardOwner.DigestReply x = r.body();
                            if (x.exchangeId() != d.exchangeId()) return;
                            d.replyTo().tell(new ShardOwner.DigestReply(x.exchangeId(), peer,
                                    x.differing() == null ? List.of() : x.differing(), x.error()));
                        });
            } else if (c instanceof ShardOwner.CountRequest q && q.replyTo() != null) {
                client.post(address, "count", new ShardOwner.CountRequest(q.queryId(), q.keys(), null),
                                ShardOwner.CountReply.class, expected)
                        .whenComplete((r, e) -> {
                            ShardOwner.CountReply x = r == null ? null : r.body();
                            if (x == null || x.queryId() != q.queryId()) {
                                q.replyTo().tell(new ShardOwner.CountReply(q.queryId(), peer, List.of(), failure(e)));
                            } else if (x.error() == null && (x.counts() == null || x.counts().size() != q.keys().size())) {
                                stats.droppedReplyItems.incrementAndGet();
                                q.replyTo().tell(new ShardOwner.CountReply(q.queryId(), peer, List.of(), "counts do not match the keys asked"));
                            } else {
                                q.replyTo().tell(new ShardOwner.CountReply(q.queryId(), peer,
                                        x.counts() == null ? List.of() : x.counts(), x.error()));
                            }
                        });
            } else if (c instanceof ShardOwner.FilterRequest f && f.replyTo() != null) {
                client.post(address, "filter", new ShardOwner.FilterRequest(f.queryId(), f.keys(), f.bitsPerElement(), null),
                                ShardOwner.FilterReply.class, expected)
                        .whenComplete((r, e) -> {
                            ShardOwner.FilterReply x = r == null ? null : r.body();
                            boolean shaped = x != null && x.queryId() == f.queryId() && (x.error() != null
                                    || x.filters() != null && x.counts() != null && x.filters().size() == f.keys().size()
                                    && x.counts().size() == f.keys().size());
                            if (!shaped) {
                                if (x != null) stats.droppedReplyItems.incrementAndGet();
                                f.replyTo().tell(new ShardOwner.FilterReply(f.queryId(), peer, List.of(), List.of(),
                                        x == null ? failure(e) : "filters do not match the keys asked"));
                            } else {
                                f.replyTo().tell(new ShardOwner.FilterReply(f.queryId(), peer,
                                        x.error() != null ? List.of() : x.filters(), x.error() != null ? List.of() : x.counts(), x.error()));
                            }
                        });
            } else if (c instanceof ShardOwner.LookupRequest l && l.replyTo() != null) {
                Set<RangeKey> asked = new HashSet<>();
                for (ShardOwner.Lookup k : l.lookups()) asked.add(k.key());
                client.post(address, "lookup", new ShardOwner.LookupRequest(l.queryId(), l.lookups(), null),
                                ShardOwner.LookupReply.class, expected)
                        .whenComplete((r, e) -> {
                            ShardOwner.LookupReply x = r == null ? null : r.body();
                            if (x == null || x.queryId() != l.queryId()) {
                                l.replyTo().tell(new ShardOwner.LookupReply(l.queryId(), peer, List.of(), failure(e)));
                                return;
                            }
                            List<ShardOwner.KeyPostings> kept = x.results() == null ? List.of() : x.results().stream()
                                    .filter(kp -> kp != null && asked.contains(kp.key())).toList();
                            int dropped = (x.results() == null ? 0 : x.results().size()) - kept.size();
                            if (dropped > 0) stats.droppedReplyItems.addAndGet(dropped);
                            l.replyTo().tell(new ShardOwner.LookupReply(l.queryId(), peer, kept, x.error()));
                        });
            } else if (c instanceof ShardOwner.FetchMetadata m && m.replyTo() != null) {
                Set<UrlHash> asked = new HashSet<>(m.urls());
                client.post(address, "metadata", new ShardOwner.FetchMetadata(m.queryId(), m.urls(), null),
                                ShardOwner.MetadataReply.class, expected)
                        .whenComplete((r, e) -> {
                            ShardOwner.MetadataReply x = r == null ? null : r.body();
                            if (x == null || x.queryId() != m.queryId()) {
                                m.replyTo().tell(new ShardOwner.MetadataReply(m.queryId(), peer, List.of(), failure(e)));
                                return;
                            }
                            List<UrlMetadata> kept = x.metadata() == null ? List.of() : x.metadata().stream()
                                    .filter(md -> md != null && asked.contains(md.urlHash())).toList();
                            int dropped = (x.metadata() == null ? 0 : x.metadata().size()) - kept.size();
                            if (dropped > 0) stats.droppedReplyItems.addAndGet(dropped);
                            m.replyTo().tell(new ShardOwner.MetadataReply(m.queryId(), peer, kept, x.error()));
                        });
            }
            return Behaviors.same();
        });
    }

    private static String failure(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        String m = t == null ? "no answer" : t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return "unreachable: " + (m.length() > 160 ? m.substring(0, 160) : m);
    }
}
