package org.peerdex.protocol.identity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.NamedParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import org.peerdex.protocol.hash.PeerId;

/**
 * A peer's Ed25519 key pair: its identity in the open network. The peer id is derived from the public key
 * ({@link PeerIdentity#idOf}), so nobody picks where they sit on the ring. Creating a key pair may cost a
 * proof of work ({@code workBits} leading zero bits of the key's double hash, as S/Kademlia's static puzzle does),
 * which makes minting many identities for a Sybil attack expensive; tests use 0.
 */
public final class PeerKeys {
    private final KeyPair pair;
    private final String publicKey;
    private final PeerId id;

    private PeerKeys(KeyPair pair) {
        this.pair = pair;
        this.publicKey = PeerIdentity.encode(pair.getPublic());
        this.id = PeerIdentity.idOf(pair.getPublic());
    }

    /** A new key pair whose public key meets {@code workBits} of proof of work. */
    public static PeerKeys generate(int workBits) {
        return generate(workBits, null);
    }

    /**
     * A new key pair whose private key comes from {@code random} (the JDK's default source when null): a seeded
     * source gives the same keys every time, which a simulation wants and a peer must never have.
     */
    public static PeerKeys generate(int workBits, SecureRandom random) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("Ed25519");
            if (random != null) g.initialize(NamedParameterSpec.ED25519, random);
            while (true) {
                KeyPair p = g.generateKeyPair();
                if (PeerIdentity.workOf(p.getPublic()) >= workBits) return new PeerKeys(p);
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 is not available in this JDK", e);
        }
    }

    /**
     * The key pair stored at {@code file}, or a new one (meeting {@code workBits}) written there, readable by
     * its owner only. A stored key that does not meet {@code workBits} is kept: the network decides what it admits.
     */
    public static PeerKeys loadOrCreate(Path file, int workBits) throws IOException {
        if (Files.exists(file)) return load(file);
        PeerKeys k = generate(workBits);
        k.save(file);
        return k;
    }

    /**
     * Writes this key pair to {@code file} (atomically, readable by its owner only), where {@link #loadOrCreate}
     * finds it: how a benchmark gives its peers keys of its own seed.
     */
    public void save(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        String text = "# Peerdex peer key (Ed25519, PKCS#8 private / X.509 public, base64). Keep it secret.\n"
                + "private=" + Base64.getEncoder().encodeToString(pair.getPrivate().getEncoded()) + "\n"
                + "public=" + Base64.getEncoder().encodeToString(pair.getPublic().getEncoded()) + "\n";
        Files.writeString(tmp, text);
        try {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException ignored) {
            // not a POSIX file system
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    }

    static PeerKeys load(Path file) throws IOException {
        String priv = null;
        String pub = null;
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith("private=")) priv = line.substring(8).trim();
            else if (line.startsWith("public=")) pub = line.substring(7).trim();
        }
        if (priv == null || pub == null) throw new IOException("not a peer key file: " + file);
        try {
            KeyFactory f = KeyFactory.getInstance("Ed25519");
            PrivateKey p = f.generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(priv)));
            PublicKey q = f.generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(pub)));
            PeerKeys k = new PeerKeys(new KeyPair(q, p));
            byte[] probe = "peerdex key check".getBytes();
            if (!PeerIdentity.verify(k.publicKey, probe, k.sign(probe))) {
                throw new IOException("the private and public key in " + file + " do not belong together");
            }
            return k;
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IOException("unreadable peer key file " + file + ": " + e.getMessage(), e);
        }
    }

    /** The peer id this key pair stands for. */
    public PeerId id() {
        return id;
    }

    /** The public key as it travels: base64url of its X.509 encoding. */
    public String publicKey() {
        return publicKey;
    }

    public int workBits() {
        return PeerIdentity.workOf(pair.getPublic());
    }

    /** An Ed25519 signature of {@code data}, base64url. */
    public String sign(byte[] data) {
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initSign(pair.getPrivate());
            s.update(data);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign", e);
        }
    }
}
