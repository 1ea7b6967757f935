package org.peerdex.actors.dht.membership;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.random.RandomGenerator;
import org.peerdex.protocol.identity.PeerIdentity;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.identity.SignedPeerRecord;
import org.peerdex.protocol.wire.V1;

/**
 * The fresh challenge of a hello for a transport that does not sign its replies itself (the node's peer protocol
 * signs every reply over the request's nonce; the simulator's virtual network uses this): the asker draws a nonce,
 * the answering peer signs the nonce and its reply with its key, the asker checks the signature against the key of
 * the record it expects before the reply counts.
 */
public final class Challenge {
    private Challenge() {}

    /** A fresh nonce: 16 random bytes, base64url. */
    public static String nonce(RandomGenerator random) {
        byte[] b = new byte[16];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** The bytes signed: the nonce and the reply (its record and the records it lists, by their signatures). */
    static byte[] bytes(String nonce, V1.HelloReply reply) {
        StringBuilder s = new StringBuilder("peerdex-hello-reply\n").append(nonce).append('\n')
                .append(reply.record().signature()).append('\n').append(reply.admitted());
        for (SignedPeerRecord r : reply.peers()) s.append('\n').append(r.signature());
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The answering peer's signature over {@code nonce} and {@code reply}. */
    public static String sign(PeerKeys keys, String nonce, V1.HelloReply reply) {
        return keys.sign(bytes(nonce, reply));
    }

    /** Whether {@code key} signed {@code nonce} and {@code reply}. */
    public static boolean verify(String key, String nonce, V1.HelloReply reply, String signature) {
        var k = PeerIdentity.decode(key);
        return k.isPresent() && PeerIdentity.verify(k.get(), bytes(nonce, reply), signature);
    }
}
