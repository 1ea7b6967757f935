package org.peerdex.actors.dht;

import org.apache.pekko.actor.NoSerializationVerificationNeeded;

/** Marks messages that never leave their peer (so {@code serialize-messages = on} does not check them). */
public interface LocalOnly extends NoSerializationVerificationNeeded {}
