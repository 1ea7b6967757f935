package org.peerdex.actors.dht.ring;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.peerdex.actors.dht.LocalOnly;
import org.peerdex.actors.dht.RangeKey;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.protocol.ring.Ring;

/**
 * A snapshot of the network as one peer sees it: the ring of live index-accepting peers and every live peer's
 * info (passive peers included), in peer id order. Immutable; the PeerDirectory publishes a new one on every change.
 * Views with equal peers or rings share them.
 */
public record PeerView(PeerId self, Ring ring, Map<PeerId, PeerInfo> peers, long version) implements LocalOnly {
    public PeerView {
        // in peer id order, and shared with equal views (SharedViews)
        peers = SharedViews.peers(peers);
        ring = SharedViews.ring(ring);
    }

    public Optional<ActorRef<ShardOwner.Command>> owner(PeerId peer) {
        PeerInfo i = peers.get(peer);
        return i == null ? Optional.empty() : Optional.of(i.shardOwner());
    }

    public List<PeerId> holders(RangeKey key, Placement placement) {
        return placement.holders(key.position(placement.partitions()), ring);
    }

    /** The peers in both views whose shard owner differs: back as a new incarnation under the same id. */
    public static List<PeerId> reincarnated(PeerView before, PeerView now) {
        return before.peers() == now.peers() ? List.of() : SharedViews.reincarnated(before.peers(), now.peers());
    }

    /** Peers other than this one. */
    public List<PeerId> others() {
        List<PeerId> out = new ArrayList<>();
        for (PeerId p : peers.keySet()) if (!p.equals(self)) out.add(p);
        return out;
    }
}
