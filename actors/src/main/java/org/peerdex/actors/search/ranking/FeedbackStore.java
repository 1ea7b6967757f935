package org.peerdex.actors.search.ranking;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.peerdex.protocol.hash.UrlHash;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;

/**
 * The user's feedback per URL hash in {@link Keyspace#FEEDBACK}: promotes, demotes and a bookmark flag. The
 * FEEDBACK factor is (promotes − demotes, clamped to ±3) + 1 if bookmarked. Thread-safe (the store is).
 */
public final class FeedbackStore {
    /** What is stored for one URL. */
    public record Entry(int promotes, int demotes, boolean bookmarked) {
        public double value() {
            return Math.max(-3, Math.min(3, promotes - demotes)) + (bookmarked ? 1 : 0);
        }
    }

    private final KeyValueStore store;

    public FeedbackStore(KeyValueStore store) {
        this.store = store;
    }

    private static byte[] key(UrlHash url) {
        return Keys.of(Keyspace.FEEDBACK, url.value().getBytes(StandardCharsets.US_ASCII));
    }

    public Optional<Entry> get(UrlHash url) {
        return store.get(key(url)).map(b -> {
            String[] p = new String(b, StandardCharsets.US_ASCII).split(",");
            return new Entry(Integer.parseInt(p[0]), Integer.parseInt(p[1]), p[2].equals("1"));
        });
    }

    public double value(UrlHash url) {
        return get(url).map(Entry::value).orElse(0.0);
    }

    public synchronized Entry record(UrlHash url, Feedback action) {
        Entry e = get(url).orElse(new Entry(0, 0, false));
        Entry next = switch (action) {
            case PROMOTE -> new Entry(Math.min(e.promotes() + 1, 1000), e.demotes(), e.bookmarked());
            case DEMOTE -> new Entry(e.promotes(), Math.min(e.demotes() + 1, 1000), e.bookmarked());
            case BOOKMARK -> new Entry(e.promotes(), e.demotes(), true);
            case CLEAR -> new Entry(0, 0, false);
        };
        if (action == Feedback.CLEAR) {
            KeyValueStore.Batch b = store.newBatch();
            b.delete(key(url));
            store.write(b, true);
        } else {
            KeyValueStore.Batch b = store.newBatch();
            b.put(key(url), (next.promotes() + "," + next.demotes() + "," + (next.bookmarked() ? 1 : 0))
                    .getBytes(StandardCharsets.US_ASCII));
            store.write(b, true);
        }
        return next;
    }

    /**
     * Every URL's feedback value, read in one scan (a query's scorer then looks values up in memory), or empty if
     * there are more than {@code limit}.
     */
    public Optional<Map<UrlHash, Double>> values(int limit) {
        Map<UrlHash, Double> out = new HashMap<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.FEEDBACK})) {
            while (c.next()) {
                if (out.size() >= limit) return Optional.empty();
                UrlHash u = new UrlHash(new String(c.key(), 1, c.key().length - 1, StandardCharsets.US_ASCII));
                String[] p = new String(c.value(), StandardCharsets.US_ASCII).split(",");
                out.put(u, new Entry(Integer.parseInt(p[0]), Integer.parseInt(p[1]), p[2].equals("1")).value());
            }
        }
        return Optional.of(out);
    }

    /** Every URL with feedback (bookmarks list, admin views). */
    public Map<UrlHash, Entry> all() {
        Map<UrlHash, Entry> out = new LinkedHashMap<>();
        try (KeyValueStore.Cursor c = store.scanPrefix(new byte[] {Keyspace.FEEDBACK})) {
            while (c.next()) {
                UrlHash u = new UrlHash(new String(c.key(), 1, c.key().length - 1, StandardCharsets.US_ASCII));
                String[] p = new String(c.value(), StandardCharsets.US_ASCII).split(",");
                out.put(u, new Entry(Integer.parseInt(p[0]), Integer.parseInt(p[1]), p[2].equals("1")));
            }
        }
        return out;
    }
}
