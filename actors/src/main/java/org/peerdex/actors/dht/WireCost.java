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

    /**
     * Serialized size in bytes (0 if the message cannot be serialized, which a test would catch), with the uid of
     * every actor ref counted at its widest: Pekko draws uids at random and a serialized ref ends in "#uid" in
     * decimal, so the raw size would differ between two runs of one simulation by a byte here and there.
     */
    public long bytes(Object message) {
        try {
            byte[] b = serialization.serialize(message).get();
            return b.length + uidPadding(b);
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /** Characters of the widest int in decimal, "-2147483648". */
    private static final int WIDEST_UID = 11;

    /** What padding every "#uid" of a serialized actor path to {@link #WIDEST_UID} characters would add. */
    static int uidPadding(byte[] b) {
        int pad = 0;
        for (int i = 0; i < b.length; i++) {
            if (b[i] != '#') continue;
            int j = i + 1;
            if (j < b.length && b[j] == '-') j++;
            int digits = 0;
            while (j < b.length && b[j] >= '0' && b[j] <= '9' && digits < WIDEST_UID) {
                j++;
                digits++;
            }
            int width = j - i - 1;
            if (digits > 0) pad += Math.max(0, WIDEST_UID - width);
            i = j - 1;
        }
        return pad;
    }
}
