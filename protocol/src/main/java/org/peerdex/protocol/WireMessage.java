package org.peerdex.protocol;

/**
 * Marker for every message that may cross from one peer to another. Bound to Jackson CBOR in the actors module's
 * reference.conf; every such message is validated by its receiver and bounded in size (see docs/protocol.md).
 */
public interface WireMessage {}
