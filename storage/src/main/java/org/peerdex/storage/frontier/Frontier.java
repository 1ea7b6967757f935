package org.peerdex.storage.frontier;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;
import org.peerdex.storage.meta.Cbor;

/**
 * The crawl frontier of one crawl job, in LevelDB, so a crawl survives kill -9: a FIFO queue of URLs with their
 * depth, a seen-set by URL hash (queued or done), and admission counters (total and per host). A URL is marked
 * done only after its outcome is durable (indexed, or skipped for good), so a restart re-dispatches exactly the
 * URLs still queued and never re-fetches a done one. Thread-safe.
 *
 * <p>Keys ({@code 'f' ‖ crawl id (10 ASCII chars) ‖ kind ‖ ...}):
 * {@code q ‖ seq (8 bytes BE)} → entry (CBOR); {@code s ‖ URL hash (12 ASCII)} → state ('Q' or 'D') ‖ seq;
 * {@code h ‖ host hash (6 ASCII)} → URLs admitted for that host (8 bytes); {@code n} → next seq ‖ admitted.
 */
public final class Frontier {
    public static final int ID_LENGTH = 10;
    private static final byte QUEUED = 'Q';
    private static final byte DONE = 'D';

    /**
     * One queued URL. @param lastModified a date the URL came with (a sitemap's {@code <lastmod>}, epoch ms), which
     * dates the document when its response has none; 0 none (entries written before it existed read as 0)
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Entry(long seq, String url, int depth, long lastModified) {
        public Entry(long seq, String url, int depth) {
            this(seq, url, depth, 0);
        }
    }

    /** A URL found by the crawler, offered for admission; {@code lastModified} as in {@link Entry}. */
    public record Candidate(String url, int depth, long lastModified) {
        public Candidate(String url, int depth) {
            this(url, depth, 0);
        }
    }

    /** What became of an offered URL. */
    public enum Offer { ADDED, SEEN, CRAWL_FULL, HOST_FULL }

    private final KeyValueStore store;
    private final byte[] prefix;
    private long nextSeq;
    private long admitted;
    private long queued;
    private final Map<String, Long> hostCounts = new HashMap<>();

    public Frontier(KeyValueStore store, String crawlId) {
        if (crawlId.length() != ID_LENGTH) throw new IllegalArgumentException("crawl id must have 10 characters");
        this.store = store;
        this.prefix = Keys.of(Keyspace.FRONTIER, crawlId.getBytes(StandardCharsets.US_ASCII));
        store.get(key('n')).ifPresent(v -> {
            ByteBuffer b = ByteBuffer.wrap(v);
            nextSeq = b.getLong();
            admitted = b.getLong();
        });
        try (KeyValueStore.Cursor c = store.scanPrefix(key('q'))) {
            while (c.next()) queued++;
        }
    }

    private byte[] key(char kind, byte[]... rest) {
        byte[][] parts = new byte[rest.length + 2][];
        parts[0] = prefix;
        parts[1] = new byte[] {(byte) kind};
        System.arraycopy(rest, 0, parts, 2, rest.length);
        return Keys.concat(parts);
    }

    private static byte[] seqBytes(long seq) {
        return ByteBuffer.allocate(8).putLong(seq).array();
    }

    private byte[] seenKey(UrlHash h) {
        return key('s', h.value().getBytes(StandardCharsets.US_ASCII));
    }

    private byte[] hostKey(String hostHash) {
        return key('h', hostHash.getBytes(StandardCharsets.US_ASCII));
    }

    private long hostCount(String hostHash) {
        return hostCounts.computeIfAbsent(hostHash,
                h -> store.get(hostKey(h)).map(v -> ByteBuffer.wrap(v).getLong()).orElse(0L));
    }

