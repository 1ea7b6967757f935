package org.peerdex.protocol.wire;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A confirmation's questions to one holder as one table, and the holder's answer as bits. A confirmation asks, per
 * (word, partition), whether the holder has a posting of the key for each of some URLs; a candidate's words share
 * its partition, so one holder is often asked about the same URL under several keys, and as presence lookups each key
 * also carried its field names and every URL as a 12-character string. The table writes each word and each URL once:
 * <pre>
 * table = varint(words) word[9]*words varint(urls) url[9]*urls varint(keys) (varint(word index) varint(partition) mask)*keys
 * held  = mask*keys
 * mask  = byte[(urls + 7) / 8]: bit i (of byte i / 8, lowest first) stands for the table's i-th URL
 * </pre>
 * A key's mask in the table marks the URLs asked of it (at least one); in the answer, the URLs of those it has a
 * posting for, in the table's key order. A held bit outside the key's asked URLs, a key twice, an index past the
 * words or the URLs, a URL asked of no key, a count beyond the bytes or any byte past the end makes the whole table
 * (or the whole answer) malformed: a malformed answer says nothing.
 */
public final class PresenceTable {
    private static final int HASH_BYTES = PackedBytes.HASH_BYTES;

    /** One key's question: which of {@code urls} (URL hashes) have a posting of (word, partition). */
    public record Ask(String word, int partition, List<String> urls) {
        public Ask {
            if (word == null || word.length() != 12) throw new IllegalArgumentException("a presence key needs a word hash");
            if (partition < 0) throw new IllegalArgumentException("negative partition");
            urls = List.copyOf(urls);
            if (urls.isEmpty()) throw new IllegalArgumentException("a presence key asks about at least one URL");
            if (new HashSet<>(urls).size() != urls.size()) throw new IllegalArgumentException("a URL twice under one key");
        }
    }

    private final List<String> urls;
    private final Map<String, Integer> urlIndex;
    private final List<Ask> asks;

    private PresenceTable(List<String> urls, List<Ask> asks) {
        this.urls = List.copyOf(urls);
        this.asks = List.copyOf(asks);
        this.urlIndex = new LinkedHashMap<>();
        for (int i = 0; i < this.urls.size(); i++) urlIndex.put(this.urls.get(i), i);
    }

    /** The table of these questions, URLs in the order first asked; each ask's URLs then come in that order. */
    public static PresenceTable of(List<Ask> asks) {
        if (asks.isEmpty()) throw new IllegalArgumentException("a presence table asks about at least one key");
        Set<String> keys = new HashSet<>();
        LinkedHashMap<String, Integer> index = new LinkedHashMap<>();
        for (Ask a : asks) {
            if (!keys.add(key(a.word(), a.partition()))) throw new IllegalArgumentException("a key twice in a presence table");
            for (String u : a.urls()) index.putIfAbsent(u, index.size());
        }
        List<String> urls = List.copyOf(index.keySet());
        List<Ask> ordered = new ArrayList<>(asks.size());
        for (Ask a : asks) {
            ordered.add(new Ask(a.word(), a.partition(),
                    a.urls().stream().sorted((x, y) -> Integer.compare(index.get(x), index.get(y))).toList()));
        }
        return new PresenceTable(urls, ordered);
    }

    /** The questions, in the table's key order; each one's URLs in the table's URL order. */
    public List<Ask> asks() {
        return asks;
    }

    /** Every URL asked about, once, in the table's order. */
    public List<String> urls() {
        return urls;
    }

    public byte[] write() {
        List<String> words = new ArrayList<>();
        Map<String, Integer> wordIndex = new LinkedHashMap<>();
        for (Ask a : asks) {
            if (wordIndex.putIfAbsent(a.word(), words.size()) == null) words.add(a.word());
        }
        int maskBytes = maskBytes();
        ByteArrayOutputStream out = new ByteArrayOutputStream(8 + (words.size() + urls.size()) * HASH_BYTES
                + asks.size() * (3 + maskBytes));
        PackedBytes.varint(out, words.size());
        for (String w : words) PackedBytes.writeHash(out, w);
        PackedBytes.varint(out, urls.size());
        for (String u : urls) PackedBytes.writeHash(out, u);
        PackedBytes.varint(out, asks.size());
        for (Ask a : asks) {
            PackedBytes.varint(out, wordIndex.get(a.word()));
            PackedBytes.varint(out, a.partition());
            out.writeBytes(mask(a.urls()));
        }
        return out.toByteArray();
    }

