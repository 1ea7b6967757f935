package org.peerdex.node.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.Route;
import org.peerdex.actors.dht.DhtPeer;
import org.peerdex.actors.dht.ring.PeerDirectory;
import org.peerdex.actors.dht.ring.PeerRecord;
import org.peerdex.actors.dht.ring.PeerView;
import org.peerdex.node.NetworkBackend;
import org.peerdex.node.NodeContext;
import org.peerdex.protocol.hash.PeerId;
import org.peerdex.protocol.ring.Ring;
import org.peerdex.protocol.ring.RingPosition;

import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.onSuccess;
import static org.apache.pekko.http.javadsl.server.Directives.path;

/**
 * {@code GET /api/peers}: the ring as this peer sees it: every live or remembered peer with its position, the
 * ring ranges it is primary for, its role (active, passive, offline) and when it was last seen.
 */
public final class PeerRoutes {
    private final NodeContext ctx;
    private final NetworkBackend network;

    public PeerRoutes(NodeContext ctx, NetworkBackend network) {
        this.ctx = ctx;
        this.network = network;
    }

    public Route route() {
        return path("peers", () -> get(() -> {
            DhtPeer dht = network.dht();
            if (dht == null) return Json.ok(Map.of("peers", List.of()));
            CompletionStage<List<PeerRecord>> table = AskPattern.ask(dht.directory(), PeerDirectory.GetPeerTable::new,
                    Duration.ofSeconds(3), ctx.system().scheduler());
            return onSuccess(table, rows -> Json.ok(Map.of("peers", peers(rows, dht.view().get()))));
        }));
    }

    static List<Map<String, Object>> peers(List<PeerRecord> rows, PeerView view) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (PeerRecord r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("peerId", r.peerId());
            m.put("address", r.address());
            m.put("http", r.httpAddress());
            m.put("position", r.position());
            m.put("ranges", ranges(PeerId.parse(r.peerId()), view));
            m.put("role", r.role());
            m.put("lastSeen", r.lastSeen());
            if (view != null && view.self().value().equals(r.peerId())) m.put("self", true);
            out.add(m);
        }
        return out;
    }

    /**
     * The ring ranges a peer is primary for, one per point of it: (the previous point's position, its position];
     * empty if not in the ring.
     */
    static List<Map<String, Object>> ranges(PeerId peer, PeerView view) {
        if (view == null || !view.ring().contains(peer)) return List.of();
        Ring ring = view.ring();
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i : ring.pointsOf(peer)) {
            long from = ring.positionAt(i - 1);
            long to = ring.positionAt(i);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("fromExclusive", ring.points() == 1 ? to : from);
            r.put("toInclusive", to);
            r.put("share", ring.points() == 1 ? 1.0 : (double) RingPosition.distance(from, to) / (double) RingPosition.MAX);
            out.add(r);
        }
        return out;
    }

    static Route unavailable() {
        return Json.error(StatusCodes.SERVICE_UNAVAILABLE, "no network");
    }
}
