package org.peerdex.protocol.wire;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The answers to a request's join lookups as one table: per partition, the URLs joined are written once, and each
 * word's postings of them follow as bare values in the URLs' order. A join answer's keyed packs, one per (word,
 * partition), list the same URLs in the same order, and each also carried its key, its counts and its field names:
 * about 90 bytes of frame a key and 9 bytes a posting for its URL again. The table is a lossless rearrangement of
 * those packs, a byte layout only (it does not read a posting's value), so both the cluster's messages and the peer
 * protocol's carry the same layout:
 * <pre>
 * table = varint(words) word[9]*words varint(groups) group*
 * group = varint(partition) varint(k) (varint(word index) varint(matched * 2 + truncated))*k varint(rows)
 *         url[9]*rows ((varint(len) value[len])*rows)*k
 * </pre>
 * A group's i-th word's pack is {@code (url[j] varint(len) value[len])} for j over the rows, in the keyed layout
 * ({@link PackedPostings}: a holder byte 0x02 is the holder of the row before, in that word's own pack), and a group
 * of no rows answers its keys with empty packs. Entries whose packs do not share one URL order with the rest of
 * their partition's form a group of their own. Any byte past the table, an index past the words, a key twice, or a
 * count beyond the bytes makes the whole table malformed.
 */
public final class JoinTable {
    private static final int HASH_BYTES = PackedBytes.HASH_BYTES;

    private JoinTable() {}

    /**
     * One key's answer: {@code count} postings in {@code pack} (keyed layout; empty when none), the key's whole match
     * count and whether more URLs matched than were sent.
     */
    public record Entry(String word, int partition, int count, byte[] pack, int matched, boolean truncated) {
        public Entry {
            if (word == null || word.length() != 12) throw new IllegalArgumentException("a table entry needs a word hash");
            if (partition < 0 || count < 0 || matched < 0 || pack == null) throw new IllegalArgumentException("bad table entry");
        }
    }

    /** Writes the entries, every one of them, as a table; throws IllegalArgumentException on a malformed pack. */
    public static byte[] write(List<Entry> entries) {
        List<String> words = new ArrayList<>();
        Map<String, Integer> wordIndex = new HashMap<>();
        // groups by partition and URL order, in the order first met
        Map<GroupKey, List<Split>> groups = new LinkedHashMap<>();
        for (Entry e : entries) {
            if (!wordIndex.containsKey(e.word())) {
                wordIndex.put(e.word(), words.size());
                words.add(e.word());
            }
            Split s = split(e);
            groups.computeIfAbsent(new GroupKey(e.partition(), s.urls), k -> new ArrayList<>()).add(s);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + entries.size() * 16);
        PackedBytes.varint(out, words.size());
        for (String w : words) PackedBytes.writeHash(out, w);
        PackedBytes.varint(out, groups.size());
        groups.forEach((key, members) -> {
            PackedBytes.varint(out, key.partition);
            PackedBytes.varint(out, members.size());
            for (Split s : members) {
                PackedBytes.varint(out, wordIndex.get(s.entry.word()));
                PackedBytes.varint(out, (long) s.entry.matched() * 2 + (s.entry.truncated() ? 1 : 0));
            }
            int rows = key.urls.length / HASH_BYTES;
            PackedBytes.varint(out, rows);
            out.writeBytes(key.urls);
            for (Split s : members) out.writeBytes(s.values);
        });
        return out.toByteArray();
    }

    /**
     * The entries a table holds, each with its pack rebuilt in the keyed layout (not decoded: its reader checks its
     * values); throws IllegalArgumentException on a malformed table or more than {@code maxEntries} entries.
     */
    public static List<Entry> read(byte[] table, int maxEntries) {
        PackedBytes.Reader r = new PackedBytes.Reader(table, "join table");
        int wordCount = r.count(HASH_BYTES);
        String[] words = new String[wordCount];
        for (int i = 0; i < wordCount; i++) words[i] = r.hash();
        int groups = r.count(3);
        List<Entry> out = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (int g = 0; g < groups; g++) {
            int partition = r.integer();
            int k = r.count(2);
            if (out.size() + k > maxEntries) throw new IllegalArgumentException("more than " + maxEntries + " keys in a table");
            int[] index = new int[k];
            long[] counts = new long[k];
            for (int i = 0; i < k; i++) {
                index[i] = r.integer();
                if (index[i] >= wordCount) throw new IllegalArgumentException("a word index past the table's words");
                counts[i] = r.varint();
                if (counts[i] / 2 > Integer.MAX_VALUE) throw new IllegalArgumentException("match count out of range");
                if (!seen.add(((long) index[i] << 32) | partition)) throw new IllegalArgumentException("a key twice in a table");
            }
            int rows = r.count(HASH_BYTES);
            byte[] urls = r.bytes(rows * HASH_BYTES);
            for (int i = 0; i < k; i++) {
                // grows with what the values really hold (a lying row count is caught by the bytes left)
                ByteArrayOutputStream pack = new ByteArrayOutputStream(Math.min(rows, 1024) * 40);
                for (int j = 0; j < rows; j++) {
                    pack.write(urls, j * HASH_BYTES, HASH_BYTES);
                    int len = r.integer();
                    if (len <= 0) throw new IllegalArgumentException("bad posting length");
                    PackedBytes.varint(pack, len);
                    pack.writeBytes(r.bytes(len));
                }
                out.add(new Entry(words[index[i]], partition, rows, pack.toByteArray(), (int) (counts[i] / 2),
                        (counts[i] & 1) != 0));
            }
        }
        if (r.pos != table.length) throw new IllegalArgumentException("trailing bytes in a join table");
        return out;
    }

    /** A pack taken apart: its URLs in order, and its values each behind its length. */
    private record Split(Entry entry, byte[] urls, byte[] values) {}

    private record GroupKey(int partition, byte[] urls) {
        @Override
        public boolean equals(Object o) {
            return o instanceof GroupKey k && k.partition == partition && Arrays.equals(k.urls, urls);
        }

        @Override
        public int hashCode() {
            return 31 * partition + Arrays.hashCode(urls);
        }
    }

    private static Split split(Entry e) {
        PackedBytes.Reader r = new PackedBytes.Reader(e.pack(), "posting pack");
        ByteArrayOutputStream urls = new ByteArrayOutputStream(e.count() * HASH_BYTES);
        ByteArrayOutputStream values = new ByteArrayOutputStream(e.pack().length);
        for (int i = 0; i < e.count(); i++) {
            urls.writeBytes(r.bytes(HASH_BYTES));
            int len = r.integer();
            if (len <= 0) throw new IllegalArgumentException("bad posting length");
            PackedBytes.varint(values, len);
            values.writeBytes(r.bytes(len));
        }
        if (r.pos != e.pack().length) throw new IllegalArgumentException("trailing bytes in posting pack");
        return new Split(e, urls.toByteArray(), values.toByteArray());
    }
}
