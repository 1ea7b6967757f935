package org.peerdex.node;

import java.time.Instant;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Placement;
import org.peerdex.storage.PeerStorage;

/** What the HTTP routes and services of a running peer share. */
public record NodeContext(NodeConfig config, PeerId peerId, PeerStorage storage, Placement placement,
                          ActorSystem<SpawnProtocol.Command> system, Instant started) {}
