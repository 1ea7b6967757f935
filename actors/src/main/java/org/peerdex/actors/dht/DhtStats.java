package org.peerdex.actors.dht;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.peerdex.actors.dht.replication.Replicator;
import org.peerdex.actors.dht.shard.PostingValidator;
import org.peerdex.actors.dht.shard.ShardOwner;

/**
 * Counters of one peer's DHT work, read by /api/status: what its ShardOwner stored, refused and rejected, and how
 * far its Replicator's replication, hand-off and repair have come. Written by the actors, read by anyone.
 */
public final class DhtStats {
    public final AtomicLong storedPostings = new AtomicLong();
    public final AtomicLong storedMetadata = new AtomicLong();
    public final AtomicLong refusedMessages = new AtomicLong();
    public final AtomicLong rejectedMessages = new AtomicLong();
    public final AtomicLong busyReplies = new AtomicLong();
    public final AtomicLong lookupsAnswered = new AtomicLong();
    /** Join lookups answered (one per partition of a request's words: the holder joined the words' postings). */
    public final AtomicLong joinLookupsAnswered = new AtomicLong();
    /** Postings a lookup's answer passed over by their blocks' highest score (none of them could enter the top). */
    public final AtomicLong lookupPostingsSkipped = new AtomicLong();
    /** Messages from blocked senders, dropped unanswered. */
    public final AtomicLong blockedMessages = new AtomicLong();
    /** Lookups refused because the sender asked too often or too many were running. */
    public final AtomicLong busyLookups = new AtomicLong();
    /** Messages that made the handler fail (null fields a decoder let through); answered as errors. */
    public final AtomicLong failedMessages = new AtomicLong();
    public volatile int blockedSenders;
    /**
     * Metadata records from other peers (stored transfers and search replies) dropped because their URL is not an
     * http(s) URL that hashes to their URL hash (PostingValidator.urlProblem).
     */
    public final AtomicLong rejectedMetadata = new AtomicLong();
    /** received postings and metadata dropped by the dht-scope blacklist */
    public final AtomicLong blacklistedEntries = new AtomicLong();
    public final AtomicLong replicatedPostings = new AtomicLong();
    /** postings and metadata the dht-scope blacklist kept from being sent (replication, repair, lookup answers) */
    public final AtomicLong blacklistedOutgoing = new AtomicLong();
    /**
     * documents handed to replication whose outbox batches are not written yet: a document is acknowledged to its
     * client before its batches are planned, so "outbox empty" alone does not mean "everything offered"
     */
    public final AtomicLong replicationsPlanning = new AtomicLong();
    /** batches and postings in the durable outbox, not yet acknowledged */
    public final AtomicLong outboxEntries = new AtomicLong();
    public final AtomicLong outboxPostings = new AtomicLong();
    /** the part of the outbox held in heap (bounded by peerdex.dht.outbox-heap-bytes) */
    public final AtomicLong outboxHeapEntries = new AtomicLong();
    public final AtomicLong outboxHeapBytes = new AtomicLong();
    /** true while the outbox holds more than {@link #outboxPauseAt} postings: new documents wait (back-pressure) */
    public volatile boolean outboxFull;
    public volatile long outboxPauseAt;
    public final AtomicLong acknowledgedBatches = new AtomicLong();
    public final AtomicLong retries = new AtomicLong();
    public final AtomicLong handoffPending = new AtomicLong();
    public final AtomicLong handedOffPostings = new AtomicLong();
    public final AtomicLong deletedAfterHandoff = new AtomicLong();
    /** handed-off postings kept because their holders did not sit on distinct address prefixes (open network) */
    public final AtomicLong keptAfterHandoff = new AtomicLong();
    public final AtomicLong repairRounds = new AtomicLong();
    /** Ring changes after which this peer's neighbourhood was the same, so its rebalance had nothing to do. */
    public final AtomicLong rebalancesSkipped = new AtomicLong();
    public final AtomicLong repairRangesDiffering = new AtomicLong();
    public final AtomicLong repairedPostings = new AtomicLong();
    public final AtomicLong repairedMetadata = new AtomicLong();
    /** entries of differing ranges not sent because the target listed them as held (key-level repair) */
    public final AtomicLong repairHeldSkipped = new AtomicLong();
    public volatile long lastRebalanceMillis;
    public volatile int ringSize;
    /**
     * This peer's global searches: messages and bytes to and from other peers per kind of exchange (count, filter,
     * lookup, rarest, metadata, confirm, ...), {@code [messages, bytes]}, summed over every search so far
     */
    public final Map<String, long[]> searchTraffic = new java.util.concurrent.ConcurrentHashMap<>();

