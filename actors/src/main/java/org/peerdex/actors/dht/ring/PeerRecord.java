package org.peerdex.actors.dht.ring;

/** A row of the persisted peer table (Keyspace.PEERS): who was seen, where, in which role, and when. */
public record PeerRecord(String peerId, String address, String httpAddress, String role, long position,
                         long lastSeen) {}
