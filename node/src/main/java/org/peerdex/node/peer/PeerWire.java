package org.peerdex.node.peer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.jackson.JacksonObjectMapperProvider;
import org.peerdex.protocol.identity.SignedPeerRecord;

/**
 * The peer protocol's bodies: CBOR of the same records the DHT actors exchange (docs/protocol.md), read into the
 * one type each endpoint expects, never into a type the sender names.
 */
public final class PeerWire {
    /** Wire: "here I am"; the reply is signed over this request's nonce, so it answers a fresh challenge. */
    public record Hello(SignedPeerRecord record) {}

    /**
     * Wire: the answer to a Hello: the responder's record, some records it has verified itself, and whether it
     * has admitted the asker (reached it at its address), which tells a peer behind NAT that nobody can.
     */
    public record HelloReply(SignedPeerRecord record, List<SignedPeerRecord> peers, boolean admitted) {
        public HelloReply {
            peers = peers == null ? List.of() : peers;
        }
    }

    /** Wire: the sender's own signed leaving record. */
    public record Leave(SignedPeerRecord record) {}

    private final ObjectMapper mapper;

    public PeerWire(ActorSystem<?> system) {
        this.mapper = JacksonObjectMapperProvider.get(Adapter.toClassic(system))
                .getOrCreate("jackson-cbor", Optional.of(new CBORFactory()));
    }

    public byte[] write(Object o) {
        try {
            return mapper.writeValueAsBytes(o);
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode " + o.getClass().getSimpleName(), e);
        }
    }

    /** Reads a body as {@code type}; throws IllegalArgumentException for anything unreadable. */
    public <T> T read(byte[] body, Class<T> type) {
        try {
            T t = mapper.readValue(body, type);
            if (t == null) throw new IllegalArgumentException("empty body");
            return t;
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("unreadable " + type.getSimpleName() + ": " + firstLine(e.getMessage()));
        }
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        String t = nl < 0 ? s : s.substring(0, nl);
        return t.length() > 200 ? t.substring(0, 200) : t;
    }
}
