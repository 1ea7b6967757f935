package org.peerdex.storage;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.peerdex.storage.kv.KeyValueStore;
import org.peerdex.storage.kv.Keys;
import org.peerdex.storage.kv.Keyspace;

/**
 * The layout a store's keys and values were written in, stamped in the store itself (setting {@code layout}).
 * A store is read only in the layout it was written in: a store stamped with a layout this build does not read is
 * refused with a message that says so, never misread. A store without a stamp was written before stamps existed,
 * in layout 1, and is stamped on open.
 *
 * <p>Layout 1: one LevelDB key per posting ({@code 'r'} word ‖ URL, {@code 'x'} URL ‖ word), CBOR metadata,
 * the keyspaces of {@link Keyspace}.
 *
 * <p>Layout 2: postings in blocks ({@code 'w'} word ‖ highest URL → rwi.PostingBlock) with a fresh tier of single
 * postings and tombstones ({@code 'r'}) folded into them in the background; the rest as in layout 1. A layout-1
 * store is migrated when it opens: its postings are exactly a layout-2 fresh tier with no blocks yet, so the stamp
 * moves to 2 at once (a layout-1 build then refuses it instead of missing every folded posting) and the background
 * folder moves them into blocks, logging its progress; the index answers in full all along.
 *
 * <p>Layout 3: as layout 2, and a document written whole keeps its words in one entry ({@code 'x'} URL → packed word
 * hashes) instead of one key per posting; postings written alone keep theirs. A layout-2 store reads as a layout-3
 * store whose documents all have per-posting keys, so it is stamped 3 on open (a layout-2 build would miss the words
 * of documents written since, and refuses it).
 *
 * <p>Layout 4: as layout 3, and blocks the fold writes (block version 3) carry the highest score of their postings
 * for block-max pruning. Version-2 blocks still read, as blocks without a score, so a layout-2 or layout-3 store is
 * stamped 4 on open and its blocks gain their scores as folds rewrite them (a layout-3 build would fail on the first
 * version-3 block, and refuses the store instead).
 */
public final class StoreLayout {
    /** The layout this build writes and reads. */
    public static final int CURRENT = 4;
    /** Layouts this build migrates on open: 1 (folded into blocks in the background); 2 and 3 need nothing. */
    private static final int MIGRATES_FROM = 1;
    private static final byte[] KEY = Keys.of(Keyspace.SETTINGS, "layout".getBytes(StandardCharsets.US_ASCII));

    private StoreLayout() {}

    /** Thrown when a store was written in a layout this build cannot read. */
    public static final class UnreadableLayoutException extends IllegalStateException {
        private final int found;

        UnreadableLayoutException(int found, String message) {
            super(message);
            this.found = found;
        }

        public int found() {
            return found;
        }
    }

    /** The layout stamped in {@code store}, or empty if it has no stamp. */
    public static Optional<Integer> of(KeyValueStore store) {
        return store.get(KEY).map(StoreLayout::parse);
    }

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(StoreLayout.class);

    /**
     * Checks the stamp of {@code store}: stamps it with {@link #CURRENT} when it has none (a new store, or one written
     * before stamps, which is layout 1 and reads as a layout-4 store with nothing folded yet), migrates layouts 1 to
     * 3, and refuses any other layout.
     */
    public static void check(KeyValueStore store) {
        Optional<Integer> found = of(store);
        if (found.isEmpty()) {
            stamp(store, CURRENT);
            return;
        }
        int v = found.get();
        if (v == CURRENT) return;
        if (v == MIGRATES_FROM) {
            log.info("the index is in store layout {}: migrating it to layout {} (postings are folded into blocks in"
                    + " the background; searches see every posting meanwhile)", v, CURRENT);
            stamp(store, CURRENT);
            return;
        }
        if (v == 2 || v == 3) {
            log.info("the index is in store layout {}: stamped layout {} (documents written from now on keep their"
                    + " words in one entry each; blocks gain their highest score as folds rewrite them)", v, CURRENT);
            stamp(store, CURRENT);
            return;
        }
        if (v > CURRENT) {
            throw new UnreadableLayoutException(v, "the index was written by a newer Peerdex (store layout " + v
                    + "); this version reads layout " + CURRENT + " only: run the newer version, or start this one"
                    + " with another data directory");
        }
        throw new UnreadableLayoutException(v, "the index is in store layout " + v + ", which this version no longer"
                + " reads (it reads layout " + CURRENT + "): start with another data directory and crawl or import"
                + " again, or migrate the index with the version that wrote it");
    }

    /** Writes the stamp (durably). */
    static void stamp(KeyValueStore store, int layout) {
        KeyValueStore.Batch b = store.newBatch();
        b.put(KEY, Integer.toString(layout).getBytes(StandardCharsets.US_ASCII));
        store.write(b, true);
    }

    private static int parse(byte[] value) {
        String s = new String(value, StandardCharsets.US_ASCII).trim();
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new UnreadableLayoutException(-1, "the index's layout stamp is unreadable ('" + s + "'): this is"
                    + " not an index this version wrote");
        }
    }
}
