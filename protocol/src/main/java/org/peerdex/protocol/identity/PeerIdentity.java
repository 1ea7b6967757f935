package org.peerdex.protocol.identity;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import org.peerdex.protocol.hash.Base64Order;
import org.peerdex.protocol.hash.PeerId;

/**
 * Pure functions over public keys: the peer id a key stands for, its proof of work, and signature checks.
 * The id is the enhanced-Base64 of SHA-256 of the key's X.509 encoding (12 characters, as every peer id), so a
 * peer's ring position follows from its key and cannot be chosen without minting keys until one lands there;
 * the proof of work (leading zero bits of SHA-256 of that hash) prices each attempt.
 */
public final class PeerIdentity {
    /** The longest encoded public key accepted (an Ed25519 X.509 key is 44 bytes, 59 characters base64url). */
    public static final int MAX_KEY_CHARS = 128;

    private PeerIdentity() {}

    public static String encode(PublicKey key) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(key.getEncoded());
    }

    /** The Ed25519 key a base64url string encodes, or empty when it is not one. */
    public static Optional<PublicKey> decode(String key) {
        if (key == null || key.isEmpty() || key.length() > MAX_KEY_CHARS) return Optional.empty();
        try {
            PublicKey k = KeyFactory.getInstance("Ed25519")
                    .generatePublic(new X509EncodedKeySpec(Base64.getUrlDecoder().decode(key)));
            return Optional.of(k);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    public static PeerId idOf(PublicKey key) {
        return new PeerId(Base64Order.encode(sha256(key.getEncoded())).substring(0, PeerId.LENGTH));
    }

    /** The id of an encoded key, or empty when it is not an Ed25519 key. */
    public static Optional<PeerId> idOf(String key) {
        return decode(key).map(PeerIdentity::idOf);
    }

    /** Leading zero bits of SHA-256(SHA-256(key)): the identity's proof of work. */
    public static int workOf(PublicKey key) {
        byte[] h = sha256(sha256(key.getEncoded()));
        int bits = 0;
        for (byte b : h) {
            if (b == 0) {
                bits += 8;
                continue;
            }
            bits += Integer.numberOfLeadingZeros(b & 0xff) - 24;
            break;
        }
        return bits;
    }

    /** Does {@code signature} (base64url) sign {@code data} under {@code key} (base64url)? Never throws. */
    public static boolean verify(String key, byte[] data, String signature) {
        Optional<PublicKey> k = decode(key);
        return k.isPresent() && verify(k.get(), data, signature);
    }

    public static boolean verify(PublicKey key, byte[] data, String signature) {
        if (signature == null || signature.isEmpty() || signature.length() > 128) return false;
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initVerify(key);
            s.update(data);
            return s.verify(Base64.getUrlDecoder().decode(signature));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }

    public static byte[] sha256(byte[] data) {
        return Base64Order.sha256(data);
    }

    public static String sha256Hex(byte[] data) {
        return HexFormat.of().formatHex(sha256(data));
    }
}
