package org.peerdex.simulations.net;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.ActorRefProvider;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.FunctionRef;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.peerdex.actors.dht.PeerDirectory;
import org.peerdex.actors.dht.ShardOwner;
import org.peerdex.simulations.sim.SimRuntime;
import scala.runtime.BoxedUnit;

/**
 * The wire between virtual peers. A peer never holds another peer's actor: it holds a handle (a lightweight
 * {@link FunctionRef}) per remote actor, and what it tells a handle is serialized with the real serializer
 * (bytes counted), passed through the {@link NetworkModel} (latency, loss, bandwidth, partitions) and, if it
 * survives, delivered later in simulated time to the real actor, with the refs inside it rewritten into handles
 * of the receiving peer ({@link RefRewriter}). A peer that is down neither sends nor receives; messages to a
 * previous incarnation of a restarted peer are lost.
 */
public final class VirtualNetwork {
    /** What a handle stands for: held by peer {@code holder}, reaching {@code target} of peer {@code owner}. */
    private record Handle(int holder, int owner, int incarnation, ActorRef<Object> target, boolean oneShot,
                          Key key) {}

    private record Key(int holder, ActorRef<?> target) {}

    private final SimRuntime runtime;
    private final NetworkModel model;
    private final WireMeter meter;
    private final RefRewriter rewriter = new RefRewriter();
    private final ActorRefProvider provider;
    private final org.apache.pekko.actor.ActorSystem classic;
    private final boolean[] up;
    private final int[] incarnation;
    private final Map<org.apache.pekko.actor.ActorRef, Handle> handles = new HashMap<>();
    private final Map<Key, ActorRef<Object>> byTarget = new HashMap<>();
    private final List<List<Key>> ownedBy = new ArrayList<>();
    private long delivered;
    private long lostToDownPeers;
    private long failures;
    private int uids;
    private java.util.function.Consumer<String> trace;

    /** Prints every send (debugging aid); null turns it off. */
    public void trace(java.util.function.Consumer<String> t) {
        this.trace = t;
    }

    public VirtualNetwork(ActorSystem<?> system, SimRuntime runtime, NetworkModel model) {
        this.runtime = runtime;
        this.model = model;
        this.meter = new WireMeter(system);
        this.classic = Adapter.toClassic(system);
        this.provider = ((ExtendedActorSystem) classic).provider();
        this.up = new boolean[model.peers()];
        this.incarnation = new int[model.peers()];
        for (int i = 0; i < model.peers(); i++) ownedBy.add(new ArrayList<>());
    }

    public NetworkModel model() {
        return model;
    }

    public Traffic traffic() {
        return model.traffic();
    }

    public boolean isUp(int peer) {
        return up[peer];
    }

    /** A peer (re)starts: a new incarnation; handles to its old actors go dead. */
    public void up(int peer) {
        up[peer] = true;
        incarnation[peer]++;
        purge(peer);
    }

    public void down(int peer) {
        up[peer] = false;
        purge(peer);
    }

    public long delivered() {
        return delivered;
    }

    public long lostToDownPeers() {
        return lostToDownPeers;
    }

    /** Messages that could not be serialized or rebuilt (a bug if not 0). */
    public long failures() {
        return failures;
    }

    public int handleCount() {
        return handles.size();
    }

    private void purge(int owner) {
        for (Key k : ownedBy.get(owner)) {
            ActorRef<Object> h = byTarget.remove(k);
            if (h != null) handles.remove(Adapter.toClassic(h));
        }
        ownedBy.get(owner).clear();
    }

    /** The handle through which peer {@code holder} reaches actor {@code target} of peer {@code owner}. */
    @SuppressWarnings("unchecked")
    public <T> ActorRef<T> handle(int holder, int owner, ActorRef<T> target) {
        if (holder == owner) return target;
        Key key = new Key(holder, target);
        ActorRef<Object> h = byTarget.get(key);
        if (h != null) return (ActorRef<T>) (ActorRef<?>) h;
        boolean oneShot = target.path().toString().contains("/temp/");
        Handle info = new Handle(holder, owner, incarnation[owner], (ActorRef<Object>) (ActorRef<?>) target, oneShot, key);
        FunctionRef[] self = new FunctionRef[1];
        // a uid of its own: typed refs hash by uid, and a temp path has none (every handle would collide)
        self[0] = new FunctionRef(provider.tempPath().withUid(++uids), provider, classic, (sender, msg) -> {
            if (info.oneShot()) handles.remove(self[0]);
            try {
                send(info, msg);
            } catch (RuntimeException e) {
                failures++;
                if (failures <= 5) System.err.println("network: cannot send " + msg.getClass().getName() + ": " + e);
            }
            return BoxedUnit.UNIT;
        });
        FunctionRef ref = self[0];
        h = Adapter.toTyped(ref);
        handles.put(ref, info);
        if (!oneShot) {
            byTarget.put(key, h);
            ownedBy.get(owner).add(key);
        }
        return (ActorRef<T>) (ActorRef<?>) h;
    }

    public ActorRef<PeerDirectory.Command> directoryHandle(int holder, int owner, ActorRef<PeerDirectory.Command> d) {
        return handle(holder, owner, d);
    }

    private void send(Handle h, Object msg) {
        String category = category(msg);
        if (!up[h.holder]) {
            model.traffic().drop(category);
            return;
        }
        int bytes = meter.size(msg);
        NetworkModel.Delivery d = model.send(h.holder, h.owner, bytes, category);
        if (trace != null) trace.accept(runtime.nowMicros() / 1000 + "ms " + h.holder + "->" + h.owner + " "
                + msg.getClass().getSimpleName() + " " + bytes + "B " + (d.delivered() ? "+" + d.delayMicros() / 1000 + "ms" : d.reason()));
        if (!d.delivered()) return;
        runtime.schedule(d.delayMicros(), () -> {
            if (!up[h.owner] || incarnation[h.owner] != h.incarnation || !model.canReach(h.holder, h.owner)) {
                lostToDownPeers++;
                model.traffic().drop(category);
                return;
            }
            try {
                Object rewritten = rewriter.rewrite(msg, ref -> rewrite(ref, h.holder, h.owner));
                delivered++;
                h.target.tell(rewritten);
            } catch (RuntimeException e) {
                failures++;
                if (failures <= 5) System.err.println("network: cannot deliver " + msg.getClass().getName() + ": " + e);
            }
        });
    }

    /** A ref inside a message from {@code from} to {@code to}, as the receiver must see it. */
    private ActorRef<?> rewrite(ActorRef<?> ref, int from, int to) {
        Handle h = handles.get(Adapter.toClassic(ref));
        if (h != null) return h.owner == to ? h.target : handle(to, h.owner, h.target);
        return handle(to, from, ref); // a real ref in a message from a peer is one of its own actors
    }

    /** Traffic categories by message: membership, store (replication, hand-off, repair), digest, search. */
    public static String category(Object msg) {
        if (msg instanceof PeerDirectory.Command) return "membership";
        if (msg instanceof ShardOwner.StorePostings || msg instanceof ShardOwner.StoreReply) return "store";
        if (msg instanceof ShardOwner.DigestRequest || msg instanceof ShardOwner.DigestReply) return "digest";
        return "search";
    }
}
