package org.peerdex.protocol;

/**
 * Marker for the actors' messages that may cross from one peer to another inside a trust domain (Pekko Cluster).
 * Bound to Jackson CBOR in the actors module's reference.conf; every such message is validated by its receiver and
 * bounded in size. The open network never sends these: its peer protocol has its own types ({@code wire.V1},
 * docs/protocol.md).
 */
public interface WireMessage {}
