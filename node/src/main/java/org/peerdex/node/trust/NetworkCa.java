package org.peerdex.node.trust;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A private network's own certificate authority: {@code peerdex network init DIR} creates it, {@code peerdex
 * network admit DIR NAME} issues a peer's key and certificate. A peer started with {@code --cluster-tls PEERDIR}
 * runs Pekko Cluster over Artery TLS with mutual authentication and trusts only certificates of this CA, so only
 * the operator's admitted peers can join (docs/security.md, "Inside a trust domain").
 */
public final class NetworkCa {
    /** Files of the CA directory. */
    public static final String CA_STORE = "ca.p12";
    public static final String CA_CERT = "ca.crt";
    public static final String CA_PASSWORD = "ca.password";
    /** Files of a peer's directory (what {@code --cluster-tls} reads). */
    public static final String PEER_STORE = "peer.p12";
    public static final String TRUST_STORE = "trust.p12";
    public static final String PEER_PASSWORD = "password";
    private static final String ALIAS = "peer";
    private static final SecureRandom RANDOM = new SecureRandom();

    private NetworkCa() {}

    /** Creates a CA for {@code network} in {@code dir}; refuses to overwrite one. */
    public static X509Certificate init(Path dir, String network, Duration validity) throws IOException {
        if (Files.exists(dir.resolve(CA_STORE))) throw new IOException("a CA exists already in " + dir);
        Files.createDirectories(dir);
        try {
            KeyPair ca = keyPair();
            X500Name name = new X500Name("CN=Peerdex network CA " + quote(network) + ",O=" + quote(network));
            Instant now = Instant.now();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial(), Date.from(now.minusSeconds(60)),
                    Date.from(now.plus(validity)), name, ca.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            X509Certificate cert = sign(b, ca.getPrivate());
            char[] password = password();
            secret(dir.resolve(CA_PASSWORD), new String(password));
            store(dir.resolve(CA_STORE), ca.getPrivate(), password, cert);
            Files.writeString(dir.resolve(CA_CERT), pem(cert));
            return cert;
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IOException("cannot create the CA: " + e.getMessage(), e);
        }
    }

    /**
     * Issues peer {@code peerName} a key and a certificate of the CA in {@code caDir}, written to {@code out}:
     * {@value #PEER_STORE} (key + chain), {@value #TRUST_STORE} (the CA only) and {@value #PEER_PASSWORD}.
     */
    public static X509Certificate admit(Path caDir, String peerName, Path out, Duration validity) throws IOException {
        if (!peerName.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
            throw new IOException("a peer name is letters, digits, '.', '_' or '-' (at most 64): " + peerName);
        }
        if (Files.exists(out.resolve(PEER_STORE))) throw new IOException("a peer certificate exists already in " + out);
        try {
            char[] caPassword = Files.readString(caDir.resolve(CA_PASSWORD)).trim().toCharArray();
            KeyStore caStore = KeyStore.getInstance("PKCS12");
            try (var in = Files.newInputStream(caDir.resolve(CA_STORE))) {
                caStore.load(in, caPassword);
            }
            PrivateKey caKey = (PrivateKey) caStore.getKey(ALIAS, caPassword);
            X509Certificate caCert = (X509Certificate) caStore.getCertificate(ALIAS);
            KeyPair peer = keyPair();
            Instant now = Instant.now();
            X500Name subject = new X500Name("CN=" + peerName + ",O=" + caCert.getSubjectX500Principal().getName()
                    .replaceAll(".*O=([^,]*).*", "$1"));
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(caCert, serial(),
                    Date.from(now.minusSeconds(60)), Date.from(now.plus(validity)), subject, peer.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            b.addExtension(Extension.extendedKeyUsage, false,
                    new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            X509Certificate cert = sign(b, caKey);
            Files.createDirectories(out);
            char[] password = password();
            secret(out.resolve(PEER_PASSWORD), new String(password));
            store(out.resolve(PEER_STORE), peer.getPrivate(), password, cert, caCert);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("network-ca", caCert);
            try (OutputStream o = Files.newOutputStream(out.resolve(TRUST_STORE))) {
                trust.store(o, password);
            }
            return cert;
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IOException("cannot issue the peer certificate: " + e.getMessage(), e);
        }
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return g.generateKeyPair();
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
    }

    private static void store(Path file, PrivateKey key, char[] password, Certificate... chain)
            throws GeneralSecurityException, IOException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry(ALIAS, key, password, chain);
        try (OutputStream o = Files.newOutputStream(file)) {
            ks.store(o, password);
        }
        owner(file);
    }

    private static void secret(Path file, String text) throws IOException {
        Files.writeString(file, text + "\n");
        owner(file);
    }

    private static void owner(Path file) throws IOException {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException ignored) {
            // not a POSIX file system
        }
    }

    private static char[] password() {
        byte[] b = new byte[24];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b).toCharArray();
    }

    private static BigInteger serial() {
        return new BigInteger(64, RANDOM).abs().add(BigInteger.ONE);
    }

    private static String quote(String s) {
        return s.replaceAll("[^A-Za-z0-9_ -]", "_");
    }

    private static String pem(X509Certificate c) throws GeneralSecurityException {
        StringWriter w = new StringWriter();
        w.write("-----BEGIN CERTIFICATE-----\n");
        w.write(Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(c.getEncoded()));
        w.write("\n-----END CERTIFICATE-----\n");
        return w.toString();
    }

    /** The Artery TLS settings for a peer directory made by {@link #admit} (mutual authentication, TLS 1.3). */
    public static Config arteryTls(Path peerDir) throws IOException {
        for (String f : new String[] {PEER_STORE, TRUST_STORE, PEER_PASSWORD}) {
            if (!Files.isRegularFile(peerDir.resolve(f))) {
                throw new IOException(peerDir + " holds no " + f + ": make it with 'peerdex network admit CA-DIR NAME'");
            }
        }
        String password = Files.readString(peerDir.resolve(PEER_PASSWORD)).trim();
        String p = "pekko.remote.artery.ssl.config-ssl-engine.";
        return ConfigFactory.parseMap(Map.of(
                "pekko.remote.artery.transport", "tls-tcp",
                p + "key-store", peerDir.resolve(PEER_STORE).toAbsolutePath().toString(),
                p + "trust-store", peerDir.resolve(TRUST_STORE).toAbsolutePath().toString(),
                p + "key-store-password", password, p + "key-password", password, p + "trust-store-password", password,
                p + "protocol", "TLSv1.3", p + "enabled-algorithms", List.of("TLS_AES_128_GCM_SHA256"),
                p + "require-mutual-authentication", "on",
                // the CA admits peers by name, not by host: any address may hold an admitted certificate
                p + "hostname-verification", "off"));
    }
}
