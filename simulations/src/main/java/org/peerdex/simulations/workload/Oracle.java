package org.peerdex.simulations.workload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.peerdex.actors.search.Candidate;
import org.peerdex.actors.search.CandidateSource;
import org.peerdex.actors.search.LocalIndexSource;
import org.peerdex.actors.search.query.Query;
import org.peerdex.actors.search.query.QueryParser;
import org.peerdex.actors.search.ranking.CorpusStats;
import org.peerdex.actors.search.ranking.LinkRank;
import org.peerdex.actors.search.ranking.RankingProfile;
import org.peerdex.actors.search.ranking.Scorer;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.protocol.hash.WordHash;
import org.peerdex.protocol.ring.Partitions;
import org.peerdex.storage.PeerStorage;
import org.peerdex.storage.index.IndexedDocument;
import org.peerdex.storage.rwi.HashBytes;
import org.peerdex.storage.rwi.PackedHashIds;
import org.peerdex.storage.rwi.Posting;
import org.peerdex.storage.rwi.ReverseWordIndex;
import org.peerdex.storage.text.Condenser;
import org.peerdex.storage.text.Tokenizer;

/**
 * The central index over the whole corpus, as if one machine held every document: gives the true top-k of a
 * query as a central peer would rank it, with the same code a peer's QueryCoordinator uses (its
 * {@link LocalIndexSource} join over one storage holding every document, then the {@link Scorer} of the default
 * ranking profile, best first, ties by URL hash as in the Ranking actor); and numbers every posting so replica
 * counts can be kept in a flat array.
 */
public final class Oracle implements AutoCloseable {
    private final PeerStorage central;
    private final LocalIndexSource source;
    private final Map<WordHash, String> names = new HashMap<>();
    private final Map<WordHash, Integer> wordIds = new HashMap<>();
    private final List<WordHash> words = new ArrayList<>();
    private final Map<UrlHash, Integer> docIds = new HashMap<>();
    private final List<UrlHash> urls = new ArrayList<>();
    private final List<int[]> docWords = new ArrayList<>();
    private final List<Integer> offsets = new ArrayList<>();
    /** the word ids by packed hash, for stored keys (a replica count meets every stored posting) */
    private final PackedHashIds packedWords = new PackedHashIds();
    private int totalPostings;
    private boolean dirty = true;

    /** the central index's directory when it is on disk (deleted on close), else null */
    private final Path dir;

    public Oracle(Partitions partitions) {
        this(PeerStorage.inMemory(partitions), null);
    }

    private Oracle(PeerStorage central, Path dir) {
        this.central = central;
        this.dir = dir;
        this.source = new LocalIndexSource(central, Runnable::run);
    }

