package org.peerdex.protocol.wire;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import java.io.IOException;

/**
 * CBOR of the peer protocol's bodies ({@link V1}), with a mapper of its own, so no setting of the actor system's
 * serializers can change the wire. Reading: into the one type the message expects, never a type the sender
 * names; unknown keys are ignored (a later minor revision may add one; a change older peers cannot read is a
 * new version path), a key given twice is malformed, and an absent key takes its default (0, false, empty), which
 * the records and the receiver then check. Thread-safe.
 */
public final class WireCodec {
    private final ObjectMapper mapper = CBORMapper.builder()
            .visibility(PropertyAccessor.GETTER, JsonAutoDetect.Visibility.NONE)
            .visibility(PropertyAccessor.IS_GETTER, JsonAutoDetect.Visibility.NONE)
            .visibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.NONE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    public byte[] write(V1.Body body) {
        try {
            return mapper.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode " + body.getClass().getSimpleName(), e);
        }
    }

    /** Reads a body as {@code type}; throws IllegalArgumentException for anything unreadable or malformed. */
    public <T extends V1.Body> T read(byte[] body, Class<T> type) {
        try {
            T t = mapper.readValue(body, type);
            if (t == null) throw new IllegalArgumentException("empty body");
            return t;
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("unreadable " + type.getSimpleName() + ": " + firstLine(e));
        }
    }

    private static String firstLine(Throwable e) {
        // a failed check inside a record says why; Jackson wraps it
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        String s = t instanceof IllegalArgumentException ? t.getMessage() : e.getMessage();
        if (s == null) return e.getClass().getSimpleName();
        int nl = s.indexOf('\n');
        String line = nl < 0 ? s : s.substring(0, nl);
        return line.length() > 200 ? line.substring(0, 200) : line;
    }
}
