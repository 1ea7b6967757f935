package org.peerdex.protocol.wire;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.peerdex.protocol.filter.BloomFilter;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.identity.SignedPeerRecord;

/**
 * The open network's peer protocol, version 1: every body that crosses from one peer to another, as CBOR maps
 * whose keys are the {@link JsonProperty} names below (docs/protocol.md, "Messages"). These records are the wire;
 * the DHT actors' messages and the storage types are converted to and from them at the transport, so a refactor
 * of either cannot change what peers exchange. The version is in the path ({@link #PATH}), not in the bodies.
 * Each record checks the shape of its fields when it is decoded (hashes, partitions, filter sizes, no null
 * elements); the bounds a peer configures (keys per request, postings per batch) are checked behind the transport.
 */
public final class V1 {
    /** The protocol version these types belong to. */
    public static final int VERSION = 1;
    /** Every message of this version is {@code POST PATH + name}. */
    public static final String PATH = "/peer/v1/";

    private V1() {}

    /** Every body of this version; the codec writes and reads only these. */
    public sealed interface Body permits Hello, HelloReply, Leave, CountRequest, CountReply, FilterRequest,
            FilterReply, LookupRequest, LookupReply, MetadataRequest, MetadataReply, StoreRequest, StoreReply,
            DigestRequest, DigestReply {}

    /** A message: its name in the path, its request type and its reply type. */
    public record Message<Q extends Body, R extends Body>(String name, Class<Q> request, Class<R> reply) {
        public String path() {
            return PATH + name;
        }
    }

    public static final Message<Hello, HelloReply> HELLO = new Message<>("hello", Hello.class, HelloReply.class);
    public static final Message<Leave, HelloReply> LEAVE = new Message<>("leave", Leave.class, HelloReply.class);
    public static final Message<CountRequest, CountReply> COUNT =
            new Message<>("count", CountRequest.class, CountReply.class);
    public static final Message<FilterRequest, FilterReply> FILTER =
            new Message<>("filter", FilterRequest.class, FilterReply.class);
    public static final Message<LookupRequest, LookupReply> LOOKUP =
            new Message<>("lookup", LookupRequest.class, LookupReply.class);
    public static final Message<MetadataRequest, MetadataReply> METADATA =
            new Message<>("metadata", MetadataRequest.class, MetadataReply.class);
    public static final Message<StoreRequest, StoreReply> STORE =
            new Message<>("store", StoreRequest.class, StoreReply.class);
    public static final Message<DigestRequest, DigestReply> DIGEST =
            new Message<>("digest", DigestRequest.class, DigestReply.class);

    /** The messages of this version by name. */
    public static final Map<String, Message<?, ?>> MESSAGES = Stream.of(HELLO, LEAVE, COUNT, FILTER, LOOKUP,
            METADATA, STORE, DIGEST).collect(Collectors.toUnmodifiableMap(Message::name, Function.identity()));

    // ---------------------------------------------------------------- membership

    /**
     * {@code hello}: here I am; the reply is signed over this request's nonce, so it answers a fresh challenge.
     * {@code placement}: the network's placement parameters as the sender runs them ({@code Placement.tag()}, e.g.
     * "p16.r3.v16"; "" unsaid): a peer of other parameters would look for data where the others do not put it.
     */
    public record Hello(@JsonProperty("record") SignedPeerRecord record,
                        @JsonProperty("placement") String placement) implements Body {
        public Hello {
            if (record == null) throw new IllegalArgumentException("hello needs a record");
            placement = placement == null ? "" : placement;
            if (placement.length() > 64) throw new IllegalArgumentException("placement of at most 64 characters");
        }

        public Hello(SignedPeerRecord record) {
            this(record, "");
        }
    }

    /**
     * Reply to {@code hello} and {@code leave}: the responder's record, some records it verified itself, and
     * whether it has admitted the asker to its ring (tells a peer behind NAT that nobody can reach it).
     */
    public record HelloReply(@JsonProperty("record") SignedPeerRecord record,
                             @JsonProperty("peers") List<SignedPeerRecord> peers,
                             @JsonProperty("admitted") boolean admitted,
                             @JsonProperty("placement") String placement) implements Body {
        public HelloReply {
            if (record == null) throw new IllegalArgumentException("hello reply needs a record");
            peers = peers == null ? List.of() : List.copyOf(peers);
            placement = placement == null ? "" : placement;
            if (placement.length() > 64) throw new IllegalArgumentException("placement of at most 64 characters");
        }

        public HelloReply(SignedPeerRecord record, List<SignedPeerRecord> peers, boolean admitted) {
            this(record, peers, admitted, "");
        }
    }

