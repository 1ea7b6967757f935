package org.peerdex.node.peer;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.peerdex.actors.dht.shard.MetadataRow;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.wire.PrefixScores;
import org.peerdex.protocol.wire.V1;
import org.peerdex.storage.meta.UrlMetadata;

/**
 * A remote peer's shard owner as the local DHT actors see it: each command becomes a signed peer-protocol
 * request of the protocol's own types ({@link WireMapping}), and the reply comes back to the command's reply-to
 * only after its signature held for this peer's key and its content was checked against what was asked (only the
 * keys asked, only the URLs asked; the responder is the key that signed). A failed request, or a reply whose
 * content cannot be read into the actors' types, answers lookups with an error (the asker tries another holder)
 * and leaves store and digest requests unanswered (the replicator's timeout retries them), as a lost message would.
 */
final class PeerLink {
    private PeerLink() {}

    static Behavior<ShardOwner.Command> create(PeerClient client, PeerId peer, String key, String address,
                                               PeerProtocolStats stats) {
        Optional<String> expected = Optional.of(key);
        return Behaviors.receiveMessage(c -> {
            if (c instanceof ShardOwner.StorePostings s && s.replyTo() != null) {
                client.post(address, V1.STORE, WireMapping.store(s), expected)
                        .thenAccept(r -> {
                            V1.StoreReply x = r.body();
                            if (x.batchId() != s.batchId()) return; // not an answer to this batch
                            ShardOwner.StoreReply reply = WireMapping.reply(x, peer);
                            s.replyTo().tell(new ShardOwner.StoreReply(reply.batchId(), peer, reply.outcome(),
                                    reply.stored(), reply.reason(), Math.max(0, Math.min(reply.retryAfterMillis(), 600_000))));
                        });
            } else if (c instanceof ShardOwner.DigestRequest d && d.replyTo() != null) {
                client.post(address, V1.DIGEST, WireMapping.digest(d), expected)
                        .thenAccept(r -> {
                            V1.DigestReply x = r.body();
                            if (x.exchangeId() != d.exchangeId()) return;
                            d.replyTo().tell(new ShardOwner.DigestReply(x.exchangeId(), peer,
                                    WireMapping.ranges(x.differing()), x.error()));
                        });
            } else if (c instanceof ShardOwner.CountRequest q && q.replyTo() != null) {
                client.post(address, V1.COUNT, WireMapping.count(q), expected)
                        .whenComplete((r, e) -> {
                            V1.CountReply x = r == null ? null : r.body();
                            if (x == null || x.queryId() != q.queryId()) {
                                q.replyTo().tell(new ShardOwner.CountReply(q.queryId(), peer, List.of(), failure(e)));
                            } else if (x.error().isEmpty() && x.counts().size() != q.keys().size()) {
                                stats.droppedReplyItems.incrementAndGet();
                                q.replyTo().tell(new ShardOwner.CountReply(q.queryId(), peer, List.of(), "counts do not match the keys asked"));
                            } else {
                                q.replyTo().tell(new ShardOwner.CountReply(q.queryId(), peer, x.counts(), x.error(),
                                        tops(q, x, stats)));
                            }
                        });
            } else if (c instanceof ShardOwner.FilterRequest f && f.replyTo() != null) {
                client.post(address, V1.FILTER, WireMapping.filter(f), expected)
                        .whenComplete((r, e) -> {
                            V1.FilterReply x = r == null ? null : r.body();
                            boolean failed = x != null && !x.error().isEmpty();
                            boolean shaped = x != null && x.queryId() == f.queryId() && (failed
                                    || x.filters().size() == f.keys().size() && x.counts().size() == f.keys().size());
                            if (!shaped) {
                                if (x != null) stats.droppedReplyItems.incrementAndGet();
                                f.replyTo().tell(new ShardOwner.FilterReply(f.queryId(), peer, List.of(), List.of(),
                                        x == null ? failure(e) : "filters do not match the keys asked"));
                            } else {
                                f.replyTo().tell(new ShardOwner.FilterReply(f.queryId(), peer,
                                        failed ? List.of() : WireMapping.filters(x.filters()),
                                        failed ? List.of() : x.counts(), x.error()));
                            }
                        });
            } else if (c instanceof ShardOwner.LookupRequest l && l.replyTo() != null) {
                V1.LookupRequest request = WireMapping.lookup(l);
                Set<V1.Key> asked = new HashSet<>();
                List<V1.Lookup> all = new ArrayList<>(request.lookups());
                if (request.joins() != null) all.addAll(request.joins().lookups());
                for (V1.Lookup k : all) {
                    asked.add(k.key());
                    // a join lookup is answered for every word it names, in its key's partition
                    if (k.join() != null) for (String w : k.join()) asked.add(new V1.Key(w, k.key().partition()));
                }
                client.post(address, V1.LOOKUP, request, expected)
                        .whenComplete((r, e) -> {
                            V1.LookupReply x = r == null ? null : r.body();
                            if (x == null || x.queryId() != l.queryId()) {
                                l.replyTo().tell(new ShardOwner.LookupReply(l.queryId(), peer, List.of(), failure(e)));
                                return;
                            }
                            List<ShardOwner.KeyPostings> kept = new ArrayList<>();
                            // a join table's answers, each pack read here as any other, reach the actors as a table
                            List<ShardOwner.KeyPostings> tabled = new ArrayList<>();
                            int dropped = 0;
                            try {
                                for (V1.KeyPostings kp : x.results()) {
                                    if (asked.contains(kp.key())) kept.add(WireMapping.keyPostings(kp));
                                    else dropped++;
                                }
                                if (x.joinTable() != null && request.joinTable() && request.keyed()) {
                                    stats.joinTablesRead.incrementAndGet();
                                    for (V1.KeyPostings kp : WireMapping.joinTable(x.joinTable(), asked.size())) {
                                        if (asked.contains(kp.key())) tabled.add(WireMapping.keyPostings(kp));
                                        else dropped++;
                                    }
                                } else if (x.joinTable() != null) {
                                    dropped++; // a table this peer did not ask for is not read
                                }
                                if (x.heldTable() != null && request.presenceTable() == null) dropped++;
                            } catch (IllegalArgumentException bad) {
                                stats.droppedReplyItems.addAndGet(x.results().size());
                                l.replyTo().tell(new ShardOwner.LookupReply(l.queryId(), peer, List.of(),
                                        "malformed postings: " + bad.getMessage()));
                                return;
                            }
                            if (dropped > 0) stats.droppedReplyItems.addAndGet(dropped);
                            // a presence answer is checked against its table by the asker (a misfit says nothing)
                            byte[] held = request.presenceTable() == null ? null : x.heldTable();
                            l.replyTo().tell(ShardOwner.LookupReply.tabled(l.queryId(), peer, kept, x.error(), tabled)
                                    .withHeld(held));
                        });
            } else if (c instanceof ShardOwner.FetchMetadata m && m.replyTo() != null) {
                V1.MetadataRequest request = WireMapping.metadata(m);
                Set<String> asked = new HashSet<>(request.urls());
                client.post(address, V1.METADATA, request, expected)
                        .whenComplete((r, e) -> {
                            V1.MetadataReply x = r == null ? null : r.body();
                            if (x == null || x.queryId() != m.queryId()) {
                                m.replyTo().tell(new ShardOwner.MetadataReply(m.queryId(), peer, List.of(), failure(e)));
                                return;
                            }
                            List<UrlMetadata> kept = new ArrayList<>();
                            // rows, each checked as a record is, reach the actors as rows
                            List<MetadataRow> rows = null;
                            int dropped = 0;
                            for (V1.UrlRecord md : x.metadata()) {
                                if (asked.contains(md.urlHash())) kept.add(WireMapping.metadata(md));
                                else dropped++;
                            }
                            if (x.rows() != null && request.rows()) {
                                rows = new ArrayList<>(x.rows().size());
                                for (V1.UrlRow row : x.rows()) {
                                    try {
                                        V1.UrlRecord md = row == null ? null : row.record();
                                        if (md != null && asked.contains(md.urlHash())) {
                                            rows.add(MetadataRow.of(WireMapping.metadata(md)));
                                        } else {
                                            dropped++;
                                        }
                                    } catch (IllegalArgumentException bad) {
                                        dropped++;
                                    }
                                }
                            } else if (x.rows() != null) {
                                dropped++; // rows this peer did not ask for are not read
                            }
                            if (dropped > 0) stats.droppedReplyItems.addAndGet(dropped);
                            m.replyTo().tell(new ShardOwner.MetadataReply(m.queryId(), peer, kept, x.error(), rows));
                        });
            }
            return Behaviors.same();
        });
    }

