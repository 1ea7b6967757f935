package org.peerdex.actors.dht.shard;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.typesafe.config.Config;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.peerdex.actors.Dispatchers;
import org.peerdex.actors.dht.DhtEnvironment;
import org.peerdex.actors.dht.DhtSettings;
import org.peerdex.actors.dht.DhtStats;
import org.peerdex.actors.dht.LocalOnly;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.WireCost;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerInfo;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.protocol.WireMessage;
import org.peerdex.protocol.filter.BloomFilter;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.wire.JoinTable;
import org.peerdex.protocol.wire.LeftOut;
import org.peerdex.protocol.wire.PrefixScores;
import org.peerdex.protocol.wire.PresenceTable;
import org.peerdex.protocol.wire.UrlPrefixes;
import org.peerdex.protocol.wire.V1;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.blacklist.BlacklistRule;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.meta.UrlMetadata;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.PostingCodec;
import org.peerdex.storage.rwi.ReverseWordIndex;

/**
 * The ranges this peer holds. Accepts transfers ({@link StorePostings}) only for positions it holds in the
 * current ring, bounds every message and every sender's rate, validates what it receives and acknowledges only
 * after a durable write; answers remote lookups: counts, Bloom filters, filtered top-k postings, URL metadata,
 * and range digests for anti-entropy. See docs/protocol.md.
 */
public final class ShardOwner extends AbstractBehavior<ShardOwner.Command> {
    public static final ServiceKey<Command> KEY = ServiceKey.create(Command.class, "peerdex-shard-owner");

    public sealed interface Command {}

    /** Wire: store these postings and metadata records; answered with a {@link StoreReply}. */
    public record StorePostings(long batchId, PeerId from, PostingPack postings, List<UrlMetadata> metadata,
                                ActorRef<StoreReply> replyTo) implements Command, WireMessage {
        public StorePostings {
            postings = postings == null ? PostingPack.EMPTY : postings;
            metadata = metadata == null ? List.of() : metadata;
        }
    }

    /** The outcome of a transfer. */
    public enum Outcome { STORED, REFUSED, REJECTED, BUSY }

    /** Wire: STORED (durably), REFUSED (not my range), REJECTED (malformed/oversized) or BUSY (pause and retry). */
    public record StoreReply(long batchId, PeerId by, Outcome outcome, int stored, String reason,
                             long retryAfterMillis) implements WireMessage {}

    /**
     * Wire: how many postings each (word, partition) has here. With {@code tops} (not written when 0), the asker
     * would next ask a top lookup of every key whose list is long: the reply's {@link CountReply#tops} carries, for
     * each key with more than {@link #TOPS_OVER} × {@code tops} postings here, the answer to a score lookup of its
     * best {@code tops} (with URLs by prefix, as {@link LookupRequest#prefixScores} asks), so the first round of top
     * lookups needs no request of its own. A holder that predates it ignores the field and sends counts alone.
     */
    public record CountRequest(long queryId, List<RangeKey> keys, ActorRef<CountReply> replyTo,
                               @JsonInclude(JsonInclude.Include.NON_DEFAULT) int tops)
            implements Command, WireMessage {
        public CountRequest(long queryId, List<RangeKey> keys, ActorRef<CountReply> replyTo) {
            this(queryId, keys, replyTo, 0);
        }
    }

    /**
     * A count request's tops go with the keys holding more than this many times their depth: the lists the asker
     * takes top lookups for (a shorter one goes by the filters; the asker's rule is the same).
     */
    public static final int TOPS_OVER = 8;

    /**
     * {@code tops} (null, and not written, when none were asked or none of the keys is long here): score lookups'
     * answers of the keys with long lists, in the order asked, at most a message's bound of entries in all.
     */
    public record CountReply(long queryId, PeerId by, List<Integer> counts, String error,
                             @JsonInclude(JsonInclude.Include.NON_NULL) List<KeyPostings> tops) implements WireMessage {
        public CountReply(long queryId, PeerId by, List<Integer> counts, String error) {
            this(queryId, by, counts, error, null);
        }
    }

    /** Wire: a Bloom filter over the URL hashes of each (word, partition). */
    public record FilterRequest(long queryId, List<RangeKey> keys, int bitsPerElement,
                                ActorRef<FilterReply> replyTo) implements Command, WireMessage {}

    public record FilterReply(long queryId, PeerId by, List<BloomFilter> filters, List<Integer> counts,
                              String error) implements WireMessage {}

