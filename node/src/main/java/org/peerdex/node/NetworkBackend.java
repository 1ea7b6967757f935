package org.peerdex.node;

import org.peerdex.actors.dht.DhtPeer;

/**
 * The network side of a running peer, for the routes and services: its DHT actors and, in the open network, the
 * peer protocol's endpoint. Both are set once by {@link PeerNode} when the network has started (after HTTP is bound,
 * since the DHT advertises the HTTP port), so they read null before that, and always in portal mode.
 */
public final class NetworkBackend {
    private volatile DhtPeer dht;
    private volatile OpenNetwork open;

    NetworkBackend() {}

    void register(DhtPeer dht) {
        this.dht = dht;
    }

    void registerOpen(OpenNetwork open) {
        this.open = open;
    }

    /** The peer's DHT actors, or null if it runs without a network (portal mode) or the network is not up yet. */
    public DhtPeer dht() {
        return dht;
    }

    /** The open network's endpoint and membership, or null inside a trust domain or without a network. */
    public OpenNetwork open() {
        return open;
    }
}
