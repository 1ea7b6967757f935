package org.peerdex.node.peer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.shard.MetadataRow;
import org.peerdex.actors.dht.shard.PostingPack;
import org.peerdex.actors.dht.shard.RangeDigest;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.filter.BloomFilter;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.wire.JoinTable;
import org.peerdex.protocol.wire.PackedPostings;
import org.peerdex.protocol.wire.V1;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * The boundary between the peer protocol's types ({@link V1}) and the DHT actors' messages and storage types:
 * neither of those is ever written to or read from the wire, so refactoring them cannot change what peers
 * exchange. Reading from the wire throws IllegalArgumentException for anything the actors' types refuse (a
 * malformed request). Fields the wire does not carry are filled here: the sender and the responder are the keys
 * that signed (never a field of the body), and reply-to is this side's own.
 */
final class WireMapping {
    private WireMapping() {}

    // ---------------------------------------------------------------- requests, as the sending side writes them

    static V1.StoreRequest store(ShardOwner.StorePostings s) {
        List<V1.UrlRecord> records = new ArrayList<>(s.metadata().size());
        for (UrlMetadata m : s.metadata()) records.add(record(m));
        return new V1.StoreRequest(s.batchId(), postings(s.postings()), records);
    }

    static V1.CountRequest count(ShardOwner.CountRequest c) {
        return new V1.CountRequest(c.queryId(), keys(c.keys()), c.tops());
    }

    static V1.FilterRequest filter(ShardOwner.FilterRequest f) {
        return new V1.FilterRequest(f.queryId(), keys(f.keys()), f.bitsPerElement());
    }

    static V1.LookupRequest lookup(ShardOwner.LookupRequest l) {
        List<V1.Lookup> out = new ArrayList<>(l.lookups().size());
        for (ShardOwner.Lookup k : l.lookups()) {
            out.add(new V1.Lookup(key(k.key()), k.filter() == null ? null : bloom(k.filter()), hashes(k.urls()), k.limit(),
                    k.join() == null ? null : k.join().stream().map(WordHash::value).toList(), k.presence(), k.scores(),
                    k.prefixes(), k.part(), k.prefixFilter(), k.skip()));
        }
        V1.Joins joins = l.joins() == null ? null : new V1.Joins(l.joins().words().stream().map(WordHash::value).toList(),
                l.joins().partitions(), l.joins().limit());
        return new V1.LookupRequest(l.queryId(), out, l.keyed(), l.joinTable(), l.presenceTable(), joins,
                l.prefixScores());
    }

    static V1.MetadataRequest metadata(ShardOwner.FetchMetadata m) {
        return new V1.MetadataRequest(m.queryId(), m.urls() == null ? List.of() : hashes(m.urls()), m.rows());
    }

    static V1.DigestRequest digest(ShardOwner.DigestRequest d) {
        List<V1.Digest> out = new ArrayList<>(d.digests().size());
        for (RangeDigest g : d.digests()) {
            out.add(new V1.Digest(String.valueOf(g.kind()), g.origin().value(), g.bucket(), g.count(), g.sum()));
        }
        return new V1.DigestRequest(d.exchangeId(), out, d.allOrigins());
    }

    // ---------------------------------------------------------------- requests, as the receiving side reads them

    static ShardOwner.StorePostings store(V1.StoreRequest s, PeerId from, ActorRef<ShardOwner.StoreReply> replyTo) {
        List<UrlMetadata> records = new ArrayList<>(s.metadata().size());
        for (V1.UrlRecord r : s.metadata()) records.add(metadata(r));
        return new ShardOwner.StorePostings(s.batchId(), from, postings(s.postings()), records, replyTo);
    }

    static ShardOwner.CountRequest count(V1.CountRequest c, ActorRef<ShardOwner.CountReply> replyTo) {
        return new ShardOwner.CountRequest(c.queryId(), rangeKeys(c.keys()), replyTo, c.tops());
    }

    static ShardOwner.FilterRequest filter(V1.FilterRequest f, ActorRef<ShardOwner.FilterReply> replyTo) {
        return new ShardOwner.FilterRequest(f.queryId(), rangeKeys(f.keys()), f.bitsPerElement(), replyTo);
    }

