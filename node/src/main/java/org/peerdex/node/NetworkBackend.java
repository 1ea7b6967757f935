package org.peerdex.node;

import java.util.Map;
import java.util.WeakHashMap;
import org.peerdex.actors.dht.DhtPeer;

/** The DHT side of a running peer (null in portal mode), for the HTTP routes; registered by PeerNode.start. */
public final class NetworkBackend {
    private static final Map<NodeContext, DhtPeer> PEERS = new WeakHashMap<>();
    private static final Map<NodeContext, OpenNetwork> OPEN = new WeakHashMap<>();

    private NetworkBackend() {}

    static synchronized void register(NodeContext ctx, DhtPeer dht) {
        PEERS.put(ctx, dht);
    }

    static synchronized void registerOpen(NodeContext ctx, OpenNetwork open) {
        OPEN.put(ctx, open);
    }

    /** The open network's endpoint and membership, or null inside a trust domain or without a network. */
    public static synchronized OpenNetwork open(NodeContext ctx) {
        return OPEN.get(ctx);
    }

    /** The peer's DHT actors, or null if it runs without a network. */
    public static synchronized DhtPeer of(NodeContext ctx) {
        return PEERS.get(ctx);
    }
}
