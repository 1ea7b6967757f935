package org.peerdex.actors.dht.ring;

import org.apache.pekko.actor.typed.ActorRef;
import org.peerdex.actors.dht.shard.ShardOwner;
import org.peerdex.protocol.WireMessage;
import org.peerdex.protocol.hash.PeerId;

/**
 * What peers tell each other about themselves in the directory's hello exchange.
 *
 * @param address      the peer's cluster address ({@code pekko://system@host:port}) or a virtual peer's name
 * @param acceptsIndex false for a passive peer: a member that holds no ranges (YaCy's junior peers)
 * @param httpAddress  host:port of its HTTP API, or "" if it has none
 */
public record PeerInfo(PeerId peerId, String address, boolean acceptsIndex, String httpAddress,
                       ActorRef<ShardOwner.Command> shardOwner, ActorRef<PeerDirectory.Command> directory)
        implements WireMessage {
    public PeerInfo {
        if (peerId == null || shardOwner == null || directory == null) {
            throw new IllegalArgumentException("peer info needs an id, a shard owner and a directory");
        }
        address = address == null ? "" : address;
        httpAddress = httpAddress == null ? "" : httpAddress;
        if (address.length() > 512 || httpAddress.length() > 512) throw new IllegalArgumentException("address too long");
    }

    public String role() {
        return acceptsIndex ? "active" : "passive";
    }
}