    /**
     * The table in these bytes; throws IllegalArgumentException on a malformed one, or one of more than
     * {@code maxKeys} keys or {@code maxUrls} URLs.
     */
    public static PresenceTable read(byte[] table, int maxKeys, int maxUrls) {
        PackedBytes.Reader r = new PackedBytes.Reader(table, "presence table");
        int wordCount = r.count(HASH_BYTES);
        String[] words = new String[wordCount];
        for (int i = 0; i < wordCount; i++) words[i] = r.hash();
        int urlCount = r.count(HASH_BYTES);
        if (urlCount > maxUrls) throw new IllegalArgumentException("more than " + maxUrls + " URLs in a presence table");
        List<String> urls = new ArrayList<>(urlCount);
        for (int i = 0; i < urlCount; i++) urls.add(r.hash());
        if (new HashSet<>(urls).size() != urls.size()) throw new IllegalArgumentException("a URL twice in a presence table");
        int maskBytes = (urlCount + 7) / 8;
        int keyCount = r.count(2 + maskBytes);
        if (keyCount == 0) throw new IllegalArgumentException("a presence table without keys");
        if (keyCount > maxKeys) throw new IllegalArgumentException("more than " + maxKeys + " keys in a presence table");
        List<Ask> asks = new ArrayList<>(keyCount);
        Set<String> seen = new HashSet<>();
        Map<String, Integer> index = new LinkedHashMap<>();
        for (String u : urls) index.put(u, index.size());
        boolean[] asked = new boolean[urlCount];
        for (int k = 0; k < keyCount; k++) {
            int w = r.integer();
            if (w >= wordCount) throw new IllegalArgumentException("a word index past the table's words");
            int partition = r.integer();
            if (!seen.add(key(words[w], partition))) throw new IllegalArgumentException("a key twice in a presence table");
            List<String> of = members(r.bytes(maskBytes), urls, "an asked");
            if (of.isEmpty()) throw new IllegalArgumentException("a presence key asks about no URL");
            for (String u : of) asked[index.get(u)] = true;
            asks.add(new Ask(words[w], partition, of));
        }
        for (boolean a : asked) if (!a) throw new IllegalArgumentException("a URL in a presence table no key asks about");
        if (r.pos != table.length) throw new IllegalArgumentException("trailing bytes in a presence table");
        return new PresenceTable(urls, asks);
    }

    /** The answer: per key, in the table's order, a mask of the URLs asked of it that are in its set of {@code here}. */
    public byte[] held(List<Set<String>> here) {
        if (here.size() != asks.size()) throw new IllegalArgumentException("an answer per key");
        int maskBytes = maskBytes();
        byte[] out = new byte[asks.size() * maskBytes];
        for (int k = 0; k < asks.size(); k++) {
            Set<String> has = here.get(k);
            for (String u : asks.get(k).urls()) {
                if (!has.contains(u)) continue;
                int i = urlIndex.get(u);
                out[k * maskBytes + (i >> 3)] |= (byte) (1 << (i & 7));
            }
        }
        return out;
    }

    /**
     * The URLs each key's holder says it has, per key in the table's order; throws IllegalArgumentException when the
     * answer does not fit the table (its length, or a bit for a URL not asked of that key).
     */
    public List<Set<String>> held(byte[] answer) {
        int maskBytes = maskBytes();
        if (answer == null || answer.length != asks.size() * maskBytes) {
            throw new IllegalArgumentException("a presence answer of the wrong length");
        }
        List<Set<String>> out = new ArrayList<>(asks.size());
        for (int k = 0; k < asks.size(); k++) {
            byte[] mask = Arrays.copyOfRange(answer, k * maskBytes, (k + 1) * maskBytes);
            List<String> has = members(mask, urls, "a held");
            Set<String> askedOfKey = new HashSet<>(asks.get(k).urls());
            if (!askedOfKey.containsAll(has)) throw new IllegalArgumentException("a held bit for a URL not asked");
            out.add(Set.copyOf(has));
        }
        return out;
    }

    private int maskBytes() {
        return (urls.size() + 7) / 8;
    }

    private byte[] mask(List<String> of) {
        byte[] m = new byte[maskBytes()];
        for (String u : of) {
            int i = urlIndex.get(u);
            m[i >> 3] |= (byte) (1 << (i & 7));
        }
        return m;
    }

    /** The URLs a mask marks, in order; a bit past the last URL is malformed. */
    private static List<String> members(byte[] mask, List<String> urls, String what) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < mask.length * 8; i++) {
            if ((mask[i >> 3] >> (i & 7) & 1) == 0) continue;
            if (i >= urls.size()) throw new IllegalArgumentException(what + " bit past the table's URLs");
            out.add(urls.get(i));
        }
        return out;
    }

    private static String key(String word, int partition) {
        return word + "/" + partition;
    }
}
