package org.peerdex.storage.kv;

/** The first byte of every key names what the entry is; one LevelDB database holds them all. */
public final class Keyspace {
    /**
     * word hash ‖ URL hash → posting, or {@link #TOMBSTONE}: postings written since their word's blocks were last
     * folded (the fresh tier of the reverse word index; see rwi.ReverseWordIndex)
     */
    public static final byte RWI = 'r';
    /**
     * word hash ‖ the highest URL hash the block covers → a block of up to 128 postings of one vertical partition
     * (rwi.PostingBlock): the folded tier of the reverse word index
     */
    public static final byte POSTING_BLOCKS = 'w';
    /** URL hash ‖ word hash → nothing: which words a URL has, for deletes */
    public static final byte URL_WORDS = 'x';
    /** URL hash → URL metadata */
    public static final byte META = 'm';
    /**
     * URL hash → URL metadata learned from another peer's search answer (a cache): shown to this peer's searchers
     * like {@link #META}, never served to other peers nor offered in replication; a stored or crawled record of the
     * URL replaces it
     */
    public static final byte LEARNED_META = 'n';
    /** URL hash → extracted text, for snippets and phrase checks */
    public static final byte TEXT = 't';
    /** URL hash → the images of the page's main content (meta.PageImage list), for image search */
    public static final byte IMAGES = 'g';
    /** URL hash → crawl/parse history */
    public static final byte HISTORY = 'h';
    /** crawl job id ‖ ... → frontier entries */
    public static final byte FRONTIER = 'f';
    /** crawl job id → crawl profile and counters */
    public static final byte CRAWLS = 'c';
    /** peer id → peer record */
    public static final byte PEERS = 'p';
    /** scope ‖ 0 ‖ host regex ‖ 0 ‖ path regex → nothing: blacklist rules (see blacklist.Blacklist) */
    public static final byte BLACKLIST = 'b';
    public static final byte FEEDBACK = 'k';
    /** named settings: the peer id, ranking profiles, ... */
    public static final byte SETTINGS = 's';
    /** content hash → URL hash, for duplicate detection */
    public static final byte CONTENT = 'd';
    /** host hash → link-graph entries */
    public static final byte LINKS = 'l';
    /** entry id → postings and metadata a Replicator still owes a target peer (kept until acknowledged) */
    public static final byte OUTBOX = 'o';

    /**
     * The value of a {@link #RWI} entry that deletes the posting its key names from the folded tier; every stored
     * posting starts with its codec's version byte (1 or more), so this single zero byte is never a posting.
     */
    public static final byte[] TOMBSTONE = {0};

    /** True if {@code value}, stored under a {@link #RWI} key, deletes its posting. */
    public static boolean isTombstone(byte[] value) {
        return value.length == 1 && value[0] == 0;
    }

    private Keyspace() {}
}