    /**
     * An oracle whose central index is a LevelDB in a temporary directory: an in-memory store keeps its entries in
     * one array, at most 2 GiB, which a corpus of some 800,000 documents passes.
     */
    public static Oracle onDisk(Partitions partitions) {
        try {
            Path dir = Files.createTempDirectory("peerdex-oracle");
            return new Oracle(PeerStorage.openLevelDb(dir, partitions), dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (dir == null) return;
        central.close();
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Adds one document (call in document order, then {@link #seal()}). */
    public void add(IndexedDocument doc) {
        register(doc);
        central.writer().add(doc);
    }

    /**
     * Numbers one document's words and postings (call in document order) without putting it in the central index:
     * {@link #addToCentral} does that later, with as many of its postings as the run keeps.
     */
    public void register(IndexedDocument doc) {
        UrlHash url = doc.metadata().urlHash();
        List<Posting> postings = doc.postings();
        // the words the condenser indexed: title, text and the words of the URL
        for (String w : Tokenizer.words(doc.metadata().title() + " \n " + doc.text() + " \n "
                + Condenser.urlWords(doc.metadata().url()))) {
            names.putIfAbsent(WordHash.of(w), w);
        }
        int d = urls.size();
        docIds.put(url, d);
        urls.add(url);
        int[] ws = new int[postings.size()];
        Integer[] order = new Integer[postings.size()];
        int[] raw = new int[postings.size()];
        for (int i = 0; i < postings.size(); i++) {
            raw[i] = wordIds.computeIfAbsent(postings.get(i).word(), w -> {
                words.add(w);
                packedWords.put(HashBytes.pack(w.value()), words.size() - 1);
                return words.size() - 1;
            });
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt(i -> raw[i]));
        for (int i = 0; i < order.length; i++) {
            ws[i] = raw[order[i]];
        }
        docWords.add(ws);
        byWordStart = null;
        offsets.add(totalPostings);
        totalPostings += ws.length;
        dirty = true;
    }

    /** Puts a registered document in the central index (then {@link #seal()}). */
    public void addToCentral(IndexedDocument doc) {
        central.writer().add(doc);
        dirty = true;
    }

    /** The central storage holding every document. */
    public PeerStorage centralStorage() {
        if (dirty) seal();
        return central;
    }

    /** Makes every document added so far searchable. */
    public void seal() {
        dirty = false;
        central.writer().flush();
    }

    public int documents() {
        return urls.size();
    }

    /** How many distinct words the documents have. */
    public int wordCount() {
        return words.size();
    }

    public int totalPostings() {
        return totalPostings;
    }

    public int[] wordsOf(int doc) {
        return docWords.get(doc);
    }

    /** The id of a word, or -1 if no document has it. */
    public int wordId(WordHash w) {
        return wordIds.getOrDefault(w, -1);
    }

    /** The document number of a URL, or -1. */
    public int docId(UrlHash u) {
        return docIds.getOrDefault(u, -1);
    }

    public WordHash word(int id) {
        return words.get(id);
    }

    public UrlHash url(int doc) {
        return urls.get(doc);
    }

    /** The flat id of posting (word, url), or -1 if the corpus has no such posting. */
    public int postingId(WordHash word, UrlHash url) {
        Integer w = wordIds.get(word);
        Integer d = docIds.get(url);
        if (w == null || d == null) return -1;
        int i = Arrays.binarySearch(docWords.get(d), w);
        return i < 0 ? -1 : offsets.get(d) + i;
    }

    /**
     * Every posting by word, each word's in URL-hash order (the order of stored keys): word w's are entries
     * byWordStart[w] .. byWordStart[w + 1] - 1, with the URL hash's first 8 bytes (sign bit flipped, so signed order
     * is byte order) and ninth byte, and the posting id. Built on the first key lookup after documents were added.
     */
    private int[] byWordStart;
    private long[] byWordHeads;
    private byte[] byWordTails;
    private int[] byWordIds;

    /**
     * The posting id of a stored RWI key (packed word and URL hash), -1 if the oracle does not know it; without
     * decoding the posting or its hashes. A scan meets a word's keys in a row and in URL order, so the lookup
     * remembers the word and walks forward through that word's postings: counting the copies of every stored posting
     * at every sample was a quarter of a 500-peer churn run while it looked each one up in its document's words. Not
     * thread-safe: a scan on another thread takes a {@link #keyLookup} of its own.
     */
    public int postingId(byte[] key) {
        if (byWordStart == null) buildByWord();
        return shared.postingId(key);
    }

    private final KeyLookup shared = new KeyLookup();

    /**
     * A lookup of stored keys' posting ids with its own place in the by-word table, for one thread of a parallel
     * scan; the table is built here, so the lookups only read it (until documents are added).
     */
    public KeyLookup keyLookup() {
        if (byWordStart == null) buildByWord();
        return new KeyLookup();
    }

    /** {@link #postingId(byte[])} with its own memory of the last word and place (one per scanning thread). */
    public final class KeyLookup {
        private final byte[] lastWordKey = new byte[HashBytes.PACKED];
        private int lastWord;
        private boolean hasLastWord;
        /** where the last lookup ended in the last word's postings (a scan meets them in URL order) */
        private int cursor;

        private KeyLookup() {}

        /** The posting id of a stored RWI key, -1 if the oracle does not know it. */
        public int postingId(byte[] key) {
            int at = position(key);
            return at < 0 ? -1 : byWordIds[at];
        }

        /**
         * Where a stored RWI key is in the by-word table (word by word, each word's postings in URL order: the order
         * of a store's keys), -1 if the oracle does not know it; {@link #postingIdAt} turns it into a posting id.
         * Counting by table position touches memory in the order a scan goes, where posting ids (document by
         * document) would be a random access a key.
         */
        public int position(byte[] key) {
            int w = ReverseWordIndex.WORD_OFFSET;
            if (!hasLastWord || !Arrays.equals(key, w, w + HashBytes.PACKED, lastWordKey, 0, HashBytes.PACKED)) {
                System.arraycopy(key, w, lastWordKey, 0, HashBytes.PACKED);
                lastWord = packedWords.get(key, w);
                hasLastWord = true;
                cursor = lastWord < 0 ? 0 : byWordStart[lastWord];
            }
            if (lastWord < 0) return -1;
            long head = PackedHashIds.head(key, ReverseWordIndex.URL_OFFSET) ^ Long.MIN_VALUE;
            int tail = key[ReverseWordIndex.URL_OFFSET + 8] & 0xff;
            int lo = byWordStart[lastWord];
            int hi = byWordStart[lastWord + 1];
            // gallop forward from the last position (a key below it: search the word's postings from their start)
            int from = cursor < hi && compareAt(cursor, head, tail) <= 0 ? cursor : lo;
            int step = 1;
            int to = from;
            while (to < hi && compareAt(to, head, tail) < 0) {
                from = to + 1;
                to = Math.min(hi, to + step);
                step <<= 1;
            }
            while (from < to) { // the first entry not below the key, in from..to
                int mid = (from + to) >>> 1;
                if (compareAt(mid, head, tail) < 0) from = mid + 1;
                else to = mid;
            }
            cursor = from;
            return from < hi && compareAt(from, head, tail) == 0 ? from : -1;
        }
    }

    /** The posting id at a by-word table position ({@link KeyLookup#position}). */
    public int postingIdAt(int position) {
        if (byWordStart == null) buildByWord();
        return byWordIds[position];
    }

    /** Entry i of the by-word table against a URL hash (its flipped head and unsigned ninth byte). */
    private int compareAt(int i, long head, int tail) {
        int c = Long.compare(byWordHeads[i], head);
        return c != 0 ? c : Integer.compare(byWordTails[i] & 0xff, tail);
    }

    private void buildByWord() {
        int nw = words.size();
        int[] start = new int[nw + 1];
        for (int[] ws : docWords) for (int w : ws) start[w + 1]++;
        for (int w = 0; w < nw; w++) start[w + 1] += start[w];
        int[] fill = Arrays.copyOf(start, nw);
        long[] heads = new long[totalPostings];
        byte[] tails = new byte[totalPostings];
        int[] ids = new int[totalPostings];
        for (int d = 0; d < docWords.size(); d++) {
            byte[] packed = HashBytes.pack(urls.get(d).value());
            long head = PackedHashIds.head(packed, 0) ^ Long.MIN_VALUE;
            int[] ws = docWords.get(d);
            int off = offsets.get(d);
            for (int i = 0; i < ws.length; i++) {
                int at = fill[ws[i]]++;
                heads[at] = head;
                tails[at] = packed[8];
                ids[at] = off + i;
            }
        }
        byWordHeads = heads;
        byWordTails = tails;
        byWordIds = ids;
        for (int w = 0; w < nw; w++) sortByUrl(start[w], start[w + 1] - 1);
        byWordStart = start;
        shared.hasLastWord = false;
    }

    /** Sorts by-word entries lo..hi (inclusive) by URL hash: a quicksort over the three parallel arrays. */
    private void sortByUrl(int lo, int hi) {
        while (hi - lo > 16) {
            int m = (lo + hi) >>> 1;
            long pivotHead = byWordHeads[m];
            int pivotTail = byWordTails[m] & 0xff;
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (compareAt(i, pivotHead, pivotTail) < 0) i++;
                while (compareAt(j, pivotHead, pivotTail) > 0) j--;
                if (i <= j) swap(i++, j--);
            }
            // the smaller side recursively, the larger in this loop
            if (j - lo < hi - i) {
                sortByUrl(lo, j);
                lo = i;
            } else {
                sortByUrl(i, hi);
                hi = j;
            }
        }
        for (int i = lo + 1; i <= hi; i++) {
            for (int j = i; j > lo && compareAt(j - 1, byWordHeads[j], byWordTails[j] & 0xff) > 0; j--) swap(j - 1, j);
        }
    }

    private void swap(int a, int b) {
        long h = byWordHeads[a];
        byWordHeads[a] = byWordHeads[b];
        byWordHeads[b] = h;
        byte t = byWordTails[a];
        byWordTails[a] = byWordTails[b];
        byWordTails[b] = t;
        int id = byWordIds[a];
        byWordIds[a] = byWordIds[b];
        byWordIds[b] = id;
    }

    /** The query text of oracle word ids (as a user would type it). */
    public String text(List<Integer> queryWords) {
        List<String> terms = new ArrayList<>();
        for (int w : queryWords) {
            String name = names.get(words.get(w));
            if (name == null) throw new IllegalArgumentException("no text known for word " + words.get(w));
            terms.add(name);
        }
        return String.join(" ", terms);
    }

    /** The true top {@code k} URLs of documents containing every word, best first. */
    public List<UrlHash> top(List<Integer> queryWords, int k) {
        return top(QueryParser.parse(text(queryWords)), k);
    }

    /** The true top {@code k} URLs for a parsed query, best first, as a central peer ranks them. */
    public List<UrlHash> top(Query q, int k) {
        return top(q, k, 0);
    }

    /**
     * The true top {@code k} for a parsed query under a querying peer's estimate of the collection's size
     * ({@code documents}; 0: the central index's own count): every document and document frequency is the
     * central index's, only BM25's N is the peer's (no peer knows the true N; see docs/simulations.md).
     */
    public List<UrlHash> top(Query q, int k, long documents) {
        if (dirty) seal();
        CandidateSource.CandidatesFound found = source.lookup(q);
        CorpusStats stats = documents <= 0 ? found.stats()
                : new CorpusStats(documents, found.stats().documentFrequency(), found.stats().averageLength());
        Scorer scorer = new Scorer(q, RankingProfile.defaults(), stats, LinkRank.NONE, url -> 0, "", "text");
        for (Candidate c : found.candidates()) scorer.add(c);
        List<UrlHash> out = new ArrayList<>();
        for (Scorer.Scored s : scorer.ranked()) {
            if (out.size() == k) break;
            out.add(s.url());
        }
        return out;
    }
}
