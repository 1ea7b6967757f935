package org.peerdex.actors.dht;

import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** The newest PeerView, readable from any thread (HTTP routes, candidate sources); fed by a tiny subscriber. */
public final class LatestView {
    private final AtomicReference<PeerView> view = new AtomicReference<>();

    /** The subscriber to register with {@link PeerDirectory.SubscribeView}. */
    public Behavior<PeerView> subscriber() {
        return Behaviors.receiveMessage(v -> {
            view.set(v);
            return Behaviors.same();
        });
    }

    /** The view, or null before the directory published one. */
    public PeerView get() {
        return view.get();
    }

    /** True when this peer knows other peers (global search is then the default). */
    public boolean hasOtherPeers() {
        PeerView v = view.get();
        return v != null && !v.others().isEmpty();
    }
}