    /** Adds one search's traffic of a kind. */
    public void addSearchTraffic(String kind, long messages, long bytes) {
        searchTraffic.compute(kind, (k, v) -> v == null ? new long[] {messages, bytes}
                : new long[] {v[0] + messages, v[1] + bytes});
    }

    /** messages and bytes per remote peer (the console's live traffic) */
    public final PeerTraffic traffic = new PeerTraffic();

    /** Why new documents should wait before they are indexed (the replication backlog is over its bound), or null. */
    public String backlog() {
        return outboxFull ? "replication backlog: " + outboxPostings.get() + " postings wait for their holders' "
                + "acknowledgement (more than peerdex.dht.outbox-pause-postings = " + outboxPauseAt + ")" : null;
    }

    /** A JSON-friendly snapshot, grouped as /api/status shows it. */
    public Map<String, Object> snapshot() {
        Map<String, Object> shard = new LinkedHashMap<>();
        shard.put("storedPostings", storedPostings.get());
        shard.put("storedMetadata", storedMetadata.get());
        shard.put("refusedMessages", refusedMessages.get());
        shard.put("rejectedMessages", rejectedMessages.get());
        shard.put("busyReplies", busyReplies.get());
        shard.put("lookupsAnswered", lookupsAnswered.get());
        shard.put("joinLookupsAnswered", joinLookupsAnswered.get());
        shard.put("lookupPostingsSkipped", lookupPostingsSkipped.get());
        shard.put("blockedMessages", blockedMessages.get());
        shard.put("blockedSenders", blockedSenders);
        shard.put("busyLookups", busyLookups.get());
        shard.put("failedMessages", failedMessages.get());
        shard.put("rejectedMetadata", rejectedMetadata.get());
        shard.put("blacklistedEntries", blacklistedEntries.get());
        Map<String, Object> repl = new LinkedHashMap<>();
        repl.put("replicatedPostings", replicatedPostings.get());
        repl.put("blacklistedOutgoing", blacklistedOutgoing.get());
        repl.put("planning", replicationsPlanning.get());
        repl.put("outboxEntries", outboxEntries.get());
        repl.put("outboxPostings", outboxPostings.get());
        repl.put("outboxHeapEntries", outboxHeapEntries.get());
        repl.put("outboxHeapBytes", outboxHeapBytes.get());
        repl.put("outboxPauseAtPostings", outboxPauseAt);
        repl.put("indexingPaused", outboxFull);
        repl.put("acknowledgedBatches", acknowledgedBatches.get());
        repl.put("retries", retries.get());
        Map<String, Object> handoff = new LinkedHashMap<>();
        handoff.put("pendingPostings", handoffPending.get());
        handoff.put("handedOffPostings", handedOffPostings.get());
        handoff.put("deletedAfterAck", deletedAfterHandoff.get());
        handoff.put("keptWithoutPrefixQuorum", keptAfterHandoff.get());
        Map<String, Object> repair = new LinkedHashMap<>();
        repair.put("rounds", repairRounds.get());
        repair.put("skipped", rebalancesSkipped.get());
        repair.put("rangesDiffering", repairRangesDiffering.get());
        repair.put("repairedPostings", repairedPostings.get());
        repair.put("repairedMetadata", repairedMetadata.get());
        repair.put("heldNotSent", repairHeldSkipped.get());
        repair.put("lastRebalance", lastRebalanceMillis);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ringSize", ringSize);
        out.put("shard", shard);
        out.put("replication", repl);
        out.put("handoff", handoff);
        out.put("repair", repair);
        return out;
    }
}