    /** {@code leave}: the sender's own signed leaving record. */
    public record Leave(@JsonProperty("record") SignedPeerRecord record) implements Body {
        public Leave {
            if (record == null) throw new IllegalArgumentException("leave needs a record");
        }
    }

    // ---------------------------------------------------------------- parts

    /** One word in one vertical partition. */
    public record Key(@JsonProperty("word") String word, @JsonProperty("partition") int partition) {
        public Key {
            hash(word, "word");
            if (partition < 0 || partition > 255) throw new IllegalArgumentException("partition out of range");
        }
    }

    /**
     * A Bloom filter over URL hashes ({@link BloomFilter}'s double hashing): {@code hashes} 1..16,
     * {@code bits} 1..{@link BloomFilter#MAX_WORDS} longs.
     */
    public record Bloom(@JsonProperty("hashes") int hashes, @JsonProperty("bits") long[] bits) {
        public Bloom {
            if (hashes < 1 || hashes > 16) throw new IllegalArgumentException("bloom filter needs 1..16 hashes");
            if (bits == null || bits.length == 0 || bits.length > BloomFilter.MAX_WORDS) {
                throw new IllegalArgumentException("bloom filter size out of bounds");
            }
        }
    }

    /**
     * Postings packed as {@link PackedPostings} describes: {@code count} of them in {@code bytes}; {@code keyed}
     * (written only when true): the keyed layout, postings of the word of the key they answer, which a holder writes
     * only for an asker that set {@link LookupRequest#keyed}.
     */
    public record Postings(@JsonProperty("count") int count, @JsonProperty("bytes") byte[] bytes,
                           @JsonProperty("keyed") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean keyed)
            implements LeftOut {
        public static final Postings EMPTY = new Postings(0, new byte[0]);

        /**
         * No postings, and none written: a presence answer's ({@link KeyPostings#held}); an absent {@code postings}
         * reads as {@link #EMPTY}, as it always has, so every v1 peer reads such an answer.
         */
        public static final Postings NONE = new Postings(0, new byte[0]);

        @Override
        public boolean omitted() {
            return this == NONE;
        }

        public Postings {
            if (count < 0) throw new IllegalArgumentException("negative posting count");
            bytes = bytes == null ? new byte[0] : bytes;
        }

        public Postings(int count, byte[] bytes) {
            this(count, bytes, false);
        }
    }

    /**
     * One posting (inside {@link Postings}, never a CBOR map of its own): word {@code word} occurs in the
     * document {@code url}, with what the ranking needs. {@code holder} is the peer holding the URL's full
     * metadata, "" for the sender's own crawl; {@code lastModified} an epoch day; {@code expiresAt} an epoch
     * second, 0 never; {@code positions} at most {@link PackedPostings#MAX_POSITIONS}, ascending.
     */
    public record Posting(String word, String url, String holder, int flags, int hitCount, int[] positions,
                          int wordsInText, int wordsInTitle, int lastModified, String language, char doctype,
                          int linksLocal, int linksOther, int urlLength, int urlComponents, long expiresAt) {
        public Posting {
            hash(word, "word");
            hash(url, "URL");
            holder = holder == null ? "" : holder;
            if (!holder.isEmpty()) hash(holder, "holder");
            positions = positions == null ? new int[0] : positions;
            language = language == null ? "" : language;
            if (positions.length > PackedPostings.MAX_POSITIONS) throw new IllegalArgumentException("too many positions");
            if (language.length() > PackedPostings.MAX_LANGUAGE || !language.chars().allMatch(c -> c > 32 && c < 127)) {
                throw new IllegalArgumentException("bad language code");
            }
            if (hitCount < 0 || wordsInText < 0 || wordsInTitle < 0 || linksLocal < 0 || linksOther < 0
                    || urlLength < 0 || urlComponents < 0 || lastModified < 0 || expiresAt < 0 || flags < 0) {
                throw new IllegalArgumentException("posting counters must not be negative");
            }
        }
    }

