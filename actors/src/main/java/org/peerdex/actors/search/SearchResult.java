package org.peerdex.actors.search;

import org.peerdex.actors.search.ranking.Explanation;

/**
 * One result as clients see it (DESIGN.md §6).
 *
 * @param date    ISO-8601 date of the document, "" if unknown
 * @param cached  learned from a remote peer and kept with a TTL
 * @param explain the score by factor, when asked for (else null)
 * @param source  where it came from: "local" (this peer's index), "dht" (other peers), or a federated source's name
 * @param verification for verify=true: "verified" (the live page was read and has the words) or "unverified" (the
 *                     page was not fetched: its address is one this peer does not reach); "" otherwise
 */
public record SearchResult(String url, String urlHash, String title, String snippet, double score, String host,
                           String filetype, String language, String date, String author, long size,
                           long lastModified, boolean cached, Explanation explain, String source,
                           String verification) {}
