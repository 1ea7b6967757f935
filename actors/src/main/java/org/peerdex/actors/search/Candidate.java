package org.peerdex.actors.search;

import java.util.List;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.rwi.Posting;

/** A URL that contains every query term: its postings, one per term in query-term order. */
public record Candidate(UrlHash url, List<Posting> postings) {
    public Candidate {
        postings = List.copyOf(postings);
    }

    /** The first posting (features shared by all postings of a document: lengths, date, language...). */
    public Posting any() {
        return postings.get(0);
    }

    public boolean cached() {
        return postings.stream().anyMatch(p -> p.has(Posting.CACHED));
    }
}
