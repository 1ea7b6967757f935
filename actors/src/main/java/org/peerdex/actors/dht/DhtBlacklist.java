package org.peerdex.actors.dht;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.blacklist.Blacklist;
import org.peerdex.storage.blacklist.BlacklistRule;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;

/**
 * Applies the dht-scope blacklist to what other peers send: metadata of a blocked URL is dropped, and so are
 * postings of a blocked URL (known from the same batch, from metadata already stored here, or from a blocked
 * metadata record seen before: {@code seenBlocked}). Postings that arrived before their URL's metadata are purged
 * when the metadata shows the URL is blocked ({@link Kept#purge}). A posting of a URL this peer never learns the
 * metadata of cannot be judged (postings carry only the URL hash); search still hides it, since its metadata is
 * checked in the search scope when it is shown.
 */
final class DhtBlacklist {
    /** Blocked URL hashes remembered per peer (bounded: the oldest are forgotten). */
    static final int MAX_REMEMBERED = 100_000;

    /** What is kept, how many entries were dropped, and URLs whose already stored postings must go. */
    record Kept(List<Posting> postings, List<UrlMetadata> metadata, int dropped, List<UrlHash> purge) {}

    private DhtBlacklist() {}

    /** A bounded, thread-safe set of blocked URL hashes for {@link #keep}. */
    static Set<UrlHash> rememberedSet() {
        return java.util.Collections.synchronizedSet(java.util.Collections.newSetFromMap(
                new java.util.LinkedHashMap<UrlHash, Boolean>() {
                    @Override
                    protected boolean removeEldestEntry(java.util.Map.Entry<UrlHash, Boolean> e) {
                        return size() > MAX_REMEMBERED;
                    }
                }));
    }

    /** Blocking: may read stored metadata. */
    static Kept keep(PeerStorage storage, List<Posting> postings, List<UrlMetadata> metadata,
                     Set<UrlHash> seenBlocked) {
        Blacklist bl = storage.blacklist();
        if (bl.rules(BlacklistRule.Scope.DHT).isEmpty()) return new Kept(postings, metadata, 0, List.of());
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
