package org.peerdex.protocol.wire;

/**
 * A value that may stand for "nothing to write": a field annotated
 * {@code @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = LeftOut.Filter.class)} is left out of the
 * message when its value is {@link #omitted()}, and the reader takes the field's default. What a presence answer's
 * empty posting pack uses, in the peer protocol ({@link V1.Postings#NONE}) and between cluster peers.
 */
public interface LeftOut {
    /** Whether this value is left out of the message it is in. */
    boolean omitted();

    /** Jackson's value filter: "equal" (left out) for an omitted value, every other value is written. */
    final class Filter {
        @Override
        public boolean equals(Object o) {
            return o instanceof LeftOut l && l.omitted();
        }

        @Override
        public int hashCode() {
            return 0;
        }
    }
}
