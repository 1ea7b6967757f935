package org.peerdex.actors.dht.ring;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.peerdex.actors.dht.DhtEnvironment;
import org.peerdex.protocol.ring.Ring;

/**
 * The newest PeerView, readable from any thread (HTTP routes, candidate sources); fed by a tiny subscriber. It
 * also remembers the rings that were current shortly before ({@link #recentRings}): right after a ring change a
 * new holder may not have its copies yet, so a lookup also asks a holder under an earlier ring (hand-off).
 */
public final class LatestView {
    /** Rings remembered at most (several changes in one hand-off window: churn). */
    private static final int MAX_HISTORY = 16;
    private final AtomicReference<PeerView> view = new AtomicReference<>();
    /** Earlier rings, newest first, each with the times it became and stopped being current. */
    private final Deque<Replaced> history = new ArrayDeque<>();
    private long currentSince;
    /** When this peer saw its first view (0: not yet): before that its ring history is unknown. */
    private long firstSeen;

    private record Replaced(Ring ring, long since, long until) {
        long tenure() {
            return until - since;
        }
    }

    /** The subscriber to register with {@link PeerDirectory.SubscribeView}. */
    public Behavior<PeerView> subscriber() {
        return Behaviors.setup(ctx -> {
            DhtEnvironment env = DhtEnvironment.get(ctx.getSystem());
            return Behaviors.receiveMessage(v -> {
                // under the lock: a reader that saw this view (then asks recentRings) also sees the ring it replaced
                synchronized (history) {
                    PeerView before = view.getAndSet(v);
                    long now = env.millis();
                    if (before == null) currentSince = now;
                    if (firstSeen == 0 && v != null) firstSeen = Math.max(1, now);
                    if (before != null && v != null && !before.ring().equals(v.ring())) {
                        history.addFirst(new Replaced(before.ring(), currentSince, now));
                        currentSince = now;
                        while (history.size() > MAX_HISTORY) history.removeLast();
                    }
                }
                return Behaviors.same();
            });
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

    /**
     * The rings that were current at some moment of the last {@code window} (the current one excluded), the one
     * that stood longest first: its holders had the most time to receive their copies (rings of a few moments,
     * as while peers start one after another, come last). Empty when the ring has been stable. Within the window
     * after this peer's own start the ring without this peer comes last: what was indexed while it was away is on
     * the holders of that ring, not on this peer's stale (or empty) store. Read {@link #get()} first, then this:
     * the pair is then consistent.
     */
    public List<Ring> recentRings(Duration window, long nowMillis) {
        List<Replaced> recent = new ArrayList<>();
        if (window.isZero() || window.isNegative()) return List.of();
        long since = nowMillis - window.toMillis();
        boolean pastUnknown;
        synchronized (history) {
            for (Replaced r : history) {
                if (r.until() < since) break;
                recent.add(r);
            }
            pastUnknown = firstSeen == 0 || firstSeen > since;
        }
        recent.sort(Comparator.comparingLong(Replaced::tenure).reversed());
        List<Ring> out = new ArrayList<>(recent.stream().map(Replaced::ring).toList());
        PeerView v = view.get();
        if (pastUnknown && v != null && v.ring().contains(v.self())) {
            // this peer (re)started within the window: the ring it knows nothing before is the one it was absent
            // from, whose holders have what was indexed while it was away (a restarted holder's data is stale)
            out.add(v.ring().without(v.self()));
        }
        return List.copyOf(out);
    }
}
