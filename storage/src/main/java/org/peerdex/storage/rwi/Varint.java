package org.peerdex.storage.rwi;

import java.io.ByteArrayOutputStream;

/** Unsigned LEB128 varints: small counts take one byte and nothing saturates at 255 (YaCy's counters do). */
public final class Varint {
    private Varint() {}

    public static void write(ByteArrayOutputStream out, long v) {
        if (v < 0) throw new IllegalArgumentException("varints are unsigned: " + v);
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    public static void write(Sink out, long v) {
        if (v < 0) throw new IllegalArgumentException("varints are unsigned: " + v);
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    /**
     * A growable byte buffer without {@link ByteArrayOutputStream}'s locking (a lock per byte written) and reusable:
     * {@link #reset} keeps the array. Not thread-safe.
     */
    public static final class Sink {
        private byte[] buf;
        private int size;

        public Sink(int capacity) {
            this.buf = new byte[Math.max(16, capacity)];
        }

        public void write(int b) {
            if (size == buf.length) buf = java.util.Arrays.copyOf(buf, 2 * size);
            buf[size++] = (byte) b;
        }

        public void writeBytes(byte[] b) {
            ensure(b.length);
            System.arraycopy(b, 0, buf, size, b.length);
            size += b.length;
        }

        /** Writes a 12-character hash packed ({@link HashBytes#packInto}). */
        public void writeHash(String hash) {
            ensure(HashBytes.PACKED);
            HashBytes.packInto(hash, buf, size);
            size += HashBytes.PACKED;
        }

        private void ensure(int more) {
            if (size + more > buf.length) buf = java.util.Arrays.copyOf(buf, Math.max(2 * buf.length, size + more));
        }

        public int size() {
            return size;
        }

        public void reset() {
            size = 0;
        }

        public byte[] toByteArray() {
            return java.util.Arrays.copyOf(buf, size);
        }
    }

    /** A reader over a byte array. */
    public static final class Reader {
        private final byte[] buf;
        private int pos;

        public Reader(byte[] buf, int pos) {
            this.buf = buf;
            this.pos = pos;
        }

        public long read() {
            long result = 0;
            int shift = 0;
            while (true) {
                if (pos >= buf.length) throw new IllegalArgumentException("truncated varint");
                byte b = buf[pos++];
                result |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) return result;
                shift += 7;
                if (shift > 63) throw new IllegalArgumentException("varint too long");
            }
        }

        public int readInt() {
            long v = read();
            if (v > Integer.MAX_VALUE) throw new IllegalArgumentException("varint out of int range");
            return (int) v;
        }

        public int readByte() {
            if (pos >= buf.length) throw new IllegalArgumentException("truncated");
            return buf[pos++] & 0xff;
        }

        public void skip(int n) {
            if (n < 0 || pos + n > buf.length) throw new IllegalArgumentException("truncated");
            pos += n;
        }

        public int position() {
            return pos;
        }

        public boolean hasMore() {
            return pos < buf.length;
        }
    }
}
