package org.peerdex.protocol.identity;

import java.nio.charset.StandardCharsets;

/**
 * The canonical bytes a peer-protocol request or reply signature covers (docs/protocol.md, "Authentication").
 * A request's signature binds the network, method, path, time, nonce and body digest; a reply's binds the
 * request's nonce, so a reply cannot be replayed to another request or forged by anyone without the key.
 */
public final class SignedMessage {
    public static final String KEY = "X-Peerdex-Key";
    public static final String TIME = "X-Peerdex-Time";
    public static final String NONCE = "X-Peerdex-Nonce";
    public static final String SIGNATURE = "X-Peerdex-Signature";

    private SignedMessage() {}

    public static byte[] request(String network, String method, String path, long time, String nonce, byte[] body) {
        return String.join("\n", "peerdex-request-v1", network, method, path, Long.toString(time), nonce,
                PeerIdentity.sha256Hex(body)).getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] reply(String network, String requestNonce, int status, long time, byte[] body) {
        return String.join("\n", "peerdex-reply-v1", network, requestNonce, Integer.toString(status),
                Long.toString(time), PeerIdentity.sha256Hex(body)).getBytes(StandardCharsets.UTF_8);
    }

    /** A nonce is 16 to 64 base64url characters. */
    public static boolean validNonce(String n) {
        return n != null && n.length() >= 16 && n.length() <= 64 && n.matches("[A-Za-z0-9_-]+");
    }
}
