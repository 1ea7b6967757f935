package org.peerdex.actors.dht.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.identity.SignedPeerRecord;
import org.peerdex.protocol.wire.V1;

/**
 * The membership rules over a transport in memory: hellos are answered in the order they were sent, each reply
 * signed by the key the answering peer holds (or by another key, or not at all, for the peers that misbehave).
 */
class MembershipTest {
    private enum Answers { SIGNED, OTHER_KEY, NEVER }

    private final long[] now = {1_700_000_000_000L};
    private final Map<String, Membership> byAddress = new HashMap<>();
    private final Map<String, Answers> answers = new HashMap<>();
    private final Map<String, PeerKeys> keysAt = new HashMap<>();
    private final Deque<Runnable> wire = new ArrayDeque<>();
    private final List<String> admittedLog = new ArrayList<>();

    private static final Membership.Addresses ADDRESSES = new Membership.Addresses() {
        @Override
        public Optional<String> problem(String address) {
            return Optional.empty();
        }

        @Override
        public String prefix(String address) {
            String host = address.substring(0, address.lastIndexOf(':'));
            return host.substring(0, host.lastIndexOf('.'));
        }
    };

    private Membership peer(String address, List<String> seeds, Answers how) {
        return peer(address, seeds, how, "p16.r3.v16");
    }

    private Membership peer(String address, List<String> seeds, Answers how, String placement) {
        PeerKeys keys = PeerKeys.generate(0);
        Membership[] self = new Membership[1];
        Membership.Transport transport = new Membership.Transport() {
            @Override
            public void hello(Membership.Call call, V1.Hello hello) {
                wire.add(() -> {
                    Membership there = byAddress.get(call.address());
                    Answers a = answers.getOrDefault(call.address(), Answers.NEVER);
                    if (there == null || a == Answers.NEVER) {
                        self[0].answered(call, null, new TimeoutException("no answer"));
                        return;
                    }
                    V1.HelloReply reply = there.greeted(hello.record(), hello.placement());
                    String signer = a == Answers.SIGNED ? keysAt.get(call.address()).publicKey()
                            : PeerKeys.generate(0).publicKey();
                    if (call.expectedKey().isPresent() && !call.expectedKey().get().equals(signer)) {
                        self[0].answered(call, null, new IllegalStateException("reply signed by another key"));
                    } else {
                        self[0].answered(call, new Membership.Reply(signer, reply), null);
                    }
                });
            }

            @Override
            public void leave(String to, String key, V1.Leave leave) {
                wire.add(() -> byAddress.get(to).left(leave.record()));
            }
        };
        Membership.Listener listener = new Membership.Listener() {
            @Override
            public void admitted(PeerId id, SignedPeerRecord r) {
                admittedLog.add(address + " admitted " + r.address());
            }

            @Override
            public void restarted(PeerId id, SignedPeerRecord r) {
                admittedLog.add(address + " restarted " + r.address());
            }

            @Override
            public void dropped(PeerId id, SignedPeerRecord r, String why) {
                admittedLog.add(address + " dropped " + r.address() + ": " + why);
            }
        };
        Membership.Settings s = new Membership.Settings("test", address, true, seeds, 0, Duration.ofMinutes(1), 3,
                Duration.ofMinutes(30), 100, 100, 2, 4, 6, 32, 8, 16, placement);
        Membership m = new Membership(s, keys, transport, listener, ADDRESSES, () -> now[0], new SplittableRandom(1));
        self[0] = m;
        byAddress.put(address, m);
        answers.put(address, how);
        keysAt.put(address, keys);
        return m;
    }

    private void rounds(int n) {
        for (int r = 0; r < n; r++) {
            for (Membership m : byAddress.values()) m.tick();
            while (!wire.isEmpty()) wire.poll().run();
            now[0] += 10_000;
        }
    }

    @Test
    void onlyPeersThatSignTheChallengeWithTheirOwnKeyGetInAndAtMostTwoPerPrefix() {
        Membership seed = peer("198.51.100.1:7000", List.of(), Answers.SIGNED);
        List<String> seeds = List.of("198.51.100.1:7000");
        List<Membership> sybils = new ArrayList<>();
        for (int i = 1; i <= 5; i++) sybils.add(peer("203.0.113." + i + ":7000", seeds, Answers.SIGNED));
        Membership forger = peer("192.0.2.1:7000", seeds, Answers.OTHER_KEY);
        Membership silent = peer("192.0.2.77:7000", seeds, Answers.NEVER);
        Membership honest = peer("198.18.0.1:7000", seeds, Answers.SIGNED);
        rounds(6);

        int sybilsIn = 0;
        for (Membership s : sybils) if (seed.isAdmitted(s.id())) sybilsIn++;
        assertEquals(2, sybilsIn, "two per prefix: " + seed.admittedPerPrefix());
        assertFalse(seed.isAdmitted(forger.id()), "a reply signed by another key proves nothing");
        assertFalse(seed.isAdmitted(silent.id()), "a peer that never answers is never admitted");
        assertTrue(seed.isAdmitted(honest.id()));
        assertTrue(honest.isAdmitted(seed.id()));
        assertEquals(3, seed.admitted().size(), "two of the operator, the honest peer: " + seed.admittedPerPrefix());
        assertTrue(seed.status().refusedByReason().get("prefix full") > 0, seed.status().toString());
        // the silent peer reached others, nobody reached it back: after enough answers it takes itself for passive
        rounds(6);
        assertEquals("passive", silent.status().role());
        assertEquals("active", honest.status().role());
    }

