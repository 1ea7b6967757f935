package org.peerdex.actors.dht.shard;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The crawlers ("origins") digest indexes have met, as small ints, one numbering for the whole process. A node runs
 * one peer and so one digest index, but a simulation runs 100,000 virtual peers that all meet the same crawlers:
 * a table per index (a map entry, a string and a parsed id per origin met) was 1.9 GB there, about 170 origins a
 * peer. The ids are labels inside this process: never stored, never sent. Thread-safe.
 */
final class OriginIds {
    private static final ConcurrentHashMap<String, Integer> IDS = new ConcurrentHashMap<>();
    private static final AtomicInteger NEXT = new AtomicInteger();

    private OriginIds() {
    }

    /** The id of {@code peer}, numbered now if it is new. */
    static int of(String peer) {
        Integer id = IDS.get(peer);
        return id != null ? id : IDS.computeIfAbsent(peer, p -> NEXT.getAndIncrement());
    }

    /** The id of {@code peer}, or -1 if no index has met it (then no index holds an entry of it). */
    static int find(String peer) {
        Integer id = IDS.get(peer);
        return id == null ? -1 : id;
    }
}
