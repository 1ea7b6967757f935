package org.peerdex.actors.dht.shard;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.blacklist.Blacklist;
import org.peerdex.storage.blacklist.BlacklistRule;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * Applies the dht-scope blacklist both ways. Outgoing ({@link Outgoing}): the replicator sends no postings or
 * metadata of a blocked URL, in new replication, hand-off and repair alike, and leaves them out of its range
 * digests (else every repair round would find the same difference again). Incoming: metadata of a blocked URL is dropped, and so are
 * postings of a blocked URL (known from the same batch, from metadata already stored here, or from a blocked
 * metadata record seen before: {@code seenBlocked}). Postings that arrived before their URL's metadata are purged
 * when the metadata shows the URL is blocked ({@link Kept#purge}). A posting of a URL this peer never learns the
 * metadata of cannot be judged (postings carry only the URL hash); search still hides it, since its metadata is
 * checked in the search scope when it is shown.
 */
public final class DhtBlacklist {
    /** Blocked URL hashes remembered per peer (bounded: the oldest are forgotten). */
    static final int MAX_REMEMBERED = 100_000;

    /** What is kept, how many entries were dropped, and URLs whose already stored postings must go. */
    record Kept(List<Posting> postings, List<UrlMetadata> metadata, int dropped, List<UrlHash> purge) {}

    private DhtBlacklist() {}

    /** A filter for one batch or one scan (blocking: may read stored metadata). */
    public static Outgoing outgoing(PeerStorage storage) {
        return new Outgoing(storage);
    }

    /**
     * Which outgoing entries the dht scope blocks, with the decision per URL remembered for the filter's lifetime.
     * A posting's URL is known from metadata given to {@link #learn} or stored here; a posting of a URL this peer
     * has no metadata for cannot be judged and is sent (the receiver's own blacklist still applies).
     */
    public static final class Outgoing {
        private final PeerStorage storage;
        private final Blacklist blacklist;
        private final boolean active;
        private final Map<UrlHash, Boolean> decided = new HashMap<>();
        private int dropped;

        private Outgoing(PeerStorage storage) {
            this.storage = storage;
            this.blacklist = storage.blacklist();
            this.active = !blacklist.isEmpty(BlacklistRule.Scope.DHT);
        }

        /** False when the dht scope has no rules: nothing is blocked, and a caller need not decode to ask. */
        public boolean active() {
            return active;
        }

        /** Metadata that travels with the postings: their URLs are judged from it, without a read. */
        public Outgoing learn(List<UrlMetadata> metadata) {
            if (active) for (UrlMetadata m : metadata) decide(m);
            return this;
        }

        private boolean decide(UrlMetadata m) {
            bound();
            return decided.computeIfAbsent(m.urlHash(), u -> blacklist.blocks(BlacklistRule.Scope.DHT, m.url()));
        }

        /** A scan over a large index must not remember every URL: past the bound, decisions are read again. */
        private void bound() {
            if (decided.size() >= MAX_REMEMBERED) decided.clear();
        }

        public boolean blocks(UrlMetadata m) {
            if (!active) return false;
            boolean b = decide(m);
            if (b) dropped++;
            return b;
        }

        public boolean blocks(Posting p) {
            if (!active) return false;
            bound();
            boolean b = decided.computeIfAbsent(p.url(), u -> storage.metadata().get(u)
                    .map(m -> blacklist.blocks(BlacklistRule.Scope.DHT, m.url())).orElse(false));
            if (b) dropped++;
            return b;
        }

        public List<Posting> postings(List<Posting> postings) {
            if (!active) return postings;
            List<Posting> out = new ArrayList<>(postings.size());
            for (Posting p : postings) if (!blocks(p)) out.add(p);
            return out;
        }

        public List<UrlMetadata> metadata(List<UrlMetadata> metadata) {
            if (!active) return metadata;
            List<UrlMetadata> out = new ArrayList<>(metadata.size());
            for (UrlMetadata m : metadata) if (!blocks(m)) out.add(m);
            return out;
        }

        /** How many entries were held back so far (metadata given to learn not counted). */
        public int dropped() {
            return dropped;
        }
    }

    /** A bounded, thread-safe set of blocked URL hashes for {@link #keep}. */
    static Set<UrlHash> rememberedSet() {
        return Collections.synchronizedSet(Collections.newSetFromMap(
                new LinkedHashMap<UrlHash, Boolean>() {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<UrlHash, Boolean> e) {
                        return size() > MAX_REMEMBERED;
                    }
                }));
    }

    /** Blocking: may read stored metadata. */
    static Kept keep(PeerStorage storage, List<Posting> postings, List<UrlMetadata> metadata,
                     Set<UrlHash> seenBlocked) {
        Blacklist bl = storage.blacklist();
        if (bl.isEmpty(BlacklistRule.Scope.DHT)) return new Kept(postings, metadata, 0, List.of());
        Set<UrlHash> blocked = new HashSet<>();
        List<UrlHash> purge = new ArrayList<>();
        Set<UrlHash> allowed = new HashSet<>();
        List<UrlMetadata> keptMeta = new ArrayList<>();
        for (UrlMetadata m : metadata) {
            if (bl.blocks(BlacklistRule.Scope.DHT, m.url())) {
                blocked.add(m.urlHash());
                if (seenBlocked.add(m.urlHash())) purge.add(m.urlHash());
            } else {
                allowed.add(m.urlHash());
                keptMeta.add(m);
            }
        }
        List<Posting> keptPostings = new ArrayList<>();
        for (Posting p : postings) {
            UrlHash u = p.url();
            if (!blocked.contains(u) && !allowed.contains(u)) {
                boolean isBlocked = seenBlocked.contains(u) || storage.metadata().get(u)
                        .map(m -> bl.blocks(BlacklistRule.Scope.DHT, m.url())).orElse(false);
                (isBlocked ? blocked : allowed).add(u);
            }
            if (!blocked.contains(u)) keptPostings.add(p);
        }
        int dropped = postings.size() - keptPostings.size() + metadata.size() - keptMeta.size();
        return new Kept(keptPostings, keptMeta, dropped, purge);
    }
}