    /**
     * One key of a lookup: postings of (word, partition) passing the filter (or in the URL set), top {@code limit}.
     * A join lookup ({@code join} not null: the query's words, the key's among them) asks instead, for every word of
     * {@code join}, for its postings in the key's partition of the URLs that have a posting of every one of them
     * here: the best {@code limit} URLs by the sum of their partial scores, counted over every join lookup of the
     * request together; the reply has one {@link KeyPostings} per word (see {@link ShardOwner#lookupJoined}).
     * A presence lookup ({@code presence}, with a URL set and nothing else) asks only which of the URLs have a posting
     * of the key here: the reply's {@link KeyPostings#held} marks them, one bit per URL in the order asked, and
     * carries no postings (what a confirmation needs, at a bit a URL instead of a posting). A score lookup
     * ({@code scores}, with or without a URL set or a filter, no join) asks for the same best {@code limit} as a
     * plain one, but only their URLs and partial scores: the reply's {@link KeyPostings#scores} (a {@link ScoreList}),
     * no postings. A holder that predates it ignores the flag and sends the postings, from which the asker takes the
     * scores itself; one that predates scored filters refuses a score lookup with a filter as malformed. A lookup by URL prefixes ({@code prefixes}, a {@link UrlPrefixes} pack, instead of a URL set;
     * no filter, join or presence) asks as a URL set does, for every URL of the key that begins with one of them;
     * the answer's {@link KeyPostings#prefixed} says the holder read them (one that predates them does not).
     * A score lookup with a {@code part} ({@link WordPart}: the query's word count and this word's share of its
     * BM25; 0, not written, for none) ranks and scores by the word's part of that query's score instead of the
     * one-word score; a holder that predates it ranks by the one-word score, which is never below the part.
     */
    public record Lookup(RangeKey key, @JsonInclude(JsonInclude.Include.NON_NULL) BloomFilter filter,
                         @JsonInclude(JsonInclude.Include.NON_NULL) List<UrlHash> urls, int limit,
                         @JsonInclude(JsonInclude.Include.NON_NULL) List<WordHash> join,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean presence,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean scores,
                         @JsonInclude(JsonInclude.Include.NON_NULL) byte[] prefixes,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) int part,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean prefixFilter,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) int skip) {
        public Lookup {
            join = join == null ? null : List.copyOf(join);
        }

        public Lookup(RangeKey key, BloomFilter filter, List<UrlHash> urls, int limit, List<WordHash> join,
                      boolean presence, boolean scores, byte[] prefixes, int part, boolean prefixFilter) {
            this(key, filter, urls, limit, join, presence, scores, prefixes, part, prefixFilter, 0);
        }

        public Lookup(RangeKey key, BloomFilter filter, List<UrlHash> urls, int limit, List<WordHash> join,
                      boolean presence, boolean scores, byte[] prefixes, int part) {
            this(key, filter, urls, limit, join, presence, scores, prefixes, part, false);
        }

        /**
         * A top lookup's next round: the key's best {@code limit} by score, less the first {@code skip} of them, which
         * the asker has from this holder's answer before. A holder that predates it sends all {@code limit}.
         */
        public static Lookup deeper(RangeKey key, int limit, int skip) {
            return new Lookup(key, null, null, limit, null, false, true, null, 0, false, skip);
        }

        public Lookup(RangeKey key, BloomFilter filter, List<UrlHash> urls, int limit, List<WordHash> join,
                      boolean presence, boolean scores, byte[] prefixes) {
            this(key, filter, urls, limit, join, presence, scores, prefixes, 0);
        }

        public Lookup(RangeKey key, BloomFilter filter, List<UrlHash> urls, int limit, List<WordHash> join,
                      boolean presence, boolean scores) {
            this(key, filter, urls, limit, join, presence, scores, null);
        }

        /** The same lookup, its scores as {@code part} names (0: the one-word score); only a score lookup has one. */
        public Lookup withPart(int part) {
            return !scores || part == this.part ? this
                    : new Lookup(key, filter, urls, limit, join, presence, scores, prefixes, part, prefixFilter, skip);
        }

        public Lookup(RangeKey key, BloomFilter filter, List<UrlHash> urls, int limit, List<WordHash> join,
                      boolean presence) {
            this(key, filter, urls, limit, join, presence, false);
        }

        public Lookup(RangeKey key, BloomFilter filter, List<UrlHash> urls, int limit, List<WordHash> join) {
            this(key, filter, urls, limit, join, false, false);
        }

        /** The best {@code limit} URLs of the key by partial score (of {@code urls} only, when not null), as scores. */
        public static Lookup scores(RangeKey key, List<UrlHash> urls, int limit) {
            return new Lookup(key, null, urls, limit, null, false, true);
        }

        /**
         * The key's postings (or, with {@code scores}, scores) of these URLs, named by their prefixes
         * ({@link UrlPrefixes}): the holder sends those of every URL beginning with one, a few more than asked
         * at most by chance, so the limit leaves room for them.
         */
        public static Lookup byPrefixes(RangeKey key, List<UrlHash> urls, boolean scores) {
            List<String> hashes = new ArrayList<>(urls.size());
            for (UrlHash u : urls) hashes.add(u.value());
            int limit = Math.max(1, urls.size() + PREFIX_SLACK);
            return new Lookup(key, null, null, limit, null, false, scores, UrlPrefixes.pack(hashes));
        }

        /** What a lookup by prefixes asks beyond its URLs, for other URLs of the key that share a prefix. */
        public static final int PREFIX_SLACK = 4;

        public Lookup(RangeKey key, BloomFilter filter, List<UrlHash> urls, int limit) {
            this(key, filter, urls, limit, null, false);
        }

        /** The best {@code limit} URLs of the key passing the filter, as scores (a scored filter). */
        public static Lookup filteredScores(RangeKey key, BloomFilter filter, int limit) {
            return new Lookup(key, filter, null, limit, null, false, true);
        }

        /**
         * The best {@code limit} URLs of the key whose prefixes ({@link UrlPrefixes#of}) pass the filter, as scores:
         * a completion of URLs known by prefix. A holder that predates it tests whole hashes (its answer's absences
         * then say nothing; it answers with {@link KeyPostings#scores}, which tells it).
         */
        public static Lookup prefixFilteredScores(RangeKey key, BloomFilter filter, int limit) {
            return new Lookup(key, filter, null, limit, null, false, true, null, 0, true);
        }

        /** Which of {@code urls} have a posting of {@code key} at the holder. */
        public static Lookup presence(RangeKey key, List<UrlHash> urls) {
            return new Lookup(key, null, urls, Math.max(1, urls.size()), null, true);
        }
    }

    /**
     * A request's join lookups in one: for each of {@code partitions} (distinct), the join lookup of {@code words} in
     * it with {@code limit}, keyed by the first word; the words are named once instead of once a partition.
     */
    public record Joins(List<WordHash> words, List<Integer> partitions, int limit) {
        public Joins {
            words = List.copyOf(words);
            partitions = List.copyOf(partitions);
        }

        /** The join lookups these stand for (one a partition); throws IllegalArgumentException when malformed. */
        public List<Lookup> lookups() {
            if (words.isEmpty() || partitions.isEmpty()) throw new IllegalArgumentException("joins need words and partitions");
            if (new HashSet<>(partitions).size() != partitions.size()) {
                throw new IllegalArgumentException("a partition twice in joins");
            }
            List<Lookup> out = new ArrayList<>(partitions.size());
            for (int p : partitions) out.add(new Lookup(new RangeKey(words.get(0), p), null, null, limit, words));
            return out;
        }
    }

    /** Words a join lookup may name at most. */
    public static final int MAX_JOIN_WORDS = 16;

    /**
     * Wire: postings, filtered and capped. {@code keyed}: the asker reads keyed posting packs (see
     * {@link PostingPack}), and every answer with postings comes as one; not written when false, and a holder that
     * predates it ignores it and answers with plain packs. {@code joinTable} (heeded only with {@code keyed}): the
     * asker reads the answers to its join lookups as one {@link JoinTable} ({@link LookupReply#joinTable}); a holder
     * that predates it answers them as {@link KeyPostings}. {@code presenceTable} (not written when null): presence
     * questions as one {@link PresenceTable} (what a confirmation asks: a bit a URL, each word and URL written once),
     * answered in {@link LookupReply#heldTable}; {@code lookups} may then be empty. A holder that predates it does not
     * answer them, which the asker reads as no answer. {@code prefixScores} (not written when false): the asker
     * names URLs by prefix, and every score lookup is answered as {@link KeyPostings#prefixScores}; a holder that
     * predates it, or does not read prefixes ({@code url-prefixes = off}), answers with {@link KeyPostings#scores}.
     */
    public record LookupRequest(long queryId, List<Lookup> lookups, ActorRef<LookupReply> replyTo,
                                @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean keyed,
                                @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean joinTable,
                                @JsonInclude(JsonInclude.Include.NON_NULL) byte[] presenceTable,
                                @JsonInclude(JsonInclude.Include.NON_NULL) Joins joins,
                                @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean prefixScores)
            implements Command, WireMessage {
        public LookupRequest(long queryId, List<Lookup> lookups, ActorRef<LookupReply> replyTo, boolean keyed,
                             boolean joinTable, byte[] presenceTable, Joins joins) {
            this(queryId, lookups, replyTo, keyed, joinTable, presenceTable, joins, false);
        }

        public LookupRequest(long queryId, List<Lookup> lookups, ActorRef<LookupReply> replyTo, boolean keyed,
                             boolean joinTable, byte[] presenceTable) {
            this(queryId, lookups, replyTo, keyed, joinTable, presenceTable, null);
        }

        public LookupRequest(long queryId, List<Lookup> lookups, ActorRef<LookupReply> replyTo, boolean keyed,
                             boolean joinTable) {
            this(queryId, lookups, replyTo, keyed, joinTable, null);
        }

        /** Join lookups only, each word named once, answered as one join table of keyed packs. */
        public static LookupRequest joins(long queryId, Joins joins, ActorRef<LookupReply> replyTo) {
            return new LookupRequest(queryId, List.of(), replyTo, true, true, null, joins);
        }

        /** Every lookup asked: {@link #lookups} and those {@link #joins} stands for. */
        public List<Lookup> allLookups() {
            if (joins == null) return lookups;
            List<Lookup> out = new ArrayList<>(lookups == null ? List.of() : lookups);
            out.addAll(joins.lookups());
            return out;
        }

        public LookupRequest(long queryId, List<Lookup> lookups, ActorRef<LookupReply> replyTo, boolean keyed) {
            this(queryId, lookups, replyTo, keyed, false);
        }

        /** Presence questions only, as one table. */
        public static LookupRequest presence(long queryId, PresenceTable table, ActorRef<LookupReply> replyTo) {
            return new LookupRequest(queryId, List.of(), replyTo, false, false, table.write());
        }

        public LookupRequest(long queryId, List<Lookup> lookups, ActorRef<LookupReply> replyTo) {
            this(queryId, lookups, replyTo, false, false);
        }
    }

    /**
     * The answer for one key: the postings sent, how many matched in all, and whether some were left out; for a
     * presence lookup, no postings and {@code held}: bit i (of byte i / 8, lowest bit first) set when the i-th URL
     * asked has a posting here (null for every other lookup). Fields at their defaults (a presence answer's
     * {@link PostingPack#NONE}, no match count, not truncated) are not written; they read back as those defaults.
     * {@code prefixed}: the lookup's URL prefixes were read (false, and not written, for every other lookup).
     * {@code prefixScores}: a score lookup's list with its URLs by prefix ({@link ScoreList#ofPrefixes}), in place of
     * {@code scores}, to an asker that set {@link LookupRequest#prefixScores} (null, and not written, otherwise).
     */
    public record KeyPostings(RangeKey key,
                              @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = LeftOut.Filter.class)
                              PostingPack postings,
                              @JsonInclude(JsonInclude.Include.NON_DEFAULT) int matched,
                              @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean truncated,
                              @JsonInclude(JsonInclude.Include.NON_NULL) byte[] held,
                              @JsonInclude(JsonInclude.Include.NON_NULL) byte[] scores,
                              @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean prefixed,
                              @JsonInclude(JsonInclude.Include.NON_NULL) byte[] prefixScores) {
        public KeyPostings {
            postings = postings == null ? PostingPack.EMPTY : postings;
        }

        public KeyPostings(RangeKey key, PostingPack postings, int matched, boolean truncated, byte[] held,
                           byte[] scores, boolean prefixed) {
            this(key, postings, matched, truncated, held, scores, prefixed, null);
        }

        /** How many URLs its score list names, in either layout (0 for an answer with postings). */
        public int scoreCount() {
            return scores != null ? ScoreList.count(scores)
                    : prefixScores != null ? PrefixScores.count(prefixScores) : 0;
        }

        public KeyPostings(RangeKey key, PostingPack postings, int matched, boolean truncated, byte[] held,
                           byte[] scores) {
            this(key, postings, matched, truncated, held, scores, false);
        }

        public KeyPostings(RangeKey key, PostingPack postings, int matched, boolean truncated, byte[] held) {
            this(key, postings, matched, truncated, held, null);
        }

        public KeyPostings(RangeKey key, PostingPack postings, int matched, boolean truncated) {
            this(key, postings, matched, truncated, null);
        }

        /** The postings sent, decoded (a keyed pack's as postings of the key's word); throws IllegalArgumentException on a malformed pack. */
        public List<Posting> postingList() {
            return postings.postings(key.word());
        }

        /** The bits {@link #held} is made of: bit i set when the i-th URL of {@code asked} is in {@code here}. */
        static byte[] bits(Set<UrlHash> here, List<UrlHash> asked) {
            byte[] held = new byte[(asked.size() + 7) / 8];
            for (int i = 0; i < asked.size(); i++) if (here.contains(asked.get(i))) held[i >> 3] |= (byte) (1 << (i & 7));
            return held;
        }

        /** Whether {@code held} is a bit per URL of {@code asked}, no more and no fewer bytes. */
        public static boolean fits(byte[] held, List<UrlHash> asked) {
            return held != null && held.length == (asked.size() + 7) / 8;
        }

        /**
         * The URLs of {@code asked} that {@code held} marks; empty when it does not fit them (a malformed answer says
         * nothing).
         */
        public static Set<UrlHash> held(byte[] held, List<UrlHash> asked) {
            if (!fits(held, asked)) return Set.of();
            Set<UrlHash> out = new HashSet<>();
            for (int i = 0; i < asked.size(); i++) if ((held[i >> 3] >> (i & 7) & 1) != 0) out.add(asked.get(i));
            return out;
        }
    }

    /**
     * The answers, per key; or an {@code error}. {@code joinTable} (only to an asker that set
     * {@link LookupRequest#joinTable}; not written when null): the answers to the join lookups as a {@link JoinTable},
     * which {@code results} then leaves out. {@link #answers} reads both. {@code heldTable} (only to an asker that
     * sent a {@link LookupRequest#presenceTable}; not written when null): the answer to its table,
     * {@link PresenceTable#held(List)}.
     */
    public record LookupReply(long queryId, PeerId by, List<KeyPostings> results, String error,
                              @JsonInclude(JsonInclude.Include.NON_NULL) byte[] joinTable,
                              @JsonInclude(JsonInclude.Include.NON_NULL) byte[] heldTable)
            implements WireMessage {
        public LookupReply(long queryId, PeerId by, List<KeyPostings> results, String error) {
            this(queryId, by, results, error, null, null);
        }

        public LookupReply(long queryId, PeerId by, List<KeyPostings> results, String error, byte[] joinTable) {
            this(queryId, by, results, error, joinTable, null);
        }

        /** This reply with {@code held}, the answer to a presence table. */
        public LookupReply withHeld(byte[] held) {
            return new LookupReply(queryId, by, results, error, joinTable, held);
        }

        /**
         * Every answer: {@link #results} and then those of the join table, each pack as the table carried it (its
         * postings are checked when read); throws IllegalArgumentException on a malformed table or one of more
         * answers than {@code maxEntries}.
         */
        public List<KeyPostings> answers(int maxEntries) {
            if (joinTable == null) return results;
            List<KeyPostings> out = new ArrayList<>(results);
            for (JoinTable.Entry e : JoinTable.read(joinTable, maxEntries)) {
                out.add(new KeyPostings(new RangeKey(new WordHash(e.word()), e.partition()),
                        e.count() == 0 ? PostingPack.EMPTY : new PostingPack(e.count(), e.pack(), true), e.matched(),
                        e.truncated()));
            }
            return out;
        }

        /**
         * The reply with the answers in {@code tabled} (join answers: keyed or empty packs, each partition's listing
         * its URLs in one order) moved into a join table.
         */
        public static LookupReply tabled(long queryId, PeerId by, List<KeyPostings> results, String error,
                                         List<KeyPostings> tabled) {
            if (tabled.isEmpty()) return new LookupReply(queryId, by, results, error);
            List<JoinTable.Entry> entries = new ArrayList<>(tabled.size());
            for (KeyPostings kp : tabled) {
                entries.add(new JoinTable.Entry(kp.key().word().value(), kp.key().partition(), kp.postings().count(),
                        kp.postings().bytes(), kp.matched(), kp.truncated()));
            }
            return new LookupReply(queryId, by, results, error, JoinTable.write(entries));
        }
    }

    /**
     * Wire: URL metadata for these URL hashes. {@code rows}: the asker reads the records as {@link MetadataRow}s
     * ({@link MetadataReply#rows}); a holder that predates it answers with {@code metadata}.
     */
    public record FetchMetadata(long queryId, List<UrlHash> urls, ActorRef<MetadataReply> replyTo,
                                @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean rows)
            implements Command, WireMessage {
        public FetchMetadata(long queryId, List<UrlHash> urls, ActorRef<MetadataReply> replyTo) {
            this(queryId, urls, replyTo, false);
        }
    }

    /**
     * The records held of the URLs asked; or an {@code error}. {@code rows} (only to an asker that set
     * {@link FetchMetadata#rows}; not written when null): the records as rows, which {@code metadata} then leaves out.
     * {@link #records} reads both.
     */
    public record MetadataReply(long queryId, PeerId by, List<UrlMetadata> metadata, String error,
                                @JsonInclude(JsonInclude.Include.NON_NULL) List<MetadataRow> rows)
            implements WireMessage {
        public MetadataReply(long queryId, PeerId by, List<UrlMetadata> metadata, String error) {
            this(queryId, by, metadata, error, null);
        }

        /** Every record, those of the rows after {@link #metadata}; a malformed row (or a null) is left out. */
        public List<UrlMetadata> records() {
            if (rows == null) return metadata == null ? List.of() : metadata;
            List<UrlMetadata> out = new ArrayList<>(metadata == null ? List.of() : metadata);
            for (MetadataRow r : rows) {
                if (r == null) continue;
                try {
                    out.add(r.metadata());
                } catch (IllegalArgumentException bad) {
                    // the URL stays missing, so another holder is asked for it
                }
            }
            return out;
        }
    }

    /**
     * Wire: anti-entropy; which of these ranges differ from what you hold? {@code allOrigins}: each 'p' and 'm'
     * digest covers its bucket's entries of every origin (its origin field names the sender).
     */
    public record DigestRequest(long exchangeId, PeerId from, List<RangeDigest> digests, boolean allOrigins,
                                ActorRef<DigestReply> replyTo) implements Command, WireMessage {
        /** Digests per origin (as before {@code allOrigins}). */
        public DigestRequest(long exchangeId, PeerId from, List<RangeDigest> digests, ActorRef<DigestReply> replyTo) {
            this(exchangeId, from, digests, false, replyTo);
        }
    }

    /**
     * The ranges that differ, each with the entry hashes this peer holds in it while they fit
     * {@code peerdex.dht.repair-held-hashes} (the sender then sends only what is missing).
     */
    public record DigestReply(long exchangeId, PeerId by, List<RangeDigest.Differing> differing, String error)
            implements WireMessage {}

    /** Local: stop listening to a sender (a peer id or an Artery address such as pekko://peerdex@host:port). */
    public record BlockSender(String sender) implements Command, LocalOnly {}

    /** Local: listen to a blocked sender again. */
    public record UnblockSender(String sender) implements Command, LocalOnly {}

    /** Local: follow this directory's views. */
    public record Attach(ActorRef<PeerDirectory.Command> directory) implements Command, LocalOnly {}

    private record ViewChanged(PeerView view) implements Command, LocalOnly {}

    private final ActorContext<Command> ctx;
    private final PeerId self;
    private final PeerStorage storage;
    private final Placement placement;
    private final DhtSettings settings;
    private final DhtStats stats;
    /** lookups for other peers' searches run beside local search */
    private final Executor lookups;
    /** stored transfers, digest answers and traffic metering are index work */
    private final Executor io;
    private final SenderRateLimiter limiter;
    private final DhtEnvironment env;
    private final SenderGuard guard;
    private final AtomicInteger lookupsInFlight = new AtomicInteger();
    private final int maxLookupsInFlight;
    /** entry hashes a digest reply lists for its differing ranges (repair-held-hashes) */
    private final int heldHashes;
    /** URLs the dht-scope blacklist blocked (see DhtBlacklist); touched on the index and search dispatchers */
    private final Set<UrlHash> blockedUrls = DhtBlacklist.rememberedSet();
    private PeerView view;
    private WireCost cost;
    private DigestIndex digestIndex; // guarded by this; the digest requests that read it run on the index dispatcher
    private boolean stopped; // guarded by this

    public static Behavior<Command> create(PeerId self, PeerStorage storage, Placement placement, DhtSettings settings,
                                           DhtStats stats) {
        return Behaviors.setup(ctx -> new ShardOwner(ctx, self, storage, placement, settings, stats));
    }

    private ShardOwner(ActorContext<Command> ctx, PeerId self, PeerStorage storage, Placement placement,
                       DhtSettings settings, DhtStats stats) {
        super(ctx);
        this.ctx = ctx;
        this.self = self;
        this.storage = storage;
        // blocks folded from now on carry the highest partial score of their postings: lookups pass over the rest
        storage.rwi().scoreBlocksWith(PartialScore.BLOCKS);
        this.placement = placement;
        this.settings = settings;
        this.stats = stats;
        this.lookups = Dispatchers.search(ctx.getSystem());
        this.io = Dispatchers.index(ctx.getSystem());
        this.limiter = new SenderRateLimiter(settings.senderRate(), settings.senderBurst());
        this.env = DhtEnvironment.get(ctx.getSystem());
        Config c = ctx.getSystem().settings().config();
        this.guard = new SenderGuard(intOr(c, "peerdex.dht.block-after-rejections", 20),
                c.hasPath("peerdex.dht.sender-lookup-rate") ? c.getDouble("peerdex.dht.sender-lookup-rate") : 500,
                intOr(c, "peerdex.dht.sender-lookup-burst", 200));
        this.maxLookupsInFlight = intOr(c, "peerdex.dht.max-lookups-in-flight", 64);
        this.heldHashes = Math.min(V1.MAX_HELD_HASHES, Math.max(0, intOr(c, "peerdex.dht.repair-held-hashes", V1.MAX_HELD_HASHES)));
        // virtual peers are introduced through the simulated network instead
        if (c.getBoolean("peerdex.dht.use-receptionist")) {
            ctx.getSystem().receptionist().tell(Receptionist.register(KEY, ctx.getSelf()));
        }
    }

    private static int intOr(Config c, String path, int fallback) {
        return c.hasPath(path) ? c.getInt(path) : fallback;
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Attach.class, m -> {
                    m.directory().tell(new PeerDirectory.SubscribeView(ctx.messageAdapter(PeerView.class, ViewChanged::new)));
                    return this;
                })
                .onMessage(ViewChanged.class, m -> {
                    view = m.view();
                    return this;
                })
                .onMessage(BlockSender.class, m -> {
                    guard.block(m.sender());
                    stats.blockedSenders = guard.blocked().size();
                    return this;
                })
                .onMessage(UnblockSender.class, m -> {
                    guard.unblock(m.sender());
                    stats.blockedSenders = guard.blocked().size();
                    return this;
                })
                .onMessage(StorePostings.class, m -> {
                    meter(m, m.replyTo(), m.from());
                    return guarded(m, this::onStore);
                })
                .onMessage(CountRequest.class, m -> guardedLookup(m, m.replyTo(), this::onCount))
                .onMessage(FilterRequest.class, m -> guardedLookup(m, m.replyTo(), this::onFilter))
                .onMessage(LookupRequest.class, m -> guardedLookup(m, m.replyTo(), this::onLookup))
                .onMessage(FetchMetadata.class, m -> guardedLookup(m, m.replyTo(), this::onFetchMetadata))
                .onMessage(DigestRequest.class, m -> guardedLookup(m, m.replyTo(), this::onDigest))
                .onSignal(PostStop.class, s -> {
                    detachDigestIndex();
                    return this;
                })
                .build();
    }

    /** The Artery address of whoever sent a message (its reply-to lives there); "" for none. */
    private static String addressOf(ActorRef<?> replyTo) {
        return replyTo == null ? "" : replyTo.path().address().toString();
    }

    /**
     * Counts a message from another ActorSystem in the per-peer traffic (by its sender's id, else the peer whose
     * shard owner lives at the reply-to's address); a simulation's virtual peers share one system and are not counted.
     */
    private void meter(Object m, ActorRef<?> replyTo, PeerId from) {
        if (replyTo == null || !replyTo.path().address().hasGlobalScope()) return;
        String peer = from == null ? null : from.value();
        if (peer == null && view != null) {
            var address = replyTo.path().address();
            for (PeerInfo i : view.peers().values()) {
                if (i.shardOwner().path().address().equals(address)) {
                    peer = i.peerId().value();
                    break;
                }
            }
        }
        if (cost == null) cost = new WireCost(ctx.getSystem());
        String sender = peer == null ? addressOf(replyTo) : peer;
        WireCost c = cost;
        // measuring means serializing again: off the actor's thread, so lookups are not slowed down
        CompletableFuture.runAsync(() -> stats.traffic.received(sender, c.bytes(m)), io);
    }

    /** Runs a handler; a message that makes it throw is counted and dropped, the actor lives on. */
    private <M> Behavior<Command> guarded(M m, Function<M, Behavior<Command>> handler) {
        try {
            return handler.apply(m);
        } catch (RuntimeException e) {
            stats.failedMessages.incrementAndGet();
            ctx.getLog().debug("dropped a message that failed its handler: {}", e.toString());
            return this;
        }
    }

    /** Blocked senders are ignored; each sender address has a lookup budget; at most so many lookups run at once. */
    private <M> Behavior<Command> guardedLookup(M m, ActorRef<?> replyTo,
                                                Function<M, Behavior<Command>> handler) {
        if (replyTo == null) {
            stats.rejectedMessages.incrementAndGet();
            return this;
        }
        meter(m, replyTo, m instanceof DigestRequest d ? d.from() : null);
        String address = addressOf(replyTo);
        if (guard.isBlocked(address)) {
            stats.blockedMessages.incrementAndGet();
            return this;
        }
        // senders in this ActorSystem (a simulation's virtual peers) share one address: only remote ones are metered
        boolean remote = replyTo.path().address().hasGlobalScope();
        if (remote && guard.acquireLookup(address, env.millis()) > 0
                || lookupsInFlight.get() >= maxLookupsInFlight) {
            stats.busyLookups.incrementAndGet();
            return guarded(m, x -> busy(x));
        }
        return guarded(m, handler);
    }

    /** Answers a lookup with a "busy" error so the asker tries another holder. */
    private Behavior<Command> busy(Object m) {
        return error(m, "busy: too many lookups");
    }

    /** Answers a lookup with an error. */
    private Behavior<Command> error(Object m, String why) {
        if (m instanceof CountRequest r) r.replyTo().tell(new CountReply(r.queryId(), self, List.of(), why));
        else if (m instanceof FilterRequest r) r.replyTo().tell(new FilterReply(r.queryId(), self, List.of(), List.of(), why));
        else if (m instanceof LookupRequest r) r.replyTo().tell(new LookupReply(r.queryId(), self, List.of(), why));
        else if (m instanceof FetchMetadata r) r.replyTo().tell(new MetadataReply(r.queryId(), self, List.of(), why));
        else if (m instanceof DigestRequest r) r.replyTo().tell(new DigestReply(r.exchangeId(), self, List.of(), why));
        return this;
    }

    /**
     * Runs blocking lookup work for request {@code m} on the search dispatcher, counted against the in-flight bound;
     * work that fails (a store closing under it, a bug) answers {@code m} with an error, so the asker tries another
     * holder at once instead of waiting for its timeout.
     */
    private void runLookup(Object m, Runnable work) {
        runLookup(m, work, lookups);
    }

    private void runLookup(Object m, Runnable work, Executor on) {
        lookupsInFlight.incrementAndGet();
        CompletableFuture.runAsync(() -> {
            try {
                work.run();
            } catch (RuntimeException e) {
                stats.failedMessages.incrementAndGet();
                error(m, "lookup failed: " + e.getClass().getSimpleName());
            } finally {
                lookupsInFlight.decrementAndGet();
            }
        }, on);
    }

    /** A malformed or oversized message: counted, and its sender struck (blocked after too many). */
    private Behavior<Command> reject(StorePostings m, String reason) {
        stats.rejectedMessages.incrementAndGet();
        if (guard.strike(m.from().value())) {
            stats.blockedSenders = guard.blocked().size();
            ctx.getLog().warn("blocked sender {} ({}) after repeated malformed messages", m.from(), addressOf(m.replyTo()));
        }
        return reply(m, Outcome.REJECTED, 0, reason, 0);
    }

    private Behavior<Command> onStore(StorePostings m) {
        if (m.replyTo() == null) {
            stats.rejectedMessages.incrementAndGet();
            return this;
        }
        if (m.from() == null) {
            stats.rejectedMessages.incrementAndGet();
            return reply(m, Outcome.REJECTED, 0, "no sender", 0);
        }
        if (guard.isBlocked(m.from().value()) || guard.isBlocked(addressOf(m.replyTo()))) {
            stats.blockedMessages.incrementAndGet();
            return this;
        }
        // immutable lists (List.of, List.copyOf) throw on contains(null)
        if (m.metadata().stream().anyMatch(Objects::isNull)) return reject(m, "malformed: null metadata record");
        if (m.postings().count() > settings.maxPostingsPerMessage() || m.postings().byteSize() > settings.maxPackBytes()
                || m.metadata().size() > settings.maxMetadataPerMessage()) {
            return reject(m, "oversized message: " + m.postings().count() + " postings ("
                    + m.postings().byteSize() + " bytes), " + m.metadata().size() + " metadata; limits "
                    + settings.maxPostingsPerMessage() + " postings, " + settings.maxPackBytes() + " bytes, "
                    + settings.maxMetadataPerMessage() + " metadata");
        }
        long wait = limiter.acquire(m.from().value(), env.millis());
        if (wait > 0) {
            stats.busyReplies.incrementAndGet();
            return reply(m, Outcome.BUSY, 0, "sender rate exceeded", Math.max(wait, settings.busyRetryAfter().toMillis()));
        }
        List<Posting> postings;
        try {
            postings = m.postings().postings();
        } catch (RuntimeException e) {
            return reject(m, "malformed postings: " + e.getMessage());
        }
        Optional<String> problem;
        try {
            problem = PostingValidator.firstProblem(postings, m.metadata());
        } catch (RuntimeException e) {
            problem = Optional.of("unreadable record: " + e);
        }
        if (problem.isPresent()) {
            // a record whose URL is not an http(s) URL of its hash is dropped with its whole batch, and counted
            stats.rejectedMetadata.addAndGet(PostingValidator.badUrls(m.metadata()));
            return reject(m, "malformed: " + problem.get());
        }
        Optional<String> outside = outsideMyRanges(postings, m.metadata());
        if (outside.isPresent()) {
            stats.refusedMessages.incrementAndGet();
            ctx.getLog().debug("refused batch {} from {}: {}", m.batchId(), m.from(), outside.get());
            return reply(m, Outcome.REFUSED, 0, outside.get(), 0);
        }
        CompletableFuture.supplyAsync(() -> write(m.from(), postings, m.metadata()), io).whenComplete((n, e) -> {
            if (e != null) {
                m.replyTo().tell(new StoreReply(m.batchId(), self, Outcome.BUSY, 0, "write failed: " + e.getMessage(),
                        settings.busyRetryAfter().toMillis()));
            } else {
                m.replyTo().tell(new StoreReply(m.batchId(), self, Outcome.STORED, n, "", 0));
            }
        });
        return this;
    }

    private Behavior<Command> reply(StorePostings m, Outcome o, int n, String reason, long retryAfter) {
        m.replyTo().tell(new StoreReply(m.batchId(), self, o, n, reason, retryAfter));
        return this;
    }

    private Optional<String> outsideMyRanges(List<Posting> postings, List<UrlMetadata> metadata) {
        if (!settings.acceptRemoteIndex()) return Optional.of("peer " + self + " is passive and holds no ranges");
        if (view == null || view.ring().isEmpty()) return Optional.of("peer " + self + " has no ring yet");
        long last = -1;
        for (Posting p : postings) {
            long pos = placement.partitions().position(p.word(), p.url());
            // a batch is sorted by word: postings of one word and partition share a position
            if (pos == last || placement.holds(self, pos, view.ring())) {
                last = pos;
                continue;
            }
            return Optional.of("position " + Long.toHexString(pos) + " of " + p.word() + " partition "
                    + placement.partitions().partitionOf(p.url()) + " is not in the ranges of " + self
                    + " (holders " + placement.holders(pos, view.ring()) + ")");
        }
        for (UrlMetadata md : metadata) {
            if (placement.holds(self, md.urlHash().position(), view.ring())) continue;
            return Optional.of("metadata of " + md.urlHash() + " is not in the ranges of " + self
                    + " (holders " + placement.metadataHolders(md.urlHash(), view.ring()) + ")");
        }
        return Optional.empty();
    }

    /**
     * The durable write; runs on the index dispatcher, several batches at once. While the dht-scope blacklist has
     * rules, writes take turns: a batch of postings judged "not blocked" (its URL's metadata not seen yet) must not
     * be written after a concurrent batch with the blocking metadata purged that URL, or the postings would stay.
     * Returns the number of entries written.
     */
    private int write(PeerId from, List<Posting> received, List<UrlMetadata> receivedMetadata) {
        if (storage.blacklist().isEmpty(BlacklistRule.Scope.DHT)) {
            return writeNow(from, received, receivedMetadata);
        }
        synchronized (blockedUrls) {
            return writeNow(from, received, receivedMetadata);
        }
    }

    private int writeNow(PeerId from, List<Posting> received, List<UrlMetadata> receivedMetadata) {
        // the dht-scope blacklist: blocked entries are acknowledged (the sender must not retry) but not stored
        DhtBlacklist.Kept kept = DhtBlacklist.keep(storage, received, receivedMetadata, blockedUrls);
        List<Posting> postings = kept.postings();
        List<UrlMetadata> metadata = kept.metadata();
        if (kept.dropped() > 0) stats.blacklistedEntries.addAndGet(kept.dropped());
        for (UrlHash u : kept.purge()) {
            // postings that came before their blocked metadata; this peer's own crawl (holder null) stays
            if (storage.metadata().getHeld(u).map(m -> m.holder() == null).orElse(false)) continue;
            int n = storage.rwi().deleteUrl(u);
            if (n > 0) storage.stats().add(0, -n);
        }
        storeReceived(storage, from, postings, metadata);
        stats.storedPostings.addAndGet(postings.size());
        stats.storedMetadata.addAndGet(metadata.size());
        return received.size() + receivedMetadata.size();
    }

    /**
     * Writes postings and metadata a holder has accepted from {@code from} as a holder stores them (the blacklist
     * already applied): this peer's own crawl stays as it is, the same entry again is no write, a record without a
     * holder is marked as {@code from}'s ({@code from} may be null when every record names its holder, as the
     * Replicator's batches do). One batch, not synced; the storage's counts grow by what is new here. The simulator
     * writes a settled network's holders through it directly (its scenario key {@code indexing}).
     */
    public static void storeReceived(PeerStorage storage, PeerId from, List<Posting> postings,
                                       List<UrlMetadata> metadata) {
        KeyValueStore.Batch batch = storage.store().newBatch();
        long fresh = 0;
        for (Posting p : postings) {
            Optional<byte[]> existing = storage.rwi().getEncoded(p.word(), p.url());
            // our own crawl's posting stays as it is (holder null means: the full metadata is here)
            if (existing.isPresent() && PostingCodec.holderOffset(existing.get()) < 0
                    && (PostingCodec.flags(existing.get()) & Posting.CACHED) == 0) continue;
            Posting stored = p.holder() == null ? p.withHolder(Objects.requireNonNull(from, "a posting without holder")) : p;
            byte[] encoded = PostingCodec.encode(stored);
            // the same posting again (a repair sends a differing range whole, most of which the holder has): no write
            if (existing.isPresent() && Arrays.equals(existing.get(), encoded)) continue;
            if (existing.isEmpty()) fresh++;
            storage.rwi().addTo(batch, stored, encoded);
        }
        long freshDocs = 0;
        for (UrlMetadata md : metadata) {
            Optional<UrlMetadata> existing = storage.metadata().getHeld(md.urlHash());
            if (existing.isPresent() && existing.get().holder() == null) continue;
            UrlMetadata stored = md.holder() == null
                    ? withHolder(md, Objects.requireNonNull(from, "metadata without holder").value()) : md;
            if (existing.isPresent() && existing.get().equals(stored)) continue;
            if (existing.isEmpty()) freshDocs++;
            storage.metadata().putTo(batch, stored);
        }
        storage.store().write(batch, false);
        storage.stats().add(freshDocs, fresh);
    }

    public static UrlMetadata withHolder(UrlMetadata m, String holder) {
        return new UrlMetadata(m.urlHash(), m.url(), m.title(), m.description(), m.author(), m.keywords(),
                m.language(), m.doctype(), m.mimeType(), m.size(), m.lastModified(), m.fetched(), m.linksLocal(),
                m.linksOther(), m.wordsInText(), holder, m.contentHash(), m.headings());
    }

    private Optional<String> checkKeys(List<?> keys) {
        return checkKeys(keys == null ? 0 : keys.size());
    }

    /** A request of {@code n} keys (its lookups' and its presence table's together): at least one, at most the bound. */
    private Optional<String> checkKeys(int n) {
        if (n == 0) return Optional.of("no keys");
        if (n > settings.maxKeysPerRequest()) {
            return Optional.of("too many keys: " + n + " > " + settings.maxKeysPerRequest());
        }
        return Optional.empty();
    }

    private Behavior<Command> onCount(CountRequest m) {
        if (m.replyTo() == null) return this;
        Optional<String> bad = checkKeys(m.keys());
        if (bad.isPresent()) {
            m.replyTo().tell(new CountReply(m.queryId(), self, List.of(), bad.get()));
            return this;
        }
        if (m.tops() < 0 || m.tops() > settings.maxPostingsPerMessage()) {
            m.replyTo().tell(new CountReply(m.queryId(), self, List.of(),
                    "tops must be 0.." + settings.maxPostingsPerMessage()));
            return this;
        }
        // tops come as prefix scores: a peer that reads no prefixes answers as one that predates tops (count-tops
        // decides only whether this peer asks for them)
        int tops = settings.urlPrefixes() ? m.tops() : 0;
        runLookup(m, () -> {
            List<Integer> counts = new ArrayList<>(m.keys().size());
            List<KeyPostings> lists = new ArrayList<>();
            int budget = settings.maxPostingsPerMessage();
            for (RangeKey k : m.keys()) {
                int n = storage.rwi().countHeld(k.word(), k.partition());
                counts.add(n);
                if (tops > 0 && n > (long) TOPS_OVER * tops && budget >= tops) {
                    KeyPostings kp = lookup(Lookup.scores(k, null, tops), tops, false, true);
                    budget -= kp.scoreCount();
                    lists.add(kp);
                }
            }
            stats.lookupsAnswered.incrementAndGet();
            m.replyTo().tell(new CountReply(m.queryId(), self, counts, "", lists.isEmpty() ? null : lists));
        });
        return this;
    }

    private Behavior<Command> onFilter(FilterRequest m) {
        if (m.replyTo() == null) return this;
        Optional<String> bad = checkKeys(m.keys());
        if (bad.isEmpty() && (m.bitsPerElement() < 1 || m.bitsPerElement() > 32)) bad = Optional.of("bits per element 1..32");
        if (bad.isPresent()) {
            m.replyTo().tell(new FilterReply(m.queryId(), self, List.of(), List.of(), bad.get()));
            return this;
        }
        runLookup(m, () -> {
            List<BloomFilter> filters = new ArrayList<>();
            List<Integer> counts = new ArrayList<>();
            for (RangeKey k : m.keys()) {
                List<String> urls = new ArrayList<>();
                storage.rwi().scanHeldUrls(k.word(), k.partition(), urls::add);
                filters.add(BloomFilter.of(urls, m.bitsPerElement()));
                counts.add(urls.size());
            }
            stats.lookupsAnswered.incrementAndGet();
            m.replyTo().tell(new FilterReply(m.queryId(), self, filters, counts, ""));
        });
        return this;
    }

    private Behavior<Command> onLookup(LookupRequest m) {
        if (m.replyTo() == null) return this;
        List<Lookup> given;
        try {
            given = m.allLookups();
        } catch (IllegalArgumentException | NullPointerException e) {
            m.replyTo().tell(new LookupReply(m.queryId(), self, List.of(), "malformed joins: " + e.getMessage()));
            return this;
        }
        if (given == null) given = List.of();
        given = asOlderPeer(given, !settings.joinLookups(), !settings.urlPrefixes());
        Optional<String> bad = Optional.empty();
        List<Lookup> asked = List.of(); // the presence table's questions, as presence lookups
        PresenceTable questions = null;
        if (m.presenceTable() != null && settings.presenceTables()) {
            try {
                questions = PresenceTable.read(m.presenceTable(), settings.maxKeysPerRequest(),
                        settings.maxPostingsPerMessage());
                List<Lookup> ls = new ArrayList<>(questions.asks().size());
                for (PresenceTable.Ask a : questions.asks()) {
                    ls.add(Lookup.presence(new RangeKey(new WordHash(a.word()), a.partition()),
                            a.urls().stream().map(UrlHash::new).toList()));
                }
                asked = ls;
            } catch (IllegalArgumentException e) {
                bad = Optional.of("malformed presence table: " + e.getMessage());
            }
        }
        if (bad.isEmpty()) bad = checkKeys(given.size() + asked.size());
        if (bad.isEmpty()) {
            for (Lookup l : given) {
                if (l == null || l.key() == null) bad = Optional.of("lookup without key");
                else if (l.limit() < 1 || l.limit() > settings.maxPostingsPerMessage()) {
                    bad = Optional.of("limit must be 1.." + settings.maxPostingsPerMessage());
                } else if (l.urls() != null && l.urls().size() > settings.maxPostingsPerMessage()) {
                    bad = Optional.of("URL set larger than " + settings.maxPostingsPerMessage());
                } else if (l.prefixes() != null && (l.urls() != null || l.filter() != null || l.join() != null
                        || l.presence())) {
                    bad = Optional.of("a lookup by URL prefixes has no URL set, filter or join and is no presence lookup");
                } else if (l.prefixes() != null && !readable(l.prefixes())) {
                    bad = Optional.of("malformed URL prefixes, or more than " + settings.maxPostingsPerMessage());
                } else if (l.presence() && (l.urls() == null || l.filter() != null || l.join() != null)) {
                    bad = Optional.of("a presence lookup has a URL set and no filter or join");
                } else if (l.skip() < 0 || l.skip() > 0 && (!l.scores() || l.filter() != null || l.urls() != null
                        || l.prefixes() != null)) {
                    bad = Optional.of("a lookup that skips its best is a plain score lookup");
                } else if (l.prefixFilter() && (l.filter() == null || !l.scores())) {
                    bad = Optional.of("a filter over URL prefixes is a score lookup's filter");
                } else if (l.scores() && (l.presence() || l.join() != null)) {
                    bad = Optional.of("a score lookup has no join and is no presence lookup");
                } else if (l.scores() && l.filter() != null && !settings.scoredFilters()) {
                    // as a peer before scored filters refused it
                    bad = Optional.of("a score lookup has no filter or join and is no presence lookup");
                } else if (l.join() != null && (l.join().isEmpty() || l.join().size() > MAX_JOIN_WORDS
                        || !l.join().contains(l.key().word()) || l.filter() != null || l.urls() != null)) {
                    bad = Optional.of("a join lookup names 1.." + MAX_JOIN_WORDS + " words, its key's among them, "
                            + "and has no filter or URL set");
                }
                if (bad.isPresent()) break;
            }
        }
        if (bad.isPresent()) {
            m.replyTo().tell(new LookupReply(m.queryId(), self, List.of(), bad.get()));
            return this;
        }
        PresenceTable presenceTable = questions;
        List<Lookup> presenceAsked = asked;
        List<Lookup> plain = given;
        runLookup(m, () -> {
            List<Lookup> lookups = plain;
            int budget = settings.maxPostingsPerMessage();
            List<Lookup> joins = lookups.stream().filter(l -> l.join() != null).toList();
            Map<RangeKey, KeyPostings> joined = joins.isEmpty() ? Map.of() : lookupJoined(joins, budget, m.keyed());
            stats.joinLookupsAnswered.addAndGet(joins.size());
            for (KeyPostings kp : joined.values()) budget -= kp.postings().count();
            List<KeyPostings> out = new ArrayList<>();
            boolean tabled = m.keyed() && m.joinTable();
            List<KeyPostings> table = new ArrayList<>();
            Set<RangeKey> answered = new HashSet<>();
            for (Lookup l : lookups) {
                if (l.join() != null) {
                    for (WordHash w : l.join()) {
                        RangeKey k = new RangeKey(w, l.key().partition());
                        if (answered.add(k)) (tabled ? table : out).add(joined.get(k));
                    }
                    continue;
                }
                KeyPostings kp = lookup(l, Math.min(l.limit(), Math.max(0, budget)), m.keyed() && !l.presence(),
                        m.prefixScores() && settings.urlPrefixes());
                budget -= kp.postings().count() + kp.scoreCount();
                out.add(l.presence() ? presence(kp, l.urls()) : kp);
            }
            byte[] held = null;
            if (presenceTable != null) {
                // bits, not postings: no budget of postings applies (the table's URLs are bounded when read)
                List<Set<String>> here = new ArrayList<>(presenceAsked.size());
                for (Lookup l : presenceAsked) {
                    Set<String> has = new HashSet<>();
                    for (UrlHash u : urlsOf(lookup(l, l.limit(), false))) has.add(u.value());
                    here.add(has);
                }
                held = presenceTable.held(here);
            }
            stats.lookupsAnswered.incrementAndGet();
            m.replyTo().tell(LookupReply.tabled(m.queryId(), self, out, "", table).withHeld(held));
        });
        return this;
    }

    /**
     * The lookups as a peer that predates join lookups ({@code joins}) or URL prefixes ({@code prefixes}) reads them
     * (with {@code join-lookups} or {@code url-prefixes} off this peer is one): a join lookup is a plain lookup of its
     * key, the other words unread, so the asker sees an incomplete join and asks elsewhere or the older way; a lookup
     * by prefixes is a lookup of the key's best, the prefixes unread, and its answer does not say it read them, so
     * the asker asks again by URLs.
     */
    private static List<Lookup> asOlderPeer(List<Lookup> lookups, boolean joins, boolean prefixes) {
        if (lookups == null || !joins && !prefixes) return lookups;
        List<Lookup> out = new ArrayList<>(lookups.size());
        for (Lookup l : lookups) {
            boolean unread = l != null && (joins && l.join() != null
                    || prefixes && (l.prefixes() != null || l.prefixFilter()));
            out.add(!unread ? l : new Lookup(l.key(), l.filter(), l.urls(), l.limit(), joins ? null : l.join(),
                    l.presence(), l.scores(), prefixes ? null : l.prefixes(), l.part(), prefixes ? false : l.prefixFilter(),
                    l.skip()));
        }
        return out;
    }

    /** Whether a lookup's URL prefixes are whole pairs and at most a message's bound of them. */
    private boolean readable(byte[] prefixes) {
        try {
            UrlPrefixes.read(prefixes, settings.maxPostingsPerMessage());
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** A presence lookup's answer: which of the URLs asked the postings found are of, as bits, and no postings. */
    private static KeyPostings presence(KeyPostings found, List<UrlHash> asked) {
        return new KeyPostings(found.key(), PostingPack.NONE, 0, false, KeyPostings.bits(urlsOf(found), asked));
    }

    /** The URLs the postings found are of (what a presence question is answered from). */
    private static Set<UrlHash> urlsOf(KeyPostings found) {
        Set<UrlHash> here = new HashSet<>();
        for (Posting p : found.postingList()) here.add(p.url());
        return here;
    }

    /**
     * Postings of one key that pass the filter, best {@code limit} by partial score; none of a URL the dht-scope
     * blacklist blocks (judged only for postings that would enter the top, so a lookup reads little metadata).
     */
    KeyPostings lookup(Lookup l, int limit) {
        return lookup(l, limit, false);
    }

    /** {@link #lookup(Lookup, int)}, its postings in a keyed pack when {@code keyed}. */
    KeyPostings lookup(Lookup l, int limit, boolean keyed) {
        return lookup(l, limit, keyed, false);
    }

    /**
     * {@link #lookup(Lookup, int, boolean)}, a score lookup's list with its URLs by prefix when {@code prefixScores}
     * (the asker names URLs so, and this peer reads prefixes).
     */
    KeyPostings lookup(Lookup l, int limit, boolean keyed, boolean prefixScores) {
        Set<String> urlSet = l.urls() == null ? null : new HashSet<>(l.urls().stream().map(UrlHash::value).toList());
        // checked when the request came: whole pairs, within the bound
        Set<String> prefixes = l.prefixes() == null ? null : UrlPrefixes.read(l.prefixes(), Integer.MAX_VALUE);
        // each posting is scored once: the partial score is the querying peer's whole one-word score
        PriorityQueue<Scored> top = new PriorityQueue<>(Scored.WORST_FIRST);
        DhtBlacklist.Outgoing blocked = DhtBlacklist.outgoing(storage);
        int[] matched = {0};
        // a score lookup may name its query's shape: then it ranks by the word's part, which the blocks' one-word
        // bounds bound too (a part is never above the one-word score)
        int part = l.scores() ? l.part() : WordPart.NONE;
        // a plain lookup (no filter, no URL set) passes over a block none of whose postings can enter a full top:
        // blocks store their highest score under the very function postings are ranked by here; every posting of a
        // skipped block matches (none is a cached copy, by its ceiling), so the count stays exact
        ReverseWordIndex.BlockSkip skip = urlSet != null || prefixes != null || l.filter() != null || limit <= 0 ? null
                : (max, ceiling, left) -> {
            if (top.size() < limit || max >= top.peek().score() || (ceiling.flags() & Posting.CACHED) != 0) return false;
            matched[0] += left;
            stats.lookupPostingsSkipped.addAndGet(left);
            return true;
        };
        storage.rwi().scan(l.key().word(), l.key().partition(), PartialScore.BLOCKS.revision(), skip, p -> {
            if (p.has(Posting.CACHED)) return;
            if (urlSet != null && !urlSet.contains(p.url().value())) return;
            if (prefixes != null && !prefixes.contains(UrlPrefixes.of(p.url().value()))) return;
            if (l.filter() != null
                    && !l.filter().mightContain(l.prefixFilter() ? UrlPrefixes.of(p.url().value()) : p.url().value())) return;
            matched[0]++;
            if (limit <= 0) return;
            Posting withHolder = p.holder() == null ? p.withHolder(self) : p;
            Scored scored = new Scored(WordPart.score(withHolder, part), withHolder);
            if (top.size() >= limit && Scored.WORST_FIRST.compare(scored, top.peek()) <= 0) return;
            if (blocked.blocks(p)) {
                matched[0]--;
                return;
            }
            if (top.size() >= limit) top.poll();
            top.add(scored);
        });
        stats.blacklistedOutgoing.addAndGet(blocked.dropped());
        List<Scored> ranked = new ArrayList<>(top);
        ranked.sort(Scored.WORST_FIRST.reversed());
        List<Posting> best = new ArrayList<>(ranked.size());
        // a deeper round leaves out the best the asker has from this holder already
        for (Scored x : ranked.subList(Math.min(ranked.size(), Math.max(0, l.skip())), ranked.size())) {
            best.add(x.posting());
        }
        boolean prefixed = prefixes != null;
        if (l.scores() && prefixScores) {
            return new KeyPostings(l.key(), PostingPack.NONE, matched[0], matched[0] > ranked.size(), null, null,
                    prefixed, ScoreList.ofPrefixes(best, part));
        }
        if (l.scores()) {
            return new KeyPostings(l.key(), PostingPack.NONE, matched[0], matched[0] > ranked.size(), null,
                    ScoreList.of(best, part), prefixed);
        }
        return new KeyPostings(l.key(), PostingPack.of(best, keyed), matched[0], matched[0] > best.size(), null, null,
                prefixed);
    }

    /**
     * The join lookups of one request, answered together, one entry per (word, partition) they name: per partition,
     * the URLs with a posting here of every word its lookups' {@code join} names (postings of other peers' crawls; cached copies are not served); of these, over
     * all the partitions at once, the best {@code limit} (the largest of the lookups', and at most {@code budget}
     * postings in all) by the sum of their postings' partial scores, none the dht-scope blacklist blocks. Each key
     * gets its word's postings of those URLs; {@code matched} is how many postings the key has here in all (the
     * querying peer sums them into document frequencies) and {@code truncated} tells that more URLs matched in the
     * key's partition than were sent. So a holder of every word of a partition answers a conjunctive query with
     * the few documents that can be on top, and whole posting lists never travel.
     */
    Map<RangeKey, KeyPostings> lookupJoined(List<Lookup> joins, int budget) {
        return lookupJoined(joins, budget, false);
    }

    /** {@link #lookupJoined(List, int)}, each key's postings in a keyed pack when {@code keyed}. */
    Map<RangeKey, KeyPostings> lookupJoined(List<Lookup> joins, int budget, boolean keyed) {
        int limit = 0;
        Map<Integer, Set<WordHash>> wordsOf = new TreeMap<>();
        for (Lookup l : joins) {
            limit = Math.max(limit, l.limit());
            wordsOf.computeIfAbsent(l.key().partition(), x -> new LinkedHashSet<>()).addAll(l.join());
        }
        Map<RangeKey, Integer> counts = new HashMap<>();
        Map<Integer, Integer> joinedIn = new HashMap<>();
        List<Joined> all = new ArrayList<>();
        DhtBlacklist.Outgoing blocked = DhtBlacklist.outgoing(storage);
        for (var e : wordsOf.entrySet()) {
            int partition = e.getKey();
            Map<UrlHash, Posting[]> byUrl = null;
            List<WordHash> words = new ArrayList<>(e.getValue());
            for (int i = 0; i < words.size(); i++) {
                int index = i;
                WordHash w = words.get(i);
                Map<UrlHash, Posting[]> before = byUrl;
                Map<UrlHash, Posting[]> next = new HashMap<>();
                int[] n = {0};
                storage.rwi().scan(w, partition, p -> {
                    if (p.has(Posting.CACHED)) return;
                    n[0]++;
                    Posting[] row = before == null ? new Posting[words.size()] : before.get(p.url());
                    if (row == null) return;
                    row[index] = p.holder() == null ? p.withHolder(self) : p;
                    next.put(p.url(), row);
                });
                counts.put(new RangeKey(w, partition), n[0]);
                byUrl = next;
            }
            if (byUrl == null) continue;
            joinedIn.put(partition, byUrl.size());
            for (var row : byUrl.entrySet()) {
                double score = 0;
                for (Posting p : row.getValue()) score += PartialScore.of(p);
                all.add(new Joined(row.getKey(), partition, words, row.getValue(), score));
            }
        }
        all.sort(Comparator.comparingDouble(Joined::score).reversed().thenComparing(Joined::url));
        Map<RangeKey, List<Posting>> sent = new HashMap<>();
        int taken = 0;
        int postingsLeft = budget;
        for (Joined j : all) {
            if (taken >= limit || postingsLeft < j.postings().length) break;
            boolean isBlocked = false;
            for (Posting p : j.postings()) isBlocked |= blocked.blocks(p);
            if (isBlocked) continue;
            taken++;
            postingsLeft -= j.postings().length;
            for (int i = 0; i < j.words().size(); i++) {
                sent.computeIfAbsent(new RangeKey(j.words().get(i), j.partition()), x -> new ArrayList<>()).add(j.postings()[i]);
            }
        }
        stats.blacklistedOutgoing.addAndGet(blocked.dropped());
        Map<RangeKey, KeyPostings> out = new HashMap<>();
        wordsOf.forEach((partition, words) -> {
            for (WordHash w : words) {
                RangeKey k = new RangeKey(w, partition);
                List<Posting> ps = sent.getOrDefault(k, List.of());
                out.put(k, new KeyPostings(k, PostingPack.of(ps, keyed), counts.getOrDefault(k, 0),
                        joinedIn.getOrDefault(partition, 0) > ps.size()));
            }
        });
        return out;
    }

    /** A URL with a posting of every word of its partition's join, best first by the sum of their partial scores. */
    private record Joined(UrlHash url, int partition, List<WordHash> words, Posting[] postings, double score) {}

    /** Ties broken by URL hash, as the querying peer's ranking breaks them: the smaller hash is the better. */
    private record Scored(double score, Posting posting) {
        static final Comparator<Scored> WORST_FIRST = Comparator.comparingDouble(Scored::score)
                .thenComparing((Scored s) -> s.posting().url(), Comparator.reverseOrder());
    }

    private Behavior<Command> onFetchMetadata(FetchMetadata m) {
        if (m.replyTo() == null) return this;
        if (m.urls() == null || m.urls().isEmpty() || m.urls().size() > settings.maxMetadataPerMessage()) {
            m.replyTo().tell(new MetadataReply(m.queryId(), self, List.of(),
                    "1.." + settings.maxMetadataPerMessage() + " URL hashes per request"));
            return this;
        }
        runLookup(m, () -> {
            List<UrlMetadata> out = new ArrayList<>();
            DhtBlacklist.Outgoing blocked = DhtBlacklist.outgoing(storage);
            for (UrlHash u : m.urls()) {
                // only records held here: metadata learned from search answers is never served on
                storage.metadata().getHeld(u).filter(md -> !blocked.blocks(md))
                        .ifPresent(md -> out.add(md.holder() == null ? withHolder(md, self.value()) : md));
            }
            stats.blacklistedOutgoing.addAndGet(blocked.dropped());
            stats.lookupsAnswered.incrementAndGet();
            m.replyTo().tell(m.rows() ? new MetadataReply(m.queryId(), self, List.of(), "",
                    out.stream().map(MetadataRow::of).toList()) : new MetadataReply(m.queryId(), self, out, ""));
        });
        return this;
    }

    /** The digest index of this peer's storage: built by one scan at the first request, then kept up to date. */
    private synchronized DigestIndex digestIndex() {
        // a lookup still running after the stop must not leave an index attached to the store
        if (digestIndex == null) digestIndex = stopped ? DigestIndex.snapshot(storage, self) : DigestIndex.attach(storage, self);
        return digestIndex;
    }

    /** The store stops reporting writes to the index (a restarted peer's new shard owner attaches its own). */
    private synchronized void detachDigestIndex() {
        stopped = true;
        if (digestIndex != null) digestIndex.detach();
    }

    private Behavior<Command> onDigest(DigestRequest m) {
        if (m.replyTo() == null) return this;
        if (m.digests() == null || m.digests().size() > settings.maxDigestsPerMessage()) {
            m.replyTo().tell(new DigestReply(m.exchangeId(), self, List.of(),
                    "at most " + settings.maxDigestsPerMessage() + " digests per message"));
            return this;
        }
        PeerView v = view;
        runLookup(m, () -> {
            DigestIndex index = digestIndex();
            m.replyTo().tell(new DigestReply(m.exchangeId(), self,
                    index.differing(m.digests(), self, m.from(), placement, v == null ? null : v.ring(), heldHashes,
                            m.allOrigins()), ""));
        }, io);
        return this;
    }
}