    /**
     * Admits new URLs (normalized) in one atomic write: each is queued unless already seen, the crawl has admitted
     * {@code maxPages} URLs, or its host {@code maxPerHost} (limits {@code <= 0} mean none).
     */
    public synchronized List<Offer> offer(List<Candidate> candidates, long maxPages, long maxPerHost) {
        List<Offer> out = new ArrayList<>(candidates.size());
        KeyValueStore.Batch batch = store.newBatch();
        // the counters move only once the batch is written: a failed write (a full disk) admits nothing, and the
        // same candidates offered again later get the same places in the crawl's budget
        long seq = nextSeq;
        long admittedAfter = admitted;
        Map<String, Long> touchedHosts = new HashMap<>();
        Map<String, Boolean> inBatch = new HashMap<>();
        for (Candidate c : candidates) {
            UrlHash h = UrlHash.ofNormalized(c.url());
            if (inBatch.containsKey(h.value()) || store.get(seenKey(h)).isPresent()) {
                out.add(Offer.SEEN);
                continue;
            }
            if (maxPages > 0 && admittedAfter >= maxPages) {
                out.add(Offer.CRAWL_FULL);
                continue;
            }
            String host = h.hostHash();
            long hc = touchedHosts.containsKey(host) ? touchedHosts.get(host) : hostCount(host);
            if (maxPerHost > 0 && hc >= maxPerHost) {
                out.add(Offer.HOST_FULL);
                continue;
            }
            touchedHosts.put(host, hc + 1);
            inBatch.put(h.value(), true);
            batch.put(key('q', seqBytes(seq)), Cbor.write(new Entry(seq, c.url(), c.depth(), c.lastModified())));
            batch.put(seenKey(h), ByteBuffer.allocate(9).put(QUEUED).putLong(seq).array());
            seq++;
            admittedAfter++;
            out.add(Offer.ADDED);
        }
        if (!touchedHosts.isEmpty()) {
            touchedHosts.forEach((host, n) -> batch.put(hostKey(host), seqBytes(n)));
            batch.put(key('n'), ByteBuffer.allocate(16).putLong(seq).putLong(admittedAfter).array());
            store.write(batch, false);
            queued += admittedAfter - admitted;
            nextSeq = seq;
            admitted = admittedAfter;
            hostCounts.putAll(touchedHosts);
        }
        return out;
    }

    /**
     * Claims a URL reached by a redirect: returns true and marks it done if it was never seen in this crawl, false
     * if it is queued or done already (then it is crawled, or was, under its own entry).
     */
    public synchronized boolean claim(String url) {
        UrlHash h = UrlHash.ofNormalized(url);
        if (store.get(seenKey(h)).isPresent()) return false;
        store.put(seenKey(h), ByteBuffer.allocate(9).put(DONE).putLong(-1).array());
        return true;
    }

    /** Up to {@code limit} queued entries with a sequence number above {@code afterSeq}, in FIFO order. */
    public List<Entry> next(long afterSeq, int limit) {
        List<Entry> out = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scan(key('q', seqBytes(afterSeq + 1)), Keys.prefixEnd(key('q')))) {
            while (out.size() < limit && c.next()) out.add(Cbor.read(c.value(), Entry.class));
        }
        return out;
    }

    /** Marks entries done in one atomic write: they leave the queue and stay in the seen-set. */
    public synchronized void markDone(Collection<Entry> entries) {
        if (entries.isEmpty()) return;
        KeyValueStore.Batch batch = store.newBatch();
        long leaving = 0;
        for (Entry e : entries) {
            UrlHash h = UrlHash.ofNormalized(e.url());
            byte[] qk = key('q', seqBytes(e.seq()));
            if (store.get(qk).isPresent()) leaving++;
            batch.delete(qk);
            batch.put(seenKey(h), ByteBuffer.allocate(9).put(DONE).putLong(e.seq()).array());
        }
        store.write(batch, false);
        // counted once written: a failed write leaves the entries queued, and the retry counts them then
        queued -= leaving;
    }

    public boolean isDone(String url) {
        Optional<byte[]> v = store.get(seenKey(UrlHash.ofNormalized(url)));
        return v.isPresent() && v.get()[0] == DONE;
    }

    public boolean isSeen(String url) {
        return store.get(seenKey(UrlHash.ofNormalized(url))).isPresent();
    }

    /** URLs queued and not done. */
    public synchronized long queued() {
        return queued;
    }

    /** URLs ever admitted to this crawl. */
    public synchronized long admitted() {
        return admitted;
    }

    /** The hashes of every done URL (for tests and the index browser). */
    public List<UrlHash> doneUrls() {
        List<UrlHash> out = new ArrayList<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(key('s'))) {
            while (c.next()) {
                if (c.value()[0] == DONE) {
                    out.add(new UrlHash(new String(c.key(), c.key().length - UrlHash.LENGTH, UrlHash.LENGTH,
                            StandardCharsets.US_ASCII)));
                }
            }
        }
        return out;
    }

    /** Removes every entry of this crawl. */
    public synchronized void deleteAll() {
        KeyValueStore.Batch batch = store.newBatch();
        try (KeyValueStore.Cursor c = store.scanPrefix(prefix)) {
            while (c.next()) batch.delete(c.key());
        }
        store.write(batch, false);
        queued = 0;
    }
}
