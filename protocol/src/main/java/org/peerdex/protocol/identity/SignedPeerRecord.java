package org.peerdex.protocol.identity;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.peerdex.protocol.hash.PeerId;

/**
 * What a peer says about itself in the open network, signed with its key: where its peer protocol listens,
 * whether it holds ranges, its software version, and how long the record is valid. Records travel between
 * peers (hello, peer lists); a receiver believes one only when its signature holds and it has not expired, and
 * lets it into the ring only after reaching the address itself (see docs/protocol.md, "Membership").
 * A record with {@code leaving} set is the peer's own notice that it leaves: the only way a peer is removed
 * by anyone but the receiver's own failed probes.
 *
 * @param key        the peer's Ed25519 public key, base64url X.509 ({@link PeerIdentity#encode})
 * @param network    the network name; records of other networks are refused
 * @param address    host:port of the peer protocol
 * @param acceptsIndex false for a passive peer (holds no ranges)
 * @param version    the peer's protocol version
 * @param issuedAt   ms since the epoch
 * @param expiresAt  ms since the epoch
 * @param startedAt  when this run of the peer started (ms since the epoch): a new value tells others that the peer
 *                   restarted and may have lost what it was sent while it was down
 * @param signature  Ed25519 over {@link #signedBytes()}, base64url
 */
public record SignedPeerRecord(@JsonProperty("key") String key, @JsonProperty("network") String network,
                               @JsonProperty("address") String address,
                               @JsonProperty("acceptsIndex") boolean acceptsIndex, @JsonProperty("version") int version,
                               @JsonProperty("issuedAt") long issuedAt, @JsonProperty("expiresAt") long expiresAt,
                               @JsonProperty("startedAt") long startedAt, @JsonProperty("leaving") boolean leaving,
                               @JsonProperty("signature") String signature) {
    public static final int VERSION = 1;
    /** a record may not claim to be valid for longer than this */
    public static final Duration MAX_VALIDITY = Duration.ofHours(2);

    public SignedPeerRecord {
        key = key == null ? "" : key;
        network = network == null ? "" : network;
        address = address == null ? "" : address;
        signature = signature == null ? "" : signature;
    }

    /** A new record for these keys, valid for {@code validity} from {@code now}. */
    public static SignedPeerRecord sign(PeerKeys keys, String network, String address, boolean acceptsIndex,
                                        long now, Duration validity, boolean leaving) {
        return sign(keys, network, address, acceptsIndex, now, validity, now, leaving);
    }

    /** A new record of a run of the peer that started at {@code startedAt}. */
    public static SignedPeerRecord sign(PeerKeys keys, String network, String address, boolean acceptsIndex,
                                        long now, Duration validity, long startedAt, boolean leaving) {
        SignedPeerRecord unsigned = new SignedPeerRecord(keys.publicKey(), network, address, acceptsIndex, VERSION,
                now, now + validity.toMillis(), startedAt, leaving, "");
        return unsigned.withSignature(keys.sign(unsigned.signedBytes()));
    }

    SignedPeerRecord withSignature(String s) {
        return new SignedPeerRecord(key, network, address, acceptsIndex, version, issuedAt, expiresAt, startedAt, leaving, s);
    }

    /** The bytes the signature covers: every field but the signature, one per line. */
    public byte[] signedBytes() {
        return String.join("\n", "peerdex-peer-record", key, network, address, Boolean.toString(acceptsIndex),
                Integer.toString(version), Long.toString(issuedAt), Long.toString(expiresAt), Long.toString(startedAt),
                Boolean.toString(leaving)).getBytes(StandardCharsets.UTF_8);
    }

    /** The id the key stands for, or empty when the key is not an Ed25519 key. */
    public Optional<PeerId> peerId() {
        return PeerIdentity.idOf(key);
    }

    /**
     * Why this record cannot be believed at {@code now} in {@code expectedNetwork} with at least {@code minWork}
     * bits of proof of work, or empty when it can.
     */
    public Optional<String> problem(String expectedNetwork, long now, int minWork, Duration clockSkew) {
        return problem(expectedNetwork, now, minWork, clockSkew, true);
    }

    /**
     * As above; without {@code checkSignature} the signature is taken as verified (a receiver that verified this
     * very record before, every field equal, need not verify it again).
     */
    public Optional<String> problem(String expectedNetwork, long now, int minWork, Duration clockSkew,
                                    boolean checkSignature) {
        if (!network.equals(expectedNetwork)) return Optional.of("record of another network: " + shorten(network));
        if (!validAddress(address)) return Optional.of("bad address: " + shorten(address));
        var k = PeerIdentity.decode(key);
        if (k.isEmpty()) return Optional.of("not an Ed25519 key");
        if (PeerIdentity.workOf(k.get()) < minWork) return Optional.of("identity without enough proof of work");
        if (issuedAt > now + clockSkew.toMillis()) return Optional.of("issued in the future");
        if (expiresAt <= now) return Optional.of("expired");
        if (expiresAt - issuedAt > MAX_VALIDITY.toMillis()) return Optional.of("valid for too long");
        if (startedAt > issuedAt) return Optional.of("started after it was issued");
        if (checkSignature && !PeerIdentity.verify(k.get(), signedBytes(), signature)) return Optional.of("bad signature");
        return Optional.empty();
    }

    /** host:port with a host of letters, digits, dots, dashes or an IPv6 literal in brackets, and a port. */
    public static boolean validAddress(String a) {
        if (a == null || a.length() > 255) return false;
        int colon = a.lastIndexOf(':');
        if (colon <= 0 || colon == a.length() - 1) return false;
        String host = a.substring(0, colon);
        String port = a.substring(colon + 1);
        if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) return false;
        return host.matches("[A-Za-z0-9.-]{1,253}") || host.matches("\\[[0-9A-Fa-f:.]{2,45}\\]");
    }

    private static String shorten(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "…" : s;
    }
}
