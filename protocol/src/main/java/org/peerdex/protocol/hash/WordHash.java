package org.peerdex.protocol.hash;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import org.peerdex.protocol.ring.RingPosition;

/** 12 enhanced-Base64 characters of the MD5 of the lower-cased word (YaCy's word hash). */
public record WordHash(String value) implements Comparable<WordHash> {
    public static final int LENGTH = 12;

    public WordHash {
        if (!Base64Order.isHash(value, LENGTH)) throw new IllegalArgumentException("not a word hash: " + value);
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static WordHash parse(String value) {
        return new WordHash(value);
    }

    /** The hash of a word; the word is lower-cased with the root locale, as YaCy does (Locale.ENGLISH). */
    public static WordHash of(String word) {
        return new WordHash(Base64Order.md5Prefix(word.toLowerCase(Locale.ROOT), LENGTH));
    }

    /** The word's position on the ring, before vertical partitioning. */
    public long position() {
        return RingPosition.of(value);
    }

    @JsonValue
    @Override
    public String value() {
        return value;
    }

    @Override
    public int compareTo(WordHash o) {
        return Base64Order.compare(value, o.value); // ring order, as stored
    }

    @Override
    public String toString() {
        return value;
    }
}
