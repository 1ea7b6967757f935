package org.peerdex.protocol.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PeerIdentityTest {
    private static final Duration SKEW = Duration.ofSeconds(30);

    @Test
    void theIdFollowsFromTheKeyAndSurvivesARestart(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("peer.key");
        PeerKeys a = PeerKeys.loadOrCreate(file, 0);
        PeerKeys again = PeerKeys.loadOrCreate(file, 0);
        assertEquals(a.id(), again.id());
        assertEquals(a.publicKey(), again.publicKey());
        assertEquals(a.id(), PeerIdentity.idOf(a.publicKey()).orElseThrow());
        assertNotEquals(a.id(), PeerKeys.generate(0).id());
    }

    @Test
    void aTamperedKeyFileIsRefused(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("peer.key");
        PeerKeys.loadOrCreate(file, 0);
        String other = Files.readString(PeerKeysFile.write(dir.resolve("other.key")));
        String mixed = Files.readString(file).replaceAll("public=.*", other.lines()
                .filter(l -> l.startsWith("public=")).findFirst().orElseThrow());
        Files.writeString(file, mixed);
        assertThrows(IOException.class, () -> PeerKeys.loadOrCreate(file, 0));
    }

    @Test
    void proofOfWorkIsMetWhenAsked() {
        PeerKeys k = PeerKeys.generate(8);
        assertTrue(k.workBits() >= 8);
    }

    @Test
    void signaturesHoldOnlyForTheSignedBytesAndKey() {
        PeerKeys k = PeerKeys.generate(0);
        byte[] data = "hello".getBytes(StandardCharsets.UTF_8);
        String sig = k.sign(data);
        assertTrue(PeerIdentity.verify(k.publicKey(), data, sig));
        assertFalse(PeerIdentity.verify(k.publicKey(), "hellO".getBytes(StandardCharsets.UTF_8), sig));
        assertFalse(PeerIdentity.verify(PeerKeys.generate(0).publicKey(), data, sig));
        assertFalse(PeerIdentity.verify("not a key", data, sig));
        assertFalse(PeerIdentity.verify(k.publicKey(), data, "%%%"));
    }

    @Test
    void aRecordIsBelievedOnlyWhenSignedFreshAndOfThisNetwork() {
        PeerKeys k = PeerKeys.generate(0);
        long now = 1_000_000_000L;
        SignedPeerRecord r = SignedPeerRecord.sign(k, "net", "127.0.0.1:8070", true, now, Duration.ofMinutes(30), false);
        assertTrue(r.problem("net", now, 0, SKEW).isEmpty());
        assertEquals(k.id(), r.peerId().orElseThrow());
        assertEquals("record of another network: net", r.problem("other", now, 0, SKEW).orElseThrow());
        assertEquals("expired", r.problem("net", now + Duration.ofMinutes(31).toMillis(), 0, SKEW).orElseThrow());
        SignedPeerRecord moved = new SignedPeerRecord(r.key(), r.network(), "10.0.0.1:8070", true, r.version(),
                r.issuedAt(), r.expiresAt(), r.startedAt(), false, r.signature());
        assertEquals("bad signature", moved.problem("net", now, 0, SKEW).orElseThrow());
        SignedPeerRecord stolen = new SignedPeerRecord(PeerKeys.generate(0).publicKey(), r.network(), r.address(), true,
                r.version(), r.issuedAt(), r.expiresAt(), r.startedAt(), false, r.signature());
        assertEquals("bad signature", stolen.problem("net", now, 0, SKEW).orElseThrow());
        SignedPeerRecord forever = SignedPeerRecord.sign(k, "net", "127.0.0.1:8070", true, now, Duration.ofDays(30), false);
        assertEquals("valid for too long", forever.problem("net", now, 0, SKEW).orElseThrow());
        assertTrue(r.problem("net", now, 64, SKEW).isPresent(), "a network asking more work refuses a cheap identity");
    }

    @Test
    void addressesAreHostAndPortOnly() {
        assertTrue(SignedPeerRecord.validAddress("127.0.0.1:8070"));
        assertTrue(SignedPeerRecord.validAddress("peer.example.org:443"));
        assertTrue(SignedPeerRecord.validAddress("[::1]:8070"));
        assertFalse(SignedPeerRecord.validAddress("127.0.0.1"));
        assertFalse(SignedPeerRecord.validAddress("http://x:1"));
        assertFalse(SignedPeerRecord.validAddress("x:70000"));
        assertFalse(SignedPeerRecord.validAddress("a b:1"));
    }

    @Test
    void replayedOrStaleRequestsAreRefused() {
        ReplayGuard g = new ReplayGuard(30_000, 3);
        long now = 5_000_000L;
        assertEquals(null, g.check("k", "n1", now, now));
        assertEquals("replayed request", g.check("k", "n1", now, now + 1));
        assertEquals(null, g.check("k2", "n1", now, now + 1), "nonces are per key");
        assertEquals("request time outside the allowed clock skew", g.check("k", "n2", now - 31_000, now));
        assertEquals(null, g.check("k", "n3", now, now));
        assertTrue(g.check("k", "n4", now, now).startsWith("too many"), "full: refuse, do not forget early");
        assertEquals(null, g.check("k", "n4", now + 61_000, now + 61_000), "old nonces are dropped after 2x skew");
    }

    /** Writes a second key file to borrow its public key. */
    private static final class PeerKeysFile {
        static Path write(Path p) throws IOException {
            PeerKeys.loadOrCreate(p, 0);
            return p;
        }
    }
}