    @Test
    void aPeerOfOtherPlacementParametersIsNeverAdmittedEitherWay() {
        Membership seed = peer("198.51.100.1:7000", List.of(), Answers.SIGNED);
        List<String> seeds = List.of("198.51.100.1:7000");
        Membership other = peer("198.18.0.2:7000", seeds, Answers.SIGNED, "p16.r3.v1"); // one position per peer
        Membership same = peer("198.18.0.3:7000", seeds, Answers.SIGNED);
        rounds(6);
        assertTrue(seed.isAdmitted(same.id()) && same.isAdmitted(seed.id()));
        assertFalse(seed.isAdmitted(other.id()), "it would place data where the others do not look");
        assertFalse(other.isAdmitted(seed.id()));
        assertFalse(same.isAdmitted(other.id()), "not through another peer's list either");
        assertTrue(seed.status().refusedByReason().getOrDefault("other placement", 0L) > 0, seed.status().toString());
    }

    @Test
    void aPeerLeavesByItsOwnLeavingRecordOrByFailingProbes() {
        Membership seed = peer("198.51.100.1:7000", List.of(), Answers.SIGNED);
        Membership a = peer("198.18.0.1:7000", List.of("198.51.100.1:7000"), Answers.SIGNED);
        Membership b = peer("198.18.1.1:7000", List.of("198.51.100.1:7000"), Answers.SIGNED);
        rounds(4);
        assertTrue(seed.isAdmitted(a.id()) && seed.isAdmitted(b.id()) && a.isAdmitted(b.id()));

        assertEquals(2, a.leave());
        while (!wire.isEmpty()) wire.poll().run();
        assertFalse(seed.isAdmitted(a.id()), "its own leaving record takes it out");
        assertFalse(b.isAdmitted(a.id()));

        answers.put("198.18.1.1:7000", Answers.NEVER); // b stops answering
        byAddress.remove("198.18.0.1:7000");
        rounds(3);
        assertFalse(seed.isAdmitted(b.id()), "three failed probes: " + admittedLog);
        assertTrue(admittedLog.contains("198.51.100.1:7000 dropped 198.18.1.1:7000: failed 3 probes"), admittedLog.toString());
    }

    /**
     * A member that signs a new run into every hello (a new {@code startedAt} each time) is taken for restarted at
     * most once a {@link Membership#RESTART_GAP_MS}: the restarts between are held and told once at the gap's end.
     */
    @Test
    void restartsOfAMemberReachTheListenerAtMostOnceAGap() {
        Membership seed = peer("198.51.100.1:7000", List.of(), Answers.SIGNED);
        String address = "198.18.0.1:7000";
        Membership spammer = peer(address, List.of("198.51.100.1:7000"), Answers.SIGNED);
        rounds(4);
        assertTrue(seed.isAdmitted(spammer.id()));
        String told = "198.51.100.1:7000 restarted " + address;
        PeerKeys keys = keysAt.get(address);
        for (int i = 0; i < 20; i++) {
            now[0] += 1_000;
            seed.greeted(SignedPeerRecord.sign(keys, "test", address, true, now[0], Duration.ofMinutes(30), now[0], false),
                    "p16.r3.v16");
        }
        assertEquals(1, admittedLog.stream().filter(told::equals).count(), "20 new runs in 20 s: " + admittedLog);
        assertEquals(1L, seed.status().refusedByReason().get("restart held"), seed.status().toString());
        rounds(7); // 70 s: the held restart is told once the gap is over
        assertEquals(2, admittedLog.stream().filter(told::equals).count(), admittedLog.toString());
        assertTrue(seed.isAdmitted(spammer.id()), "a held restart keeps the member");
        rounds(7); // its hellos now carry one run: nothing more to tell
        assertEquals(2, admittedLog.stream().filter(told::equals).count(), admittedLog.toString());
    }
}