    /**
     * What a result shows and the ranking needs about one URL. {@code holder} is the crawling peer's id, ""
     * when the sender crawled it; times are ms since the epoch (0 unknown); {@code doctype} one letter.
     */
    public record UrlRecord(@JsonProperty("urlHash") String urlHash, @JsonProperty("url") String url,
                            @JsonProperty("title") String title, @JsonProperty("description") String description,
                            @JsonProperty("author") String author, @JsonProperty("keywords") List<String> keywords,
                            @JsonProperty("language") String language, @JsonProperty("doctype") String doctype,
                            @JsonProperty("mimeType") String mimeType, @JsonProperty("size") long size,
                            @JsonProperty("lastModified") long lastModified, @JsonProperty("fetched") long fetched,
                            @JsonProperty("linksLocal") int linksLocal, @JsonProperty("linksOther") int linksOther,
                            @JsonProperty("wordsInText") int wordsInText, @JsonProperty("holder") String holder,
                            @JsonProperty("contentHash") String contentHash,
                            @JsonProperty("headings") List<String> headings) {
        public UrlRecord {
            hash(urlHash, "URL");
            if (url == null || url.isEmpty()) throw new IllegalArgumentException("metadata needs a URL");
            title = orEmpty(title);
            description = orEmpty(description);
            author = orEmpty(author);
            keywords = keywords == null ? List.of() : List.copyOf(keywords);
            language = orEmpty(language);
            doctype = doctype == null || doctype.isEmpty() ? "h" : doctype;
            mimeType = orEmpty(mimeType);
            holder = orEmpty(holder);
            if (!holder.isEmpty()) hash(holder, "holder");
            contentHash = orEmpty(contentHash);
            headings = headings == null ? List.of() : List.copyOf(headings);
        }
    }

    /**
     * One key of a lookup: the top {@code limit} postings of {@code key} that pass {@code filter} (null: no filter)
     * and whose URL is in {@code urls} (null: any URL; a list, even an empty one: only these). With {@code join}
     * (word hashes, the key's among them; absent: none, and then not written, so a plain lookup's bytes are those
     * of the first revision): a join lookup, the key's postings of the URLs that have a posting of every word of
     * {@code join} in the key's partition at the holder, the best {@code limit} by the sum of their partial
     * scores over all the join lookups of the request (docs/protocol.md, "Join lookups"). With {@code presence}
     * (true; absent: false, and then not written) and a URL set: which of the URLs have a posting of the key, as
     * {@link KeyPostings#held}, without postings (docs/protocol.md, "Confirmation"). With {@code scores} (true;
     * absent: false, and then not written): the same best {@code limit}, as their URLs and partial scores only, in
     * {@link KeyPostings#scores} (docs/protocol.md, "Top lookups"); a peer that predates it sends the postings.
     * With {@code scores} and {@code filter}: the best {@code limit} passing the filter, as scores (docs/protocol.md,
     * "Scored filters"); a peer that predates them refuses the request as malformed.
     * With {@code prefixes} ({@link UrlPrefixes}; absent: not written) instead of {@code urls}: only URLs that begin
     * with one of them, and the answer says it read them ({@link KeyPostings#prefixed}); a peer that predates them
     * answers as if no URL set were given, and does not say so, and the asker asks it again with {@code urls}.
     * With {@code scores} and {@code part} (the query's word count and the word's share of its BM25, packed as
     * {@code terms << 16 | ceil(share × 65535)}; absent: 0, and then not written): the scores are the word's part
     * of that query's score (docs/protocol.md, "Word parts"); a peer that predates it scores by the one-word score.
     * With {@code scores}, {@code filter} and {@code prefixFilter} (true; absent: false, and then not written): the
     * filter is over URL prefixes ({@link UrlPrefixes#of}), a completion of URLs known by prefix (docs/protocol.md,
     * "Prefix scores"); a peer that predates it tests whole hashes and answers with {@code scores}, which tells it.
     * With {@code scores} alone and {@code skip} (absent: 0, and then not written): the best {@code limit} less the
     * first {@code skip} of them, a top lookup's deeper round (docs/protocol.md, "Top lookups"); a peer that predates
     * it sends all {@code limit}.
     */
    public record Lookup(@JsonProperty("key") Key key, @JsonProperty("filter") Bloom filter,
                         @JsonProperty("urls") List<String> urls, @JsonProperty("limit") int limit,
                         @JsonProperty("join") @JsonInclude(JsonInclude.Include.NON_NULL) List<String> join,
                         @JsonProperty("presence") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean presence,
                         @JsonProperty("scores") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean scores,
                         @JsonProperty("prefixes") @JsonInclude(JsonInclude.Include.NON_NULL) byte[] prefixes,
                         @JsonProperty("part") @JsonInclude(JsonInclude.Include.NON_DEFAULT) int part,
                         @JsonProperty("prefixFilter") @JsonInclude(JsonInclude.Include.NON_DEFAULT)
                         boolean prefixFilter,
                         @JsonProperty("skip") @JsonInclude(JsonInclude.Include.NON_DEFAULT) int skip) {
        public Lookup {
            if (skip < 0) throw new IllegalArgumentException("negative skip");
            if (key == null) throw new IllegalArgumentException("lookup needs a key");
            if (urls != null) {
                urls = List.copyOf(urls);
                for (String u : urls) hash(u, "URL");
            }
            if (prefixes != null) UrlPrefixes.checkPairs(prefixes);
            if (prefixes != null && urls != null) throw new IllegalArgumentException("URLs or their prefixes, not both");
            if (limit < 0) throw new IllegalArgumentException("negative limit");
            if (join != null) {
                join = List.copyOf(join);
                for (String w : join) hash(w, "word");
            }
        }

        public Lookup(Key key, Bloom filter, List<String> urls, int limit, List<String> join, boolean presence,
                      boolean scores, byte[] prefixes, int part, boolean prefixFilter) {
            this(key, filter, urls, limit, join, presence, scores, prefixes, part, prefixFilter, 0);
        }

        public Lookup(Key key, Bloom filter, List<String> urls, int limit, List<String> join, boolean presence,
                      boolean scores, byte[] prefixes, int part) {
            this(key, filter, urls, limit, join, presence, scores, prefixes, part, false);
        }

        public Lookup(Key key, Bloom filter, List<String> urls, int limit, List<String> join, boolean presence,
                      boolean scores, byte[] prefixes) {
            this(key, filter, urls, limit, join, presence, scores, prefixes, 0);
        }

        public Lookup(Key key, Bloom filter, List<String> urls, int limit) {
            this(key, filter, urls, limit, null, false, false, null);
        }

        public Lookup(Key key, Bloom filter, List<String> urls, int limit, List<String> join) {
            this(key, filter, urls, limit, join, false, false, null);
        }

        public Lookup(Key key, Bloom filter, List<String> urls, int limit, List<String> join, boolean presence) {
            this(key, filter, urls, limit, join, presence, false, null);
        }

        public Lookup(Key key, Bloom filter, List<String> urls, int limit, List<String> join, boolean presence,
                      boolean scores) {
            this(key, filter, urls, limit, join, presence, scores, null);
        }
    }