    static ShardOwner.LookupRequest lookup(V1.LookupRequest l, ActorRef<ShardOwner.LookupReply> replyTo) {
        List<ShardOwner.Lookup> out = new ArrayList<>(l.lookups().size());
        for (V1.Lookup k : l.lookups()) {
            out.add(new ShardOwner.Lookup(key(k.key()), k.filter() == null ? null : bloom(k.filter()),
                    urlHashes(k.urls()), k.limit(), k.join() == null ? null : k.join().stream().map(WordHash::new).toList(),
                    k.presence(), k.scores(), k.prefixes(), k.part(), k.prefixFilter(), k.skip()));
        }
        ShardOwner.Joins joins = l.joins() == null ? null
                : new ShardOwner.Joins(l.joins().words().stream().map(WordHash::new).toList(), l.joins().partitions(),
                        l.joins().limit());
        return new ShardOwner.LookupRequest(l.queryId(), out, replyTo, l.keyed(), l.joinTable(), l.presenceTable(),
                joins, l.prefixScores());
    }

    static ShardOwner.FetchMetadata metadata(V1.MetadataRequest m, ActorRef<ShardOwner.MetadataReply> replyTo) {
        return new ShardOwner.FetchMetadata(m.queryId(), urlHashes(m.urls()), replyTo, m.rows());
    }

    static ShardOwner.DigestRequest digest(V1.DigestRequest d, PeerId from, ActorRef<ShardOwner.DigestReply> replyTo) {
        List<RangeDigest> out = new ArrayList<>(d.digests().size());
        for (V1.Digest g : d.digests()) {
            out.add(new RangeDigest(g.kind().charAt(0), new PeerId(g.origin()), g.bucket(), g.count(), g.sum()));
        }
        return new ShardOwner.DigestRequest(d.exchangeId(), from, out, d.foldsOrigins(), replyTo);
    }

    // ---------------------------------------------------------------- replies, written by the receiving side

    static V1.StoreReply reply(ShardOwner.StoreReply r) {
        return new V1.StoreReply(r.batchId(), V1.Outcome.valueOf(r.outcome().name()), r.stored(), r.reason(),
                r.retryAfterMillis());
    }

    static V1.CountReply reply(ShardOwner.CountReply r) {
        if (r.tops() == null) return new V1.CountReply(r.queryId(), r.counts(), r.error());
        List<V1.KeyPostings> tops = new ArrayList<>(r.tops().size());
        for (ShardOwner.KeyPostings kp : r.tops()) tops.add(keyPostings(kp));
        return new V1.CountReply(r.queryId(), r.counts(), r.error(), tops);
    }

    static V1.FilterReply reply(ShardOwner.FilterReply r) {
        List<V1.Bloom> filters = new ArrayList<>(r.filters() == null ? 0 : r.filters().size());
        if (r.filters() != null) for (BloomFilter f : r.filters()) filters.add(bloom(f));
        return new V1.FilterReply(r.queryId(), filters, r.counts(), r.error());
    }

    static V1.LookupReply reply(ShardOwner.LookupReply r) {
        List<V1.KeyPostings> out = new ArrayList<>(r.results() == null ? 0 : r.results().size());
        if (r.results() != null) for (ShardOwner.KeyPostings kp : r.results()) out.add(keyPostings(kp));
        if (r.joinTable() == null) return new V1.LookupReply(r.queryId(), out, r.error(), null, r.heldTable());
        // the table again, of the protocol's packs (the index's codec may lay a posting out otherwise)
        List<JoinTable.Entry> table = new ArrayList<>();
        List<ShardOwner.KeyPostings> all = r.answers(Integer.MAX_VALUE); // this peer's own table
        for (ShardOwner.KeyPostings kp : all.subList(out.size(), all.size())) {
            V1.KeyPostings v = keyPostings(kp);
            table.add(new JoinTable.Entry(v.key().word(), v.key().partition(), v.postings().count(), v.postings().bytes(),
                    v.matched(), v.truncated()));
        }
        return new V1.LookupReply(r.queryId(), out, r.error(), JoinTable.write(table), r.heldTable());
    }

    private static V1.KeyPostings keyPostings(ShardOwner.KeyPostings kp) {
        V1.Postings ps = kp.postings().omitted() ? V1.Postings.NONE : postings(kp.postings(), kp.key().word());
        return new V1.KeyPostings(key(kp.key()), ps, kp.matched(), kp.truncated(), kp.held(), kp.scores(), kp.prefixed(),
                kp.prefixScores());
    }

