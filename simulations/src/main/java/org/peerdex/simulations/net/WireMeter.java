package org.peerdex.simulations.net;

import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;
import org.peerdex.actors.dht.WireCost;
import org.peerdex.protocol.WireMessage;

/**
 * Measures a message's size on the wire with the real Pekko serializer the peers use (Jackson CBOR for
 * {@link WireMessage}, per the actors module's serialization-bindings), and round-trips it as the wire would.
 */
public final class WireMeter {
    private final Serialization serialization;

    public WireMeter(ActorSystem<?> system) {
        this.serialization = SerializationExtension.get(Adapter.toClassic(system));
    }

    /** The serialized bytes of a message; throws if it has no serializer binding other than Java serialization. */
    public byte[] serialize(Object message) {
        Serializer s = serialization.findSerializerFor(message);
        if (s.getClass().getName().contains("JavaSerializer")) {
            throw new IllegalArgumentException("message has no wire serializer: " + message.getClass().getName());
        }
        // serialize() sets the transport information the ActorRef serializers need
        return serialization.serialize(message).get();
    }

    /**
     * The serialized size, with the uid of every actor ref in the message counted at its widest: Pekko draws actor
     * uids at random, and a serialized ref carries its uid in decimal, so the raw size (and the bandwidth delay that
     * follows from it) would vary between runs of one seed by a byte here and there. A ref's address is counted as a
     * real peer's at its widest ({@link WireCost#WIDEST_ADDRESS}): the virtual peers' system has no host.
     */
    public int size(Object message) {
        int[] adjust = {0};
        refs.rewrite(message, r -> {
            adjust[0] += WIDEST_UID - Integer.toString(r.path().uid()).length();
            if (r.path().address().host().isEmpty()) {
                adjust[0] += WireCost.WIDEST_ADDRESS.length() - r.path().address().toString().length();
            }
            return r;
        });
        return serialize(message).length + adjust[0];
    }

    /** Characters of the widest int in decimal, "-2147483648". */
    private static final int WIDEST_UID = 11;
    private final RefRewriter refs = new RefRewriter();

    public String serializerName(Object message) {
        return serialization.findSerializerFor(message).getClass().getSimpleName();
    }

    /** Serializes and deserializes, as crossing the wire does. */
    public Object roundTrip(Object message) {
        Serializer s = serialization.findSerializerFor(message);
        byte[] bytes = s.toBinary(message);
        String manifest = Serializers.manifestFor(s, message);
        return serialization.deserialize(bytes, s.identifier(), manifest).get();
    }
}
