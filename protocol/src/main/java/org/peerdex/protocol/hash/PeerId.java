package org.peerdex.protocol.hash;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.nio.charset.StandardCharsets;
import java.util.random.RandomGenerator;
import org.peerdex.protocol.ring.RingPosition;

/** A peer's identity: 12 random enhanced-Base64 characters; its ring position comes from the first 10. */
public record PeerId(String value) implements Comparable<PeerId> {
    public static final int LENGTH = 12;

    public PeerId {
        if (!Base64Order.isHash(value, LENGTH)) throw new IllegalArgumentException("not a peer id: " + value);
    }

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static PeerId parse(String value) {
        return new PeerId(value);
    }

    public static PeerId random(RandomGenerator random) {
        char[] c = new char[LENGTH];
        for (int i = 0; i < LENGTH; i++) c[i] = Base64Order.character(random.nextInt(64));
        return new PeerId(new String(c));
    }

    /** A peer id whose ring position is {@code position} (rounded down to the 60 bits a hash can express). */
    public static PeerId atPosition(long position, RandomGenerator random) {
        return new PeerId(RingPosition.toHashPrefix(position) + Base64Order.character(random.nextInt(64))
                + Base64Order.character(random.nextInt(64)));
    }

    public long position() {
        return RingPosition.of(value);
    }

    /**
     * The ring position of this peer's virtual position {@code i}: position 0 is {@link #position()}, position
     * {@code i > 0} the first 60 bits of SHA-256(id "#" i). Every position follows from the id (which follows from
     * the peer's key in the open network), so no peer chooses where any of them lies.
     */
    public long position(int i) {
        if (i == 0) return position();
        if (i < 0) throw new IllegalArgumentException("negative position index " + i);
        return RingPosition.ofDigest(Base64Order.sha256((value + "#" + i).getBytes(StandardCharsets.US_ASCII)));
    }

    @JsonValue
    @Override
    public String value() {
        return value;
    }

    @Override
    public int compareTo(PeerId o) {
        return value.compareTo(o.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