    /**
     * The answers a reply's join table holds, as the protocol's key postings (their packs unread: the reader checks
     * them as any other); throws IllegalArgumentException on a malformed table or more than {@code maxEntries}.
     */
    static List<V1.KeyPostings> joinTable(byte[] table, int maxEntries) {
        List<V1.KeyPostings> out = new ArrayList<>();
        for (JoinTable.Entry e : JoinTable.read(table, maxEntries)) {
            V1.Postings ps = e.count() == 0 ? V1.Postings.EMPTY : new V1.Postings(e.count(), e.pack(), true);
            out.add(new V1.KeyPostings(new V1.Key(e.word(), e.partition()), ps, e.matched(), e.truncated()));
        }
        return out;
    }

    static V1.MetadataReply reply(ShardOwner.MetadataReply r) {
        List<V1.UrlRecord> out = new ArrayList<>(r.metadata() == null ? 0 : r.metadata().size());
        if (r.metadata() != null) for (UrlMetadata m : r.metadata()) out.add(record(m));
        if (r.rows() == null) return new V1.MetadataReply(r.queryId(), out, r.error());
        List<V1.UrlRow> rows = new ArrayList<>(r.rows().size());
        for (MetadataRow row : r.rows()) rows.add(V1.UrlRow.of(record(row.metadata())));
        return new V1.MetadataReply(r.queryId(), out, r.error(), rows);
    }

    static V1.DigestReply reply(ShardOwner.DigestReply r) {
        List<V1.DigestRange> out = new ArrayList<>(r.differing() == null ? 0 : r.differing().size());
        if (r.differing() != null) {
            int room = V1.MAX_HELD_HASHES;
            for (RangeDigest.Differing d : r.differing()) {
                RangeDigest.Range g = d.range();
                long[] held = d.held() != null && d.held().length <= room ? d.held() : null;
                if (held != null) room -= held.length;
                out.add(new V1.DigestRange(String.valueOf(g.kind()), g.origin().value(), g.bucket(), packed(held)));
            }
        }
        return new V1.DigestReply(r.exchangeId(), out, r.error());
    }

    // ---------------------------------------------------------------- replies, read by the sending side

    static ShardOwner.StoreReply reply(V1.StoreReply r, PeerId by) {
        return new ShardOwner.StoreReply(r.batchId(), by, ShardOwner.Outcome.valueOf(r.outcome().name()), r.stored(),
                r.reason(), r.retryAfterMillis());
    }

    static List<BloomFilter> filters(List<V1.Bloom> filters) {
        List<BloomFilter> out = new ArrayList<>(filters.size());
        for (V1.Bloom b : filters) out.add(bloom(b));
        return out;
    }

    static ShardOwner.KeyPostings keyPostings(V1.KeyPostings kp) {
        return new ShardOwner.KeyPostings(key(kp.key()), postings(kp.postings(), new WordHash(kp.key().word())), kp.matched(),
                kp.truncated(), kp.held(), kp.scores(), kp.prefixed(), kp.prefixScores());
    }

    /** The differing ranges of a digest reply, each with the hashes its responder listed as held (sorted here). */
    static List<RangeDigest.Differing> ranges(List<V1.DigestRange> ranges) {
        List<RangeDigest.Differing> out = new ArrayList<>(ranges.size());
        for (V1.DigestRange g : ranges) {
            long[] held = unpacked(g.held());
            if (held != null) Arrays.sort(held); // a peer's order is not trusted: the sender searches them
            out.add(new RangeDigest.Differing(new RangeDigest.Range(g.kind().charAt(0), new PeerId(g.origin()), g.bucket()), held));
        }
        return out;
    }

    /** Hashes as 8 bytes each, big-endian (null stays null). */
    static byte[] packed(long[] hashes) {
        if (hashes == null) return null;
        ByteBuffer b = ByteBuffer.allocate(hashes.length * 8);
        for (long h : hashes) b.putLong(h);
        return b.array();
    }

    static long[] unpacked(byte[] bytes) {
        if (bytes == null) return null;
        ByteBuffer b = ByteBuffer.wrap(bytes);
        long[] out = new long[bytes.length / 8];
        for (int i = 0; i < out.length; i++) out[i] = b.getLong();
        return out;
    }

    // ---------------------------------------------------------------- parts

    static V1.Key key(RangeKey k) {
        return new V1.Key(k.word().value(), k.partition());
    }

    static RangeKey key(V1.Key k) {
        return new RangeKey(new WordHash(k.word()), k.partition());
    }

