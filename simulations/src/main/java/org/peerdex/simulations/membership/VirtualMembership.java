package org.peerdex.simulations.membership;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.peerdex.actors.dht.LocalOnly;
import org.peerdex.actors.dht.membership.Challenge;
import org.peerdex.actors.dht.membership.Membership;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.protocol.WireMessage;
import org.peerdex.protocol.identity.PeerKeys;
import org.peerdex.protocol.wire.V1;

/**
 * A virtual peer's open membership: the node's own {@link Membership} (records, challenges, admission with the
 * diversity bounds, probes, leaving records) whose hellos travel as messages through the simulator's virtual
 * network (latency, loss, partitions, bytes counted as "membership" traffic), in simulated time. A hello carries a
 * fresh nonce from the peer's seeded stream; the answering peer signs nonce and reply with its key
 * ({@link Challenge}); the asker checks the signature against the key it expects before the reply counts. A hello
 * that gets no answer within the answer timeout fails (a lost message, a peer that is down, or one that does not
 * answer).
 */
public final class VirtualMembership {
    private VirtualMembership() {}

    public sealed interface Command {}

    /** Wire: a hello with the asker's fresh nonce; answered with an {@link Answer} to {@code replyTo}. */
    public record Hello(long call, V1.Hello hello, String nonce, ActorRef<Command> replyTo)
            implements Command, WireMessage {}

    /** Wire: the reply to a hello, signed over its nonce by {@code key}. */
    public record Answer(long call, V1.HelloReply reply, String key, String signature) implements Command, WireMessage {}

    /** Wire: a peer's own leaving record. */
    public record Leave(V1.Leave leave) implements Command, WireMessage {}

    private record TimedOut(long call) implements Command, LocalOnly {}

    private enum Tick implements Command, LocalOnly { INSTANCE }

    private record Pending(Membership.Call call, String nonce) {}

    /**
     * @param at            the membership actor at an address, as this peer reaches it over the network (a handle),
     *                      or null when nobody listens there
     * @param silent        whether this peer leaves every hello unanswered (it cannot be reached back: behind NAT)
     * @param firstTick     when the first round starts (spreads the peers' rounds)
     * @param started       gets the membership once it runs (the simulation reads its figures)
     */
    public static Behavior<Command> create(Membership.Settings settings, PeerKeys keys,
                                           Function<String, ActorRef<Command>> at, Membership.Listener listener,
                                           Membership.Addresses addresses, LongSupplier clock, SplittableRandom random,
                                           Duration probeInterval, Duration answerTimeout, Duration firstTick,
                                           BooleanSupplier silent, ActorRef<PeerDirectory.Command> directory,
                                           Consumer<Membership> started) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            Map<Long, Pending> pending = new HashMap<>();
            long[] seq = {0};
            Membership.Transport transport = new Membership.Transport() {
                @Override
                public void hello(Membership.Call call, V1.Hello hello) {
                    long id = seq[0]++;
                    String nonce = Challenge.nonce(random);
                    pending.put(id, new Pending(call, nonce));
                    ActorRef<Command> there = at.apply(call.address());
                    if (there != null) there.tell(new Hello(id, hello, nonce, ctx.getSelf()));
                    timers.startSingleTimer(new TimedOut(id), new TimedOut(id), answerTimeout);
                }

                @Override
                public void leave(String address, String key, V1.Leave leave) {
                    ActorRef<Command> there = at.apply(address);
                    if (there != null) there.tell(new Leave(leave));
                }
            };
            Membership m = new Membership(settings, keys, transport, listener, addresses, clock, random);
            started.accept(m);
            boolean[] holding = {true};
            timers.startTimerWithFixedDelay(Tick.INSTANCE, firstTick, probeInterval);
            return Behaviors.receive(Command.class)
                    .onMessage(Hello.class, h -> {
                        if (silent.getAsBoolean()) return Behaviors.same();
                        V1.HelloReply reply = m.greeted(h.hello().record(), h.hello().placement());
                        h.replyTo().tell(new Answer(h.call(), reply, keys.publicKey(),
                                Challenge.sign(keys, h.nonce(), reply)));
                        return Behaviors.same();
                    })
                    .onMessage(Answer.class, a -> {
                        Pending p = pending.remove(a.call());
                        if (p == null) return Behaviors.same(); // timed out before
                        timers.cancel(new TimedOut(a.call()));
                        Optional<String> expected = p.call().expectedKey();
                        if (expected.isPresent() && !expected.get().equals(a.key())) {
                            m.answered(p.call(), null, new IllegalStateException("reply signed by another key"));
                        } else if (a.reply() == null || !Challenge.verify(a.key(), p.nonce(), a.reply(), a.signature())) {
                            m.answered(p.call(), null, new IllegalStateException("bad reply signature"));
                        } else {
                            m.answered(p.call(), new Membership.Reply(a.key(), a.reply()), null);
                        }
                        return Behaviors.same();
                    })
                    .onMessage(TimedOut.class, t -> {
                        Pending p = pending.remove(t.call());
                        if (p != null) m.answered(p.call(), null, new TimeoutException("no answer"));
                        return Behaviors.same();
                    })
                    .onMessage(Leave.class, l -> {
                        m.left(l.leave().record());
                        return Behaviors.same();
                    })
                    .onMessageEquals(Tick.INSTANCE, () -> {
                        // behind NAT: others never admit this peer, so it holds no ranges in their rings; nor in its own
                        boolean hold = m.holdsRanges();
                        if (hold != holding[0]) {
                            holding[0] = hold;
                            directory.tell(new PeerDirectory.SetAcceptsIndex(hold));
                        }
                        m.tick();
                        return Behaviors.same();
                    })
                    .build();
        }));
    }
}
