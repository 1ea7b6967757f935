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
 * Applies the dht-scope blacklist to what another peer sends: metadata of a blocked URL is dropped, and so are
 * postings of a blocked URL (known from the same batch or from metadata already stored here). A posting whose
 * URL this peer has never seen cannot be judged (postings carry only the URL hash); search still hides it, since
 * its metadata is checked in the search scope when it is shown.
 */
final class DhtBlacklist {
    /** What is kept, and how many entries were dropped. */
    record Kept(List<Posting> postings, List<UrlMetadata> metadata, int dropped) {}

    private DhtBlacklist() {}

    /** Blocking: may read stored metadata. */
    static Kept keep(PeerStorage storage, List<Posting> postings, List<UrlMetadata> metadata) {
        Blacklist bl = storage.blacklist();
        if (bl.rules(BlacklistRule.Scope.DHT).isEmpty()) return new Kept(postings, metadata, 0);
        Set<UrlHash> blocked = new HashSet<>();
        Set<UrlHash> allowed = new HashSet<>();
        List<UrlMetadata> keptMeta = new ArrayList<>();
        for (UrlMetadata m : metadata) {
            if (bl.blocks(BlacklistRule.Scope.DHT, m.url())) {
                blocked.add(m.urlHash());
            } else {
                allowed.add(m.urlHash());
                keptMeta.add(m);
            }
        }
        List<Posting> keptPostings = new ArrayList<>();
        for (Posting p : postings) {
            UrlHash u = p.url();
            if (!blocked.contains(u) && !allowed.contains(u)) {
                boolean isBlocked = storage.metadata().get(u).map(m -> bl.blocks(BlacklistRule.Scope.DHT, m.url()))
                        .orElse(false);
                (isBlocked ? blocked : allowed).add(u);
            }
            if (!blocked.contains(u)) keptPostings.add(p);
        }
        int dropped = postings.size() - keptPostings.size() + metadata.size() - keptMeta.size();
        return new Kept(keptPostings, keptMeta, dropped);
    }
}
