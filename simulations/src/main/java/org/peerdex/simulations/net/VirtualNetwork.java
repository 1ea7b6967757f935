package org.peerdex.simulations.net;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.pekko.actor.ActorPath;
import org.apache.pekko.actor.ActorRefProvider;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.FunctionRef;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.simulations.membership.VirtualMembership;
import org.peerdex.simulations.sim.SimRuntime;
import scala.runtime.BoxedUnit;

/**
 * The wire between virtual peers. A peer never holds another peer's actor: it holds a handle (a lightweight
 * {@link FunctionRef}) per remote actor, and what it tells a handle is serialized with the real serializer
 * (bytes counted), passed through the {@link NetworkModel} (latency, loss, bandwidth, partitions) and, if it
 * survives, delivered later in simulated time to the real actor, with the refs inside it rewritten as the
 * receiving peer must see them ({@link RefRewriter}). A peer that is down neither sends nor receives; messages
 * to a previous incarnation of a restarted peer are lost.
 * <p>
 * One handle per actor serves every peer (2 per peer in the views, not 2 per pair of peers), so the peer infos
 * in N views are N^2 pointers to the same N objects. The sender is the peer whose task is running when a handle
 * is told ({@link SimRuntime#currentPeer}); a peer telling a handle of its own actor tells the actor itself. A
 * handle has its actor's path and uid, so it equals it, as a remote ref equals the actor it stands for.
 */
public final class VirtualNetwork {
    /** What a handle stands for: {@code target} of peer {@code owner} in one of its incarnations. */
    private record Handle(int owner, int incarnation, ActorRef<Object> target, boolean oneShot) {}

    private static final String HOST_PREFIX = "peer-";

    private final SimRuntime runtime;
    private final NetworkModel model;
    private final WireMeter meter;
    private final RefRewriter rewriter = new RefRewriter();
    private final ActorRefProvider provider;
    private final org.apache.pekko.actor.ActorSystem classic;
    private final boolean[] up;
    private final int[] incarnation;
    /** by identity: a handle equals its target */
    private final Map<org.apache.pekko.actor.ActorRef, Handle> handles = new IdentityHashMap<>();
    private final Map<org.apache.pekko.actor.ActorRef, ActorRef<Object>> byTarget = new IdentityHashMap<>();
    private final List<List<org.apache.pekko.actor.ActorRef>> ownedBy = new ArrayList<>();
    private long delivered;
    private long lostToDownPeers;
    private long failures;
    private Consumer<String> trace;

    /** Prints every send (debugging aid); null turns it off. */
    public void trace(Consumer<String> t) {
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
        runtime.attributeBy(VirtualNetwork::peerOf);
    }

    /** The name of peer {@code peer}'s host actor in its {@code start}-th incarnation (directly under /user). */
    public static String hostName(int peer, int start) {
        return HOST_PREFIX + peer + "-" + start;
    }

    /** The peer an actor under a host named by {@link #hostName} belongs to, -1 for any other actor. */
    static int peerOf(ActorPath path) {
        scala.collection.immutable.Iterable<String> elements = path.elements();
        scala.collection.Iterator<String> it = elements.iterator();
        if (!it.hasNext() || !it.next().equals("user") || !it.hasNext()) return -1;
        String host = it.next();
        int dash = host.indexOf('-', HOST_PREFIX.length());
        if (!host.startsWith(HOST_PREFIX) || dash < 0) return -1;
        try {
            return Integer.parseInt(host, HOST_PREFIX.length(), dash, 10);
        } catch (NumberFormatException e) {
            return -1;
        }
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

    /** Messages that could not be serialized or rebuilt, or told by no peer (a bug if not 0). */
    public long failures() {
        return failures;
    }

    public int handleCount() {
        return handles.size();
    }

    private void purge(int owner) {
        for (org.apache.pekko.actor.ActorRef target : ownedBy.get(owner)) {
            ActorRef<Object> h = byTarget.remove(target);
            if (h != null) handles.remove(Adapter.toClassic(h));
        }
        ownedBy.get(owner).clear();
    }

    /** The handle through which peer {@code holder} reaches actor {@code target} of peer {@code owner}. */
    public <T> ActorRef<T> handle(int holder, int owner, ActorRef<T> target) {
        return holder == owner ? target : handle(owner, target);
    }

    /** The handle through which every other peer reaches actor {@code target} of peer {@code owner}. */
    @SuppressWarnings("unchecked")
    public <T> ActorRef<T> handle(int owner, ActorRef<T> target) {
        org.apache.pekko.actor.ActorRef real = Adapter.toClassic(target);
        if (handles.containsKey(real)) return target; // already a handle
        ActorRef<Object> h = byTarget.get(real);
        if (h != null) return (ActorRef<T>) (ActorRef<?>) h;
        boolean oneShot = real.path().toString().contains("/temp/");
        Handle info = new Handle(owner, incarnation[owner], (ActorRef<Object>) (ActorRef<?>) target, oneShot);
        FunctionRef[] self = new FunctionRef[1];
        self[0] = new FunctionRef(real.path(), provider, classic, (sender, msg) -> {
            if (info.oneShot()) handles.remove(self[0]);
            int holder = runtime.currentPeer();
            try {
                if (holder == info.owner()) {
                    info.target().tell(msg);
                } else if (holder < 0) {
                    failures++;
                    if (failures <= 5) System.err.println("network: " + msg.getClass().getName() + " told by no peer");
                } else {
                    send(holder, info, msg);
                }
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
            byTarget.put(real, h);
            ownedBy.get(owner).add(real);
        }
        return (ActorRef<T>) (ActorRef<?>) h;
    }

    public ActorRef<PeerDirectory.Command> directoryHandle(int holder, int owner, ActorRef<PeerDirectory.Command> d) {
        return handle(holder, owner, d);
    }

    private void send(int holder, Handle h, Object msg) {
        String category = category(msg);
        if (!up[holder]) {
            model.traffic().drop(category);
            return;
        }
        int bytes = meter.size(msg);
        NetworkModel.Delivery d = model.send(holder, h.owner, bytes, category);
        if (trace != null) trace.accept(runtime.nowMicros() / 1000 + "ms " + holder + "->" + h.owner + " "
                + msg.getClass().getSimpleName() + " " + bytes + "B " + (d.delivered() ? "+" + d.delayMicros() / 1000 + "ms" : d.reason()));
        if (!d.delivered()) return;
        runtime.schedule(d.delayMicros(), () -> {
            if (!up[h.owner] || incarnation[h.owner] != h.incarnation || !model.canReach(holder, h.owner)) {
                lostToDownPeers++;
                model.traffic().drop(category);
                return;
            }
            try {
                Object rewritten = rewriter.rewrite(msg, ref -> rewrite(ref, holder, h.owner));
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
        if (h != null) return h.owner == to ? h.target : ref;
        return handle(from, ref); // a real ref in a message from a peer is one of its own actors
    }

    /** Traffic categories by message: membership, store (replication, hand-off, repair), digest, search. */
    public static String category(Object msg) {
        if (msg instanceof PeerDirectory.Command || msg instanceof VirtualMembership.Command) return "membership";
        if (msg instanceof ShardOwner.StorePostings || msg instanceof ShardOwner.StoreReply) return "store";
        if (msg instanceof ShardOwner.DigestRequest || msg instanceof ShardOwner.DigestReply) return "digest";
        return "search";
    }
}