    /**
     * The score lists a count reply carried, of the keys asked only, each a list by prefix of at most the depth asked,
     * its entries readable; null when none were asked or none is left (the searcher then asks its top lookups).
     */
    private static List<ShardOwner.KeyPostings> tops(ShardOwner.CountRequest q, V1.CountReply x, PeerProtocolStats stats) {
        if (x.tops() == null) return null;
        Set<V1.Key> asked = new HashSet<>();
        for (RangeKey k : q.keys()) asked.add(WireMapping.key(k));
        List<ShardOwner.KeyPostings> kept = new ArrayList<>();
        int dropped = 0;
        for (V1.KeyPostings kp : x.tops()) {
            if (q.tops() <= 0 || !asked.remove(kp.key()) || kp.prefixScores() == null
                    || PrefixScores.count(kp.prefixScores()) > q.tops()) {
                dropped++;
                continue;
            }
            try {
                kept.add(WireMapping.keyPostings(kp));
            } catch (IllegalArgumentException bad) {
                dropped++;
            }
        }
        if (dropped > 0) stats.droppedReplyItems.addAndGet(dropped);
        return kept.isEmpty() ? null : kept;
    }

    private static String failure(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        String m = t == null ? "no answer" : t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return "unreachable: " + (m.length() > 160 ? m.substring(0, 160) : m);
    }
}
