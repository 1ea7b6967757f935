package org.peerdex.actors.dht;

import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;

/** Bytes a message costs on the wire, measured with the serializer Pekko uses between peers. */
public final class WireCost {
    private final Serialization serialization;

    public WireCost(ActorSystem<?> system) {
        this.serialization = SerializationExtension.get(Adapter.toClassic(system));
    }

    /** Serialized size in bytes (0 if the message cannot be serialized, which a test would catch). */
    public long bytes(Object message) {
        try {
            return serialization.serialize(message).get().length;
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
