package org.peerdex.actors.dht;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueType;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Proof that a peer knows its private network's shared secret ({@code peerdex.network-secret}; empty: an open
 * network, nothing is checked). A peer's {@link PeerInfo} carries {@code nonce.HMAC-SHA256(secret, network name,
 * peer id, cluster address, role, HTTP address, actor paths, nonce)}: a directory takes only peers whose proof
 * verifies and whose actors live at the address they claim into its view, and a ShardOwner answers and stores
 * only for members of that view. The secret itself never leaves the peer. See docs/reliability.md, "Private
 * networks".
 */
public final class NetworkProof {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final NetworkProof OPEN = new NetworkProof("", null);
    private final String network;
    private final SecretKeySpec key;

    private NetworkProof(String network, SecretKeySpec key) {
        this.network = network;
        this.key = key;
    }

    /** From {@code peerdex.network} and {@code peerdex.network-secret} (absent or empty secret: open). */
    public static NetworkProof from(Config c) {
        String secret = c.hasPath("peerdex.network-secret") ? c.getString("peerdex.network-secret") : "";
        if (secret.isEmpty()) return OPEN;
        String network = c.hasPath("peerdex.network") && c.getValue("peerdex.network").valueType() == ConfigValueType.STRING
                ? c.getString("peerdex.network") : "peerdex";
        return of(network, secret);
    }

    public static NetworkProof of(String network, String secret) {
        if (secret == null || secret.isEmpty()) return OPEN;
        return new NetworkProof(network, new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    }

    /** True for a private network (a secret is set). */
    public boolean enabled() {
        return key != null;
    }

    /** This peer's info with a fresh proof (unchanged in an open network). */
    public PeerInfo sign(PeerInfo i) {
        if (!enabled()) return i;
        byte[] n = new byte[12];
        RANDOM.nextBytes(n);
        String nonce = Base64.getUrlEncoder().withoutPadding().encodeToString(n);
        return i.withProof(nonce + "." + mac(message(i, nonce)));
    }

    /**
     * True when the info's proof was made with this network's secret and its actors live at the address it
     * claims (a remote peer cannot present another address's refs as its own); always true in an open network.
     */
    public boolean verify(PeerInfo i) {
        if (!enabled()) return true;
        String p = i.proof();
        int dot = p.indexOf('.');
        if (dot <= 0 || dot > 64) return false;
        if (isRemote(i.directory()) && !i.directory().path().address().toString().equals(i.address())) return false;
        if (isRemote(i.shardOwner()) && !i.shardOwner().path().address().equals(i.directory().path().address())) {
            return false;
        }
        byte[] expected = mac(message(i, p.substring(0, dot))).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, p.substring(dot + 1).getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The value every member of the network has under {@code peerdex.network-proof}, compared by the cluster's
     * join check (a joining node with another secret is refused before it becomes a member); "" when open.
     */
    public String joinProof() {
        return enabled() ? mac("peerdex-join-v1\n" + network) : "";
    }

    private static boolean isRemote(ActorRef<?> r) {
        return r.path().address().hasGlobalScope();
    }

    private String message(PeerInfo i, String nonce) {
        return String.join("\n", "peerdex-peer-v1", network, i.peerId().value(), i.address(),
                String.valueOf(i.acceptsIndex()), i.httpAddress(), i.shardOwner().path().toStringWithoutAddress(),
                i.directory().path().toStringWithoutAddress(), nonce);
    }

    private String mac(String message) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(key);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(m.doFinal(message.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
