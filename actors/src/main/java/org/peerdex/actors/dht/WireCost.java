package org.peerdex.actors.dht;

import java.nio.charset.StandardCharsets;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;

/** Bytes a message costs on the wire, measured with the serializer Pekko uses between peers. */
public final class WireCost {
    private final Serialization serialization;
    /** "pekko://NAME/" when the system has no host (one JVM of virtual peers), else null */
    private final byte[] hostlessPrefix;
    private final int addressPadding;

    public WireCost(ActorSystem<?> system) {
        this.serialization = SerializationExtension.get(Adapter.toClassic(system));
        Address a = system.address();
        this.hostlessPrefix = a.host().isEmpty() ? (a + "/").getBytes(StandardCharsets.UTF_8) : null;
        this.addressPadding = hostlessPrefix == null ? 0 : WIDEST_ADDRESS.length() - a.toString().length();
    }

    /**
     * Serialized size in bytes (0 if the message cannot be serialized, which a test would catch), with the uid of
     * every actor ref counted at its widest: Pekko draws uids at random and a serialized ref ends in "#uid" in
     * decimal, so the raw size would differ between two runs of one simulation by a byte here and there.
     */
    public long bytes(Object message) {
        try {
            byte[] b = serialization.serialize(message).get();
            return b.length + uidPadding(b) + (hostlessPrefix == null ? 0 : (long) addressPadding * count(b, hostlessPrefix));
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /**
     * A peer's address as its serialized refs carry it, at its widest over IPv4. Virtual peers of a simulation share
     * one ActorSystem without a host ("pekko://sim"), so their refs would be about 30 bytes shorter than a real
     * peer's ("pekko://peerdex-peerdex@127.0.0.1:40039"); each is counted at this width instead.
     */
    public static final String WIDEST_ADDRESS = "pekko://peerdex-peerdex@255.255.255.255:65535";

    /** Occurrences of {@code prefix} in {@code b}. */
    static int count(byte[] b, byte[] prefix) {
        int n = 0;
        outer:
        for (int i = 0; i + prefix.length <= b.length; i++) {
            for (int j = 0; j < prefix.length; j++) if (b[i + j] != prefix[j]) continue outer;
            n++;
            i += prefix.length - 1;
        }
        return n;
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
