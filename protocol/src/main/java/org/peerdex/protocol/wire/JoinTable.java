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
import org.peerdex.protocol.hash.Base64Order;

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
    private static final int HASH_BYTES = 9;

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
        varint(out, words.size());
        for (String w : words) writeHash(out, w);
        varint(out, groups.size());
        groups.forEach((key, members) -> {
            varint(out, key.partition);
            varint(out, members.size());
            for (Split s : members) {
                varint(out, wordIndex.get(s.entry.word()));
                varint(out, (long) s.entry.matched() * 2 + (s.entry.truncated() ? 1 : 0));
            }
            int rows = key.urls.length / HASH_BYTES;
            varint(out, rows);
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
        Reader r = new Reader(table);
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
                    varint(pack, len);
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
        Reader r = new Reader(e.pack());
        ByteArrayOutputStream urls = new ByteArrayOutputStream(e.count() * HASH_BYTES);
        ByteArrayOutputStream values = new ByteArrayOutputStream(e.pack().length);
        for (int i = 0; i < e.count(); i++) {
            urls.writeBytes(r.bytes(HASH_BYTES));
            int len = r.integer();
            if (len <= 0) throw new IllegalArgumentException("bad posting length");
            varint(values, len);
            values.writeBytes(r.bytes(len));
        }
        if (r.pos != e.pack().length) throw new IllegalArgumentException("trailing bytes in posting pack");
        return new Split(e, urls.toByteArray(), values.toByteArray());
    }

    private static void writeHash(ByteArrayOutputStream out, String hash) {
        for (int g = 0; g < 3; g++) {
            int v = 0;
            for (int i = 0; i < 4; i++) v = (v << 6) | Base64Order.value(hash.charAt(g * 4 + i));
            out.write(v >>> 16);
            out.write(v >>> 8);
            out.write(v);
        }
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        if (v < 0) throw new IllegalArgumentException("varints are unsigned: " + v);
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    /** Reads a table; every read past the end is a malformed table. */
    private static final class Reader {
        private final byte[] buf;
        private int pos;

        Reader(byte[] buf) {
            this.buf = buf;
        }

        long varint() {
            long result = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (pos >= buf.length) throw new IllegalArgumentException("truncated join table");
                int b = buf[pos++] & 0xff;
                result |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    if (result < 0) throw new IllegalArgumentException("varint out of range");
                    return result;
                }
            }
            throw new IllegalArgumentException("varint too long");
        }

        int integer() {
            long v = varint();
            if (v > Integer.MAX_VALUE) throw new IllegalArgumentException("varint out of int range");
            return (int) v;
        }

        /** A count of items of at least {@code least} bytes each: one the bytes left cannot hold is a lie. */
        int count(int least) {
            int n = integer();
            if ((long) n * least > buf.length - pos) throw new IllegalArgumentException("a count beyond the bytes sent");
            return n;
        }

        byte[] bytes(int n) {
            if (n < 0 || n > buf.length - pos) throw new IllegalArgumentException("truncated join table");
            byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
            pos += n;
            return out;
        }

        String hash() {
            byte[] b = bytes(HASH_BYTES);
            char[] c = new char[12];
            for (int g = 0; g < 3; g++) {
                int v = ((b[g * 3] & 0xff) << 16) | ((b[g * 3 + 1] & 0xff) << 8) | (b[g * 3 + 2] & 0xff);
                for (int i = 3; i >= 0; i--) {
                    c[g * 4 + i] = Base64Order.character(v & 63);
                    v >>>= 6;
                }
            }
            return new String(c);
        }
    }
}
