package org.peerdex.actors.search;

import java.util.List;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.rwi.Posting;

/**
 * A URL that contains every query term: its postings, one per term in query-term order; or a result of a
 * federated source ({@code external} set, no postings), which ranking scores by its place in that source.
 */
public record Candidate(UrlHash url, List<Posting> postings, ExternalHit external) {
    public Candidate {
        postings = List.copyOf(postings);
    }

    public Candidate(UrlHash url, List<Posting> postings) {
        this(url, postings, null);
    }

    /** A federated source's result. */
    public static Candidate external(UrlHash url, ExternalHit hit) {
        return new Candidate(url, List.of(), hit);
    }

    public boolean isExternal() {
        return external != null;
    }

    /** The first posting (features shared by all postings of a document: lengths, date, language...). */
    public Posting any() {
        return postings.get(0);
    }

    public boolean cached() {
        return postings.stream().anyMatch(p -> p.has(Posting.CACHED));
    }
}
