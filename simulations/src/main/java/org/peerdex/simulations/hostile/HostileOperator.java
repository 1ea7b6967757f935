package org.peerdex.simulations.hostile;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.DhtStats;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.shard.PostingPack;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.filter.BloomFilter;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.url.UrlNormalizer;
import org.peerdex.protocol.wire.PresenceTable;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * The one operator behind every hostile peer of a run, and the shard owners its peers run instead of the real one.
 * A faking peer runs the real {@link ShardOwner} behind a front that adds made-up items to every answer: postings
 * of URLs that exist nowhere (with metadata whose URL hashes to its URL hash, so it passes every check a
 * receiver makes) and postings claiming that real documents it has seen contain the word asked, all ranked high;
 * since the operator is one, its peers share the made-up URLs, so they join across the words of a query. A
 * dropping peer acknowledges stores without storing, says its ranges are in sync, and never answers a lookup.
 * Only keys and URLs that were asked are answered, as the peer protocol's PeerLink would keep nothing else.
 */
public final class HostileOperator {
    /** A URL that exists nowhere, with the metadata the operator serves for it. */
    private record Fake(UrlHash url, UrlMetadata metadata) {}

    private final Placement placement;
    private final int fakesPerKey;
    /** per partition: made-up URLs whose hashes fall in it (a posting's partition is its URL's) */
    private final List<List<Fake>> fakes = new ArrayList<>();
    private final Map<UrlHash, UrlMetadata> fakeMetadata = new HashMap<>();
    /** per partition: real URLs the operator's peers were sent, to misattribute words to */
    private final List<Set<UrlHash>> seen = new ArrayList<>();
    private final AtomicLong fakePostingsSent = new AtomicLong();
    private final AtomicLong fakeMetadataSent = new AtomicLong();
    private final AtomicLong droppedStores = new AtomicLong();
    private final AtomicLong droppedPostings = new AtomicLong();
    private final AtomicLong ignoredLookups = new AtomicLong();

    public HostileOperator(Placement placement, int fakesPerKey) {
        this.placement = placement;
        this.fakesPerKey = fakesPerKey;
        int partitions = placement.partitions().count();
        for (int p = 0; p < partitions; p++) {
            fakes.add(new ArrayList<>());
            seen.add(new LinkedHashSet<>());
        }
        int want = made(fakesPerKey);
        int full = 0;
        // URL hashes are free to make: keep minting until every partition has its share
        for (int n = 0; full < partitions; n++) {
            String url = UrlNormalizer.normalize("http://offers" + (n % 101) + ".example/deal/" + n).orElseThrow();
            UrlHash hash = UrlHash.ofNormalized(url);
            List<Fake> pool = fakes.get(placement.partitions().partitionOf(hash));
            if (pool.size() >= want) continue;
            UrlMetadata md = new UrlMetadata(hash, url, "Best deal " + n, "", "", List.of(), "en", "h", "text/html",
                    2_000, 1_760_000_000_000L, 1_760_000_000_000L, 3, 3, 60, null, Integer.toHexString(n), List.of());
            pool.add(new Fake(hash, md));
            fakeMetadata.put(hash, md);
            if (pool.size() == want) full++;
        }
    }

    /** Made-up URLs per key: half of the fakes (the rest are real documents the word is misattributed to). */
    private static int made(int fakesPerKey) {
        return (fakesPerKey + 1) / 2;
    }

    /** Whether a URL is one the operator made up. */
    public boolean madeUp(UrlHash url) {
        return fakeMetadata.containsKey(url);
    }

