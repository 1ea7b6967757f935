package org.peerdex.actors.search;

/**
 * One result of a federated (outside) search engine, as its answer listed it: it has no postings, so it is
 * ranked by its place in that answer and the source's weight, and shown from these fields.
 *
 * @param source       the configured source's name
 * @param rank         1-based place in the source's answer
 * @param weight       the source's weight (see docs/federation.md)
 * @param lastModified epoch milliseconds of the result's date, 0 if unknown
 */
public record ExternalHit(String source, String url, String title, String snippet, int rank, double weight,
                          long lastModified) {
    public ExternalHit {
        title = title == null ? "" : title;
        snippet = snippet == null ? "" : snippet;
    }
}