    static V1.Bloom bloom(BloomFilter f) {
        return new V1.Bloom(f.hashes(), f.bits());
    }

    static BloomFilter bloom(V1.Bloom b) {
        return new BloomFilter(b.hashes(), b.bits());
    }

    /** The index's postings in the protocol's own pack layout (the storage codec may differ). */
    static V1.Postings postings(PostingPack pack) {
        return postings(pack, null);
    }

    /** As {@link #postings(PostingPack)}, for a pack answering a key of {@code word} (which a keyed pack needs); keyed stays keyed. */
    static V1.Postings postings(PostingPack pack, WordHash word) {
        if (pack.count() == 0) return V1.Postings.EMPTY;
        List<Posting> ps = pack.postings(word);
        List<V1.Posting> out = new ArrayList<>(ps.size());
        for (Posting p : ps) out.add(posting(p));
        return PackedPostings.pack(out, pack.keyed());
    }

    static PostingPack postings(V1.Postings pack) {
        return postings(pack, null);
    }

    /** As {@link #postings(V1.Postings)}, for a pack answering a key of {@code word}; keyed stays keyed. */
    static PostingPack postings(V1.Postings pack, WordHash word) {
        if (pack.count() == 0 && pack.bytes().length == 0) return PostingPack.EMPTY;
        List<V1.Posting> ps = PackedPostings.unpack(pack, word == null ? null : word.value());
        List<Posting> out = new ArrayList<>(ps.size());
        for (V1.Posting p : ps) out.add(posting(p));
        return PostingPack.of(out, pack.keyed());
    }

    static V1.Posting posting(Posting p) {
        return new V1.Posting(p.word().value(), p.url().value(), p.holder() == null ? "" : p.holder().value(),
                p.flags(), p.hitCount(), p.positions(), p.wordsInText(), p.wordsInTitle(), p.lastModified(),
                p.language(), p.doctype(), p.linksLocal(), p.linksOther(), p.urlLength(), p.urlComponents(),
                p.expiresAt());
    }

    static Posting posting(V1.Posting p) {
        return new Posting(new WordHash(p.word()), new UrlHash(p.url()), p.holder().isEmpty() ? null : new PeerId(p.holder()),
                p.flags(), p.hitCount(), p.positions(), p.wordsInText(), p.wordsInTitle(), p.lastModified(),
                p.language(), p.doctype(), p.linksLocal(), p.linksOther(), p.urlLength(), p.urlComponents(),
                p.expiresAt());
    }

    static V1.UrlRecord record(UrlMetadata m) {
        return new V1.UrlRecord(m.urlHash().value(), m.url(), m.title(), m.description(), m.author(), m.keywords(),
                m.language(), m.doctype(), m.mimeType(), m.size(), m.lastModified(), m.fetched(), m.linksLocal(),
                m.linksOther(), m.wordsInText(), m.holder() == null ? "" : m.holder(), m.contentHash(), m.headings());
    }

    static UrlMetadata metadata(V1.UrlRecord r) {
        return new UrlMetadata(new UrlHash(r.urlHash()), r.url(), r.title(), r.description(), r.author(), r.keywords(),
                r.language(), r.doctype(), r.mimeType(), r.size(), r.lastModified(), r.fetched(), r.linksLocal(),
                r.linksOther(), r.wordsInText(), r.holder().isEmpty() ? null : r.holder(),
                r.contentHash().isEmpty() ? null : r.contentHash(), r.headings());
    }

    private static List<V1.Key> keys(List<RangeKey> keys) {
        List<V1.Key> out = new ArrayList<>(keys.size());
        for (RangeKey k : keys) out.add(key(k));
        return out;
    }

    private static List<RangeKey> rangeKeys(List<V1.Key> keys) {
        List<RangeKey> out = new ArrayList<>(keys.size());
        for (V1.Key k : keys) out.add(key(k));
        return out;
    }

    /** null stays null: a lookup without a URL set asks for any URL. */
    private static List<String> hashes(List<UrlHash> urls) {
        if (urls == null) return null;
        List<String> out = new ArrayList<>(urls.size());
        for (UrlHash u : urls) out.add(u.value());
        return out;
    }

    private static List<UrlHash> urlHashes(List<String> urls) {
        if (urls == null) return null;
        List<UrlHash> out = new ArrayList<>(urls.size());
        for (String u : urls) out.add(new UrlHash(u));
        return out;
    }
}