    /** What the operator did, for summary.json. */
    public Map<String, Object> figures() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("fakePostingsSent", fakePostingsSent.get());
        m.put("fakeMetadataSent", fakeMetadataSent.get());
        m.put("storesAcknowledgedNotStored", droppedStores.get());
        m.put("postingsAcknowledgedNotStored", droppedPostings.get());
        m.put("lookupsIgnored", ignoredLookups.get());
        return m;
    }

    // ---- faking

    /** A shard owner that answers with the real one's content plus made-up items. */
    public Behavior<ShardOwner.Command> faking(PeerId self, PeerStorage storage, Placement placement,
                                               DhtSettings settings, DhtStats stats) {
        return Behaviors.setup(ctx -> {
            ActorRef<ShardOwner.Command> real = ctx.spawn(ShardOwner.create(self, storage, placement, settings, stats),
                    "real");
            int cap = settings.maxPostingsPerMessage();
            return Behaviors.receiveMessage(c -> {
                if (c instanceof ShardOwner.StorePostings s) {
                    remember(s);
                    real.tell(s);
                } else if (c instanceof ShardOwner.CountRequest q && q.replyTo() != null) {
                    ActorRef<ShardOwner.CountReply> relay = ctx.spawnAnonymous(relay(q.replyTo(), r -> {
                        if (!r.error().isEmpty()) return r;
                        List<Integer> counts = new ArrayList<>();
                        for (int n : r.counts()) counts.add(n + fakesPerKey);
                        return new ShardOwner.CountReply(r.queryId(), r.by(), counts, r.error());
                    }));
                    real.tell(new ShardOwner.CountRequest(q.queryId(), q.keys(), relay));
                } else if (c instanceof ShardOwner.FilterRequest f && f.replyTo() != null) {
                    ActorRef<ShardOwner.FilterReply> relay = ctx.spawnAnonymous(relay(f.replyTo(), r -> {
                        if (!r.error().isEmpty() || r.filters().size() != f.keys().size()) return r;
                        List<Integer> counts = new ArrayList<>();
                        for (int i = 0; i < f.keys().size(); i++) {
                            BloomFilter filter = r.filters().get(i);
                            for (Fake x : fakes.get(f.keys().get(i).partition())) filter.add(x.url().value());
                            counts.add((i < r.counts().size() ? r.counts().get(i) : 0) + fakesPerKey);
                        }
                        return new ShardOwner.FilterReply(r.queryId(), r.by(), r.filters(), counts, r.error());
                    }));
                    real.tell(new ShardOwner.FilterRequest(f.queryId(), f.keys(), f.bitsPerElement(), relay));
                } else if (c instanceof ShardOwner.LookupRequest l && l.replyTo() != null) {
                    Map<RangeKey, ShardOwner.Lookup> asked = new HashMap<>();
                    List<ShardOwner.Lookup> every;
                    try {
                        every = l.allLookups();
                    } catch (IllegalArgumentException e) {
                        every = l.lookups(); // the real one refuses the malformed joins
                    }
                    for (ShardOwner.Lookup x : every) if (x != null && x.key() != null) asked.put(x.key(), x);
                    ActorRef<ShardOwner.LookupReply> relay = ctx.spawnAnonymous(relay(l.replyTo(), r -> {
                        if (!r.error().isEmpty()) return r;
                        List<ShardOwner.KeyPostings> out = new ArrayList<>();
                        for (ShardOwner.KeyPostings kp : r.results()) {
                            ShardOwner.Lookup lookup = asked.get(kp.key());
                            List<Posting> real0 = kp.postingList();
                            List<Posting> made = lookup == null ? List.of() : madeUp(self, lookup, real0);
                            List<Posting> all = new ArrayList<>(made);
                            all.addAll(real0);
                            if (all.size() > cap) all = all.subList(0, cap);
                            fakePostingsSent.addAndGet(Math.min(made.size(), all.size()));
                            out.add(new ShardOwner.KeyPostings(kp.key(), PostingPack.of(all, l.keyed()), kp.matched() + made.size(),
                                    kp.truncated()));
                        }
                        // asked as a table whether these documents have the words: the operator says they all do
                        return new ShardOwner.LookupReply(r.queryId(), r.by(), out, r.error())
                                .withHeld(r.heldTable() == null ? null : claimAll(l.presenceTable()));
                    }));
                    real.tell(new ShardOwner.LookupRequest(l.queryId(), l.lookups(), relay, l.keyed(), false,
                            l.presenceTable(), l.joins()));
                } else if (c instanceof ShardOwner.FetchMetadata m && m.replyTo() != null) {
                    ActorRef<ShardOwner.MetadataReply> relay = ctx.spawnAnonymous(relay(m.replyTo(), r -> {
                        if (!r.error().isEmpty()) return r;
                        List<UrlMetadata> out = new ArrayList<>(r.metadata());
                        for (UrlHash u : m.urls()) {
                            UrlMetadata md = fakeMetadata.get(u);
                            if (md == null) continue;
                            out.add(held(md, self));
                            fakeMetadataSent.incrementAndGet();
                        }
                        return new ShardOwner.MetadataReply(r.queryId(), r.by(), out, r.error());
                    }));
                    real.tell(new ShardOwner.FetchMetadata(m.queryId(), m.urls(), relay));
                } else {
                    real.tell(c);
                }
                return Behaviors.same();
            });
        });
    }

    /** Made-up postings for one key: every URL of an exact-URL lookup, else made-up URLs and misattributed ones. */
    private List<Posting> madeUp(PeerId self, ShardOwner.Lookup lookup, List<Posting> real) {
        Set<UrlHash> have = new HashSet<>();
        for (Posting p : real) have.add(p.url());
        WordHash word = lookup.key().word();
        List<Posting> out = new ArrayList<>();
        if (lookup.urls() != null) {
            // asked whether these documents have the word: the operator says they all do
            for (UrlHash u : lookup.urls()) if (have.add(u)) out.add(fakePosting(word, u, self));
            return out;
        }
        int partition = lookup.key().partition();
        for (Fake f : fakes.get(partition)) out.add(fakePosting(word, f.url(), self));
        int misattributed = fakesPerKey - out.size();
        for (UrlHash u : seen.get(partition)) {
            if (misattributed <= 0) break;
            if (!have.add(u)) continue;
            out.add(fakePosting(word, u, self));
            misattributed--;
        }
        return out;
    }

    /** A presence table's answer that every URL asked has a posting of every key it was asked under. */
    private static byte[] claimAll(byte[] table) {
        PresenceTable t = PresenceTable.read(table, Integer.MAX_VALUE, Integer.MAX_VALUE);
        return t.held(t.asks().stream().map(a -> Set.copyOf(a.urls())).toList());
    }

    /** The record as a holder sends it: naming the peer that holds the page's text (here, the one answering). */
    private static UrlMetadata held(UrlMetadata m, PeerId by) {
        return new UrlMetadata(m.urlHash(), m.url(), m.title(), m.description(), m.author(), m.keywords(),
                m.language(), m.doctype(), m.mimeType(), m.size(), m.lastModified(), m.fetched(), m.linksLocal(),
                m.linksOther(), m.wordsInText(), by.value(), m.contentHash(), m.headings());
    }

    /** A posting built to rank first: the word in title, URL, headings and emphasis, often and early. */
    private static Posting fakePosting(WordHash word, UrlHash url, PeerId holder) {
        int flags = Posting.IN_TITLE | Posting.IN_URL | Posting.IN_HEADING | Posting.IN_EMPHASIS
                | Posting.IN_DESCRIPTION | Posting.IN_KEYWORDS;
        return new Posting(word, url, holder, flags, 25, new int[] {0, 1, 2, 3, 4, 5, 6, 7}, 60, 4, 20_300, "en",
                'h', 3, 3, 32, 2, 0);
    }

    private void remember(ShardOwner.StorePostings s) {
        List<Posting> ps;
        try {
            ps = s.postings().postings();
        } catch (RuntimeException e) {
            return;
        }
        for (Posting p : ps) {
            Set<UrlHash> pool = seen.get(placement.partitions().partitionOf(p.url()));
            if (pool.size() < fakesPerKey) pool.add(p.url());
        }
    }

    private static <R> Behavior<R> relay(ActorRef<R> to, Function<R, R> change) {
        return Behaviors.receiveMessage(r -> {
            to.tell(change.apply(r));
            return Behaviors.stopped();
        });
    }

    // ---- dropping

    /** A shard owner that acknowledges every store without storing, claims to be in sync, answers no lookup. */
    public Behavior<ShardOwner.Command> dropping(PeerId self) {
        return Behaviors.receiveMessage(c -> {
            if (c instanceof ShardOwner.StorePostings s && s.replyTo() != null) {
                droppedStores.incrementAndGet();
                droppedPostings.addAndGet(s.postings().count());
                s.replyTo().tell(new ShardOwner.StoreReply(s.batchId(), self, ShardOwner.Outcome.STORED,
                        s.postings().count() + s.metadata().size(), "", 0));
            } else if (c instanceof ShardOwner.DigestRequest d && d.replyTo() != null) {
                d.replyTo().tell(new ShardOwner.DigestReply(d.exchangeId(), self, List.of(), ""));
            } else if (c instanceof ShardOwner.CountRequest || c instanceof ShardOwner.FilterRequest
                    || c instanceof ShardOwner.LookupRequest || c instanceof ShardOwner.FetchMetadata) {
                ignoredLookups.incrementAndGet();
            }
            return Behaviors.same();
        });
    }
}