    /**
     * The answer for one key: the postings sent, how many matched in all, and whether some were left out; for a
     * presence lookup, {@code held} instead of postings: bit i (of byte i / 8, lowest first) set when the i-th URL
     * asked has a posting of the key (absent for other lookups, and then not written). A presence answer leaves out
     * {@code postings} ({@link Postings#NONE}); a zero {@code matched} and a false {@code truncated} are not
     * written either: an absent key reads as its default, so every v1 peer reads them as before. For a score
     * lookup, {@code scores} instead of postings: {@code (url[9] score[2])*}, the partial score in units of 1/1024
     * rounded up (absent for other lookups, and then not written). {@code prefixed}: the lookup's URL prefixes were
     * read and applied (absent, false, for every other lookup). {@code prefixScores}: a score lookup's answer to
     * an asker that set {@link LookupRequest#prefixScores}, its URLs by prefix ({@link PrefixScores}), in place of
     * {@code scores} (absent otherwise).
     */
    public record KeyPostings(@JsonProperty("key") Key key,
                              @JsonProperty("postings")
                              @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = LeftOut.Filter.class)
                              Postings postings,
                              @JsonProperty("matched") @JsonInclude(JsonInclude.Include.NON_DEFAULT) int matched,
                              @JsonProperty("truncated") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean truncated,
                              @JsonProperty("held") @JsonInclude(JsonInclude.Include.NON_NULL) byte[] held,
                              @JsonProperty("scores") @JsonInclude(JsonInclude.Include.NON_NULL) byte[] scores,
                              @JsonProperty("prefixed") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean prefixed,
                              @JsonProperty("prefixScores") @JsonInclude(JsonInclude.Include.NON_NULL)
                              byte[] prefixScores) {
        public KeyPostings {
            if (key == null) throw new IllegalArgumentException("key postings need a key");
            postings = postings == null ? Postings.EMPTY : postings;
            if (matched < 0) throw new IllegalArgumentException("negative match count");
            if (scores != null && (scores.length % SCORE_ENTRY != 0 || scores.length / SCORE_ENTRY > MAX_SCORES)) {
                throw new IllegalArgumentException("scores must be whole " + SCORE_ENTRY + "-byte entries, at most "
                        + MAX_SCORES);
            }
            if (prefixScores != null) PrefixScores.read(prefixScores, MAX_SCORES);
        }

        public KeyPostings(Key key, Postings postings, int matched, boolean truncated, byte[] held, byte[] scores,
                           boolean prefixed) {
            this(key, postings, matched, truncated, held, scores, prefixed, null);
        }

        /** Bytes of one entry of {@link #scores}: a packed URL hash and a two-byte score. */
        public static final int SCORE_ENTRY = 11;
        /** Entries of {@link #scores} an answer may carry at most. */
        public static final int MAX_SCORES = 65_536;

        public KeyPostings(Key key, Postings postings, int matched, boolean truncated) {
            this(key, postings, matched, truncated, null, null, false);
        }

        public KeyPostings(Key key, Postings postings, int matched, boolean truncated, byte[] held) {
            this(key, postings, matched, truncated, held, null, false);
        }

        public KeyPostings(Key key, Postings postings, int matched, boolean truncated, byte[] held, byte[] scores) {
            this(key, postings, matched, truncated, held, scores, false);
        }
    }

    /**
     * A digest of one range for anti-entropy: entries of {@code kind} ("p" postings, "m" metadata at positions both
     * sides hold; "c" postings, "d" metadata of the sender's own crawl at positions only the receiver holds) crawled by
     * {@code origin}, in ring bucket {@code bucket}: their {@code count} and the {@code sum} of their 64-bit hashes.
     */
    public record Digest(@JsonProperty("kind") String kind, @JsonProperty("origin") String origin,
                         @JsonProperty("bucket") int bucket, @JsonProperty("count") int count,
                         @JsonProperty("sum") long sum) {
        public Digest {
            digestKind(kind);
            hash(origin, "origin");
            if (bucket < 0 || count < 0) throw new IllegalArgumentException("negative bucket or count");
        }
    }

    /**
     * A range of a digest that differs. {@code held}, when present, lists the entry hashes the responder holds in the
     * range (8 bytes each, big-endian; at most {@link #MAX_HELD_HASHES} in a reply): the sender then sends only the
     * entries whose hash is not among them. Absent (a responder before key lists, or a range over its bound): the
     * sender sends the whole range.
     */
    public record DigestRange(@JsonProperty("kind") String kind, @JsonProperty("origin") String origin,
                              @JsonProperty("bucket") int bucket,
                              @JsonProperty("held") @JsonInclude(JsonInclude.Include.NON_NULL) byte[] held) {
        public DigestRange {
            digestKind(kind);
            hash(origin, "origin");
            if (bucket < 0) throw new IllegalArgumentException("negative bucket");
            if (held != null && (held.length % 8 != 0 || held.length / 8 > MAX_HELD_HASHES)) {
                throw new IllegalArgumentException("held must be whole 8-byte hashes, at most " + MAX_HELD_HASHES);
            }
        }

        public DigestRange(String kind, String origin, int bucket) {
            this(kind, origin, bucket, null);
        }
    }

    /** Entry hashes one digest reply may list as held, over all its ranges (512 KiB: within Artery's 1 MiB frame as CBOR longs). */
    public static final int MAX_HELD_HASHES = 65_536;

    /** How a store ended: STORED (durably), REFUSED (not my range), REJECTED (malformed), BUSY (retry later). */
    public enum Outcome { STORED, REFUSED, REJECTED, BUSY }

    // ---------------------------------------------------------------- the DHT

    /**
     * {@code count}: how many postings each key has here; with {@code tops} (optional, not written when 0), also the
     * answer to a score lookup of the best {@code tops} URLs, by prefix, of every key with more than 8 × {@code tops}
     * postings here (docs/protocol.md, "Tops with the counts").
     */
    public record CountRequest(@JsonProperty("queryId") long queryId, @JsonProperty("keys") List<Key> keys,
                               @JsonProperty("tops") @JsonInclude(JsonInclude.Include.NON_DEFAULT) int tops)
            implements Body {
        public CountRequest {
            keys = keys == null ? List.of() : List.copyOf(keys);
        }

        public CountRequest(long queryId, List<Key> keys) {
            this(queryId, keys, 0);
        }
    }

    /**
     * One count per key asked, in order; or an {@code error} and no counts. In every reply, error "" is success.
     * {@code tops} (optional): the score lists of the long keys, when the request asked for them.
     */
    public record CountReply(@JsonProperty("queryId") long queryId, @JsonProperty("counts") List<Integer> counts,
                             @JsonProperty("error") String error,
                             @JsonProperty("tops") @JsonInclude(JsonInclude.Include.NON_NULL) List<KeyPostings> tops)
            implements Body {
        public CountReply {
            error = orEmpty(error);
            counts = counts == null ? List.of() : List.copyOf(counts);
            tops = tops == null ? null : List.copyOf(tops);
        }

        public CountReply(long queryId, List<Integer> counts, String error) {
            this(queryId, counts, error, null);
        }
    }

    /** {@code filter}: a Bloom filter over the URL hashes of each key, at {@code bitsPerElement}. */
    public record FilterRequest(@JsonProperty("queryId") long queryId, @JsonProperty("keys") List<Key> keys,
                                @JsonProperty("bitsPerElement") int bitsPerElement) implements Body {
        public FilterRequest {
            keys = keys == null ? List.of() : List.copyOf(keys);
        }
    }

    /** One filter and one count per key asked, in order; or an {@code error}. */
    public record FilterReply(@JsonProperty("queryId") long queryId, @JsonProperty("filters") List<Bloom> filters,
                              @JsonProperty("counts") List<Integer> counts, @JsonProperty("error") String error)
            implements Body {
        public FilterReply {
            error = orEmpty(error);
            filters = filters == null ? List.of() : List.copyOf(filters);
            counts = counts == null ? List.of() : List.copyOf(counts);
        }
    }

    /**
     * A request's join lookups in one: for each of {@code partitions}, the join lookup of {@code words} in that
     * partition with {@code limit} (as a {@link Lookup} with {@code join}, keyed by the first word), without naming
     * the words again for every partition. Partitions distinct, at least one; 1..16 words.
     */
    public record Joins(@JsonProperty("words") List<String> words, @JsonProperty("partitions") List<Integer> partitions,
                        @JsonProperty("limit") int limit) {
        public Joins {
            words = words == null ? List.of() : List.copyOf(words);
            partitions = partitions == null ? List.of() : List.copyOf(partitions);
            if (words.isEmpty() || words.size() > 16) throw new IllegalArgumentException("joins name 1..16 words");
            for (String w : words) hash(w, "word");
            if (partitions.isEmpty()) throw new IllegalArgumentException("joins need a partition");
            for (int p : partitions) if (p < 0 || p > 255) throw new IllegalArgumentException("partition out of range");
            if (new HashSet<>(partitions).size() != partitions.size()) {
                throw new IllegalArgumentException("a partition twice in joins");
            }
            if (limit < 0) throw new IllegalArgumentException("negative limit");
        }

        /** The join lookups these stand for. */
        public List<Lookup> lookups() {
            List<Lookup> out = new ArrayList<>(partitions.size());
            for (int p : partitions) out.add(new Lookup(new Key(words.get(0), p), null, null, limit, words));
            return out;
        }
    }

    /**
     * {@code lookup}: postings, filtered and capped, for each lookup. {@code keyed} (written only when true): the
     * asker reads keyed packs ({@link PackedPostings}), and the holder answers every lookup with postings in one; a
     * holder that predates the key ignores it and answers with plain packs, which every asker reads.
     * {@code joinTable} (written only when true, and heeded only with {@code keyed}): the asker reads the answers to
     * its join lookups as one {@link JoinTable} in the reply's {@code joinTable}; a holder that predates it answers
     * them as {@link KeyPostings}, which every asker reads. {@code presenceTable} (not written when absent): presence
     * questions as one {@link PresenceTable}, answered in the reply's {@code heldTable}, beside any lookups; a holder
     * that predates it does not answer them, which the asker reads as no answer (never as a denial).
     * {@code joins} (not written when absent): join lookups beside {@code lookups}, each word named once; a holder that
     * predates it finds no keys and answers with an error, and the asker asks another holder.
     * {@code prefixScores} (written only when true): the asker names URLs by prefix and reads score lists so, and
     * the holder answers every score lookup in the reply's {@link KeyPostings#prefixScores} ({@link PrefixScores})
     * instead of {@code scores}; a holder that predates it (or does not read prefixes) answers with {@code scores}.
     */
    public record LookupRequest(@JsonProperty("queryId") long queryId, @JsonProperty("lookups") List<Lookup> lookups,
                                @JsonProperty("keyed") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean keyed,
                                @JsonProperty("joinTable") @JsonInclude(JsonInclude.Include.NON_DEFAULT)
                                boolean joinTable,
                                @JsonProperty("presenceTable") @JsonInclude(JsonInclude.Include.NON_NULL)
                                byte[] presenceTable,
                                @JsonProperty("joins") @JsonInclude(JsonInclude.Include.NON_NULL) Joins joins,
                                @JsonProperty("prefixScores") @JsonInclude(JsonInclude.Include.NON_DEFAULT)
                                boolean prefixScores)
            implements Body {
        public LookupRequest {
            lookups = lookups == null ? List.of() : List.copyOf(lookups);
        }

        public LookupRequest(long queryId, List<Lookup> lookups, boolean keyed, boolean joinTable, byte[] presenceTable,
                             Joins joins) {
            this(queryId, lookups, keyed, joinTable, presenceTable, joins, false);
        }

        public LookupRequest(long queryId, List<Lookup> lookups, boolean keyed, boolean joinTable, byte[] presenceTable) {
            this(queryId, lookups, keyed, joinTable, presenceTable, null);
        }

        public LookupRequest(long queryId, List<Lookup> lookups, boolean keyed, boolean joinTable) {
            this(queryId, lookups, keyed, joinTable, null);
        }

        public LookupRequest(long queryId, List<Lookup> lookups, boolean keyed) {
            this(queryId, lookups, keyed, false);
        }

        public LookupRequest(long queryId, List<Lookup> lookups) {
            this(queryId, lookups, false, false);
        }
    }

    /**
     * The postings found per key; or an {@code error}. {@code joinTable} (only to an asker that set
     * {@link LookupRequest#joinTable}; not written when absent): the answers to the join lookups as a
     * {@link JoinTable}, which {@code results} then leaves out. {@code heldTable} (only to an asker that sent a
     * {@link LookupRequest#presenceTable}; not written when absent): its answer, {@link PresenceTable#held(List)}.
     */
    public record LookupReply(@JsonProperty("queryId") long queryId,
                              @JsonProperty("results") List<KeyPostings> results,
                              @JsonProperty("error") String error,
                              @JsonProperty("joinTable") @JsonInclude(JsonInclude.Include.NON_NULL) byte[] joinTable,
                              @JsonProperty("heldTable") @JsonInclude(JsonInclude.Include.NON_NULL) byte[] heldTable)
            implements Body {
        public LookupReply {
            error = orEmpty(error);
            results = results == null ? List.of() : List.copyOf(results);
        }

        public LookupReply(long queryId, List<KeyPostings> results, String error, byte[] joinTable) {
            this(queryId, results, error, joinTable, null);
        }

        public LookupReply(long queryId, List<KeyPostings> results, String error) {
            this(queryId, results, error, null);
        }
    }

    /**
     * {@code metadata}: the URL records of these URL hashes. {@code rows} (written only when true): the asker reads
     * the records as {@link UrlRow}s, arrays without field names, in the reply's {@code rows}; a holder that predates
     * the key answers with {@code metadata}, which every asker reads.
     */
    public record MetadataRequest(@JsonProperty("queryId") long queryId, @JsonProperty("urls") List<String> urls,
                                  @JsonProperty("rows") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean rows)
            implements Body {
        public MetadataRequest {
            urls = urls == null ? List.of() : List.copyOf(urls);
            for (String u : urls) hash(u, "URL");
        }

        public MetadataRequest(long queryId, List<String> urls) {
            this(queryId, urls, false);
        }
    }

    /**
     * The records this peer has of the URLs asked; or an {@code error}. {@code rows} (only to an asker that set
     * {@link MetadataRequest#rows}; not written when absent): the same records as rows, which {@code metadata} then
     * leaves out. A row is not checked as it is read (a bad one would fail the whole reply): its reader turns each
     * into a {@link UrlRecord} ({@link UrlRow#record}) and drops one that fails the record's checks.
     */
    public record MetadataReply(@JsonProperty("queryId") long queryId,
                                @JsonProperty("metadata") List<UrlRecord> metadata,
                                @JsonProperty("error") String error,
                                @JsonProperty("rows") @JsonInclude(JsonInclude.Include.NON_NULL) List<UrlRow> rows)
            implements Body {
        public MetadataReply {
            error = orEmpty(error);
            metadata = metadata == null ? List.of() : List.copyOf(metadata);
            // kept as sent, nulls too: each row is judged alone when it is read
            rows = rows == null ? null : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(rows));
        }

        public MetadataReply(long queryId, List<UrlRecord> metadata, String error) {
            this(queryId, metadata, error, null);
        }
    }

    /**
     * A {@link UrlRecord} as an array of its fields in the record's order, without their names (about 150 bytes a
     * record less): what a {@link MetadataReply} carries in {@code rows}. Elements past the last field are ignored,
     * so a later field can be added at the end.
     */
    @JsonFormat(shape = JsonFormat.Shape.ARRAY)
    @JsonPropertyOrder({"urlHash", "url", "title", "description", "author", "keywords", "language", "doctype",
            "mimeType", "size", "lastModified", "fetched", "linksLocal", "linksOther", "wordsInText", "holder",
            "contentHash", "headings"})
    public record UrlRow(@JsonProperty("urlHash") String urlHash, @JsonProperty("url") String url,
                         @JsonProperty("title") String title, @JsonProperty("description") String description,
                         @JsonProperty("author") String author, @JsonProperty("keywords") List<String> keywords,
                         @JsonProperty("language") String language, @JsonProperty("doctype") String doctype,
                         @JsonProperty("mimeType") String mimeType, @JsonProperty("size") long size,
                         @JsonProperty("lastModified") long lastModified, @JsonProperty("fetched") long fetched,
                         @JsonProperty("linksLocal") int linksLocal, @JsonProperty("linksOther") int linksOther,
                         @JsonProperty("wordsInText") int wordsInText, @JsonProperty("holder") String holder,
                         @JsonProperty("contentHash") String contentHash,
                         @JsonProperty("headings") List<String> headings) {
        public static UrlRow of(UrlRecord r) {
            return new UrlRow(r.urlHash(), r.url(), r.title(), r.description(), r.author(), r.keywords(), r.language(),
                    r.doctype(), r.mimeType(), r.size(), r.lastModified(), r.fetched(), r.linksLocal(), r.linksOther(),
                    r.wordsInText(), r.holder(), r.contentHash(), r.headings());
        }

        /** The record, checked as every record is; throws IllegalArgumentException on a malformed one. */
        public UrlRecord record() {
            try {
                return new UrlRecord(urlHash, url, title, description, author, keywords, language, doctype, mimeType,
                        size, lastModified, fetched, linksLocal, linksOther, wordsInText, holder, contentHash, headings);
            } catch (NullPointerException e) { // a null inside a list
                throw new IllegalArgumentException("a null in a row's list", e);
            }
        }
    }

    /** {@code store}: keep these postings and URL records (a transfer, a replica, a repair or a hand-off). */
    public record StoreRequest(@JsonProperty("batchId") long batchId, @JsonProperty("postings") Postings postings,
                               @JsonProperty("metadata") List<UrlRecord> metadata) implements Body {
        public StoreRequest {
            postings = postings == null ? Postings.EMPTY : postings;
            metadata = metadata == null ? List.of() : List.copyOf(metadata);
        }
    }

    /** The outcome of a store: postings {@code stored}, a {@code reason}, and when to retry after BUSY. */
    public record StoreReply(@JsonProperty("batchId") long batchId, @JsonProperty("outcome") Outcome outcome,
                             @JsonProperty("stored") int stored, @JsonProperty("reason") String reason,
                             @JsonProperty("retryAfterMillis") long retryAfterMillis) implements Body {
        public StoreReply {
            if (outcome == null) throw new IllegalArgumentException("store reply needs an outcome");
            reason = orEmpty(reason);
        }
    }

    /**
     * {@code digest}: anti-entropy; which of these ranges differ from what you hold? With {@code allOrigins}, each
     * "p" and "m" digest covers the entries of every origin in its bucket (its {@code origin} names the sender): one
     * digest a bucket instead of one per crawling peer, and the responder compares its own sums over all origins and
     * lists every held hash of a bucket that differs. Absent (false): one digest per origin.
     */
    public record DigestRequest(@JsonProperty("exchangeId") long exchangeId,
                                @JsonProperty("digests") List<Digest> digests,
                                @JsonProperty("allOrigins") @JsonInclude(JsonInclude.Include.NON_NULL) Boolean allOrigins)
            implements Body {
        public DigestRequest {
            digests = digests == null ? List.of() : List.copyOf(digests);
            allOrigins = Boolean.TRUE.equals(allOrigins) ? Boolean.TRUE : null; // false travels as absent
        }

        public DigestRequest(long exchangeId, List<Digest> digests) {
            this(exchangeId, digests, null);
        }

        /** Whether the "p" and "m" digests cover every origin of their bucket. */
        public boolean foldsOrigins() {
            return allOrigins != null;
        }
    }

    /** The ranges that differ (with the entry hashes held in them, as far as {@link #MAX_HELD_HASHES}); or an {@code error}. */
    public record DigestReply(@JsonProperty("exchangeId") long exchangeId,
                              @JsonProperty("differing") List<DigestRange> differing,
                              @JsonProperty("error") String error) implements Body {
        public DigestReply {
            error = orEmpty(error);
            differing = differing == null ? List.of() : List.copyOf(differing);
            long held = 0;
            for (DigestRange r : differing) held += r.held() == null ? 0 : r.held().length / 8;
            if (held > MAX_HELD_HASHES) throw new IllegalArgumentException("at most " + MAX_HELD_HASHES + " held hashes a reply");
        }
    }

    private static void hash(String s, String what) {
        if (!Base64Order.isHash(s, 12)) throw new IllegalArgumentException("not a " + what + " hash");
    }

    private static void digestKind(String kind) {
        if (!"p".equals(kind) && !"m".equals(kind) && !"c".equals(kind) && !"d".equals(kind)) {
            throw new IllegalArgumentException("digest kind must be p, m, c or d");
        }
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }
}
