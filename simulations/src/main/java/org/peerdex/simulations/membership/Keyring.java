package org.peerdex.simulations.membership;

import java.security.SecureRandom;
import java.security.SecureRandomSpi;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.simulations.hostile.Population;

/**
 * The virtual peers' Ed25519 key pairs, drawn from the simulation's seeded streams (so a seed gives the same keys,
 * ids and signatures every run: Ed25519 signatures are deterministic). A peer's id is its key's, as in a node; a
 * Sybil operator that mints ids mints key pairs.
 */
public final class Keyring implements Population.IdSource {
    private final Map<PeerId, PeerKeys> byId = new HashMap<>();

    @Override
    public PeerId next(SplittableRandom random) {
        PeerKeys k = generate(random);
        byId.put(k.id(), k);
        return k.id();
    }

    /** The key pair of an id this keyring minted. */
    public PeerKeys keys(PeerId id) {
        PeerKeys k = byId.get(id);
        if (k == null) throw new IllegalArgumentException("no key pair for " + id);
        return k;
    }

    /** A key pair whose private key is 32 bytes of {@code random}. */
    static PeerKeys generate(SplittableRandom random) {
        return PeerKeys.generate(0, new Seeded(random));
    }

    /** A SecureRandom that draws from a seeded stream: reproducible keys for a simulation, never for a node. */
    private static final class Seeded extends SecureRandom {
        Seeded(SplittableRandom random) {
            super(new SecureRandomSpi() {
                @Override
                protected void engineSetSeed(byte[] seed) {}

                @Override
                protected void engineNextBytes(byte[] bytes) {
                    random.nextBytes(bytes);
                }

                @Override
                protected byte[] engineGenerateSeed(int n) {
                    byte[] b = new byte[n];
                    random.nextBytes(b);
                    return b;
                }
            }, null);
        }
    }
}
